# Corpus program: the Examples of torch.linalg's docstrings (norm, vector_norm, matrix_norm, det, slogdet, inv, solve,
#   lstsq, cholesky, qr, eigh, svd, svdvals, pinv, matrix_rank, matrix_power, cross, multi_dot, householder_product
#   free) and of torch.matmul's broadcasting cases.
# Source: pytorch/pytorch, torch/linalg/__init__.py and torch/_torch_docs.py (the Examples:: of each docstring).
# Licence: BSD-3-Clause (PyTorch); the docstrings' examples, put together in one script.
# Changes: float64 where signs of eigenvectors and singular vectors would be ambiguous, only invariant values printed.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers).
# corpus-tolerance: rtol=1e-4 atol=1e-6 -- LAPACK routines in two builds.
import torch
from torch import linalg as LA

torch.manual_seed(0)
a = torch.arange(9, dtype=torch.float) - 4
B = a.reshape((3, 3))
print(LA.norm(a), LA.norm(B), LA.norm(B, 'fro'), LA.norm(a, float('inf')), LA.norm(B, float('inf')),
      LA.norm(a, -float('inf')), LA.norm(B, -float('inf')), LA.norm(a, 1), LA.norm(B, 1), LA.norm(a, -1),
      LA.norm(B, -1), LA.norm(a, 2), LA.norm(B, 2), LA.norm(a, -2), LA.norm(B.double(), -2), LA.norm(a, 3),
      LA.norm(a, -3))
print(LA.vector_norm(a, ord=3.5), LA.vector_norm(B, ord=3.5), LA.matrix_norm(B, ord='nuc'), LA.matrix_norm(B.expand(2, -1, -1)))
A = torch.randn(3, 3, dtype=torch.float64)
print(LA.det(A), LA.slogdet(A), torch.logdet(A @ A.T))
Ainv = LA.inv(A)
print(torch.dist(A @ Ainv, torch.eye(3, dtype=torch.float64)) < 1e-10)
b = torch.randn(3, dtype=torch.float64)
x = LA.solve(A, b)
print(torch.allclose(A @ x, b), LA.solve(A, torch.randn(3, 2, dtype=torch.float64)).shape)
A = torch.tensor([[1., 1, 1], [2, 3, 4], [3, 5, 2], [4, 2, 5], [5, 4, 3]])
Bm = torch.tensor([[-10., -3], [12, 14], [14, 12], [16, 16], [18, 16]])
X = LA.lstsq(A, Bm).solution
print(X)
A = torch.randn(2, 2, dtype=torch.float64)
A = A @ A.T.conj() + torch.eye(2)
L = LA.cholesky(A)
print(torch.dist(L @ L.T.conj(), A) < 1e-10, torch.cholesky_solve(torch.ones(2, 1, dtype=torch.float64), L))
A = torch.tensor([[12., -51, 4], [6, 167, -68], [-4, 24, -41]])
Q, R = LA.qr(A)
print(R.abs(), torch.dist(Q @ R, A) < 1e-3)
A = torch.randn(3, 3, dtype=torch.float64)
A = A + A.T
L, Q = LA.eigh(A)
print(L, torch.dist(Q @ torch.diag(L) @ Q.T, A) < 1e-10, LA.eigvalsh(A))
A = torch.randn(5, 3, dtype=torch.float64)
U, S, Vh = LA.svd(A, full_matrices=False)
print(U.shape, S, Vh.shape, torch.dist(A, U @ torch.diag(S) @ Vh) < 1e-10, LA.svdvals(A))
print(torch.dist(LA.pinv(A) @ A, torch.eye(3, dtype=torch.float64)) < 1e-10, LA.matrix_rank(A),
      LA.matrix_rank(torch.ones(4, 4)))
print(LA.matrix_power(torch.tensor([[0, 1], [-1, 0]]), 3), LA.matrix_power(torch.eye(2) * 2, -1))
a = torch.tensor([[1., 0, 0], [0, 1, 0]])
b = torch.tensor([[0., 1, 0], [0, 0, 1]])
print(LA.cross(a, b), LA.multi_dot([torch.ones(1, 2), torch.ones(2, 3), torch.ones(3, 1)]),
      LA.vecdot(a, b + 1), LA.diagonal(torch.arange(9.).view(3, 3)))
tensor1 = torch.randn(3)
tensor2 = torch.randn(3)
print(torch.matmul(tensor1, tensor2).size())
tensor1 = torch.randn(3, 4)
tensor2 = torch.randn(4)
print(torch.matmul(tensor1, tensor2).size())
tensor1 = torch.randn(10, 3, 4)
tensor2 = torch.randn(4)
print(torch.matmul(tensor1, tensor2).size())
tensor1 = torch.randn(10, 3, 4)
tensor2 = torch.randn(10, 4, 5)
print(torch.matmul(tensor1, tensor2).size())
tensor1 = torch.randn(10, 3, 4)
tensor2 = torch.randn(4, 5)
print(torch.matmul(tensor1, tensor2).size(), torch.baddbmm(torch.zeros(10, 3, 5), tensor1, tensor2.expand(10, 4, 5)).shape,
      torch.addmm(torch.zeros(3), tensor1[0], torch.ones(4, 3)), torch.addmv(torch.zeros(3), tensor1[0], torch.ones(4)),
      torch.outer(torch.arange(1., 3.), torch.arange(1., 4.)), torch.chain_matmul(torch.eye(2), torch.ones(2, 2)))
