# Corpus program: the Examples of torch's creation functions in PyTorch's reference (zeros, ones, full, arange with
#   floats, linspace, logspace, eye, empty_strided, zeros_like, full_like, rand_like, randint_like, randn with a
#   generator, tensor from nested data and NumPy, as_tensor sharing memory, frombuffer, asarray, tril/triu, vander,
#   tensor.new_* methods, torch.Tensor(size), torch.FloatTensor, LongTensor.zero_).
# Source: pytorch/pytorch, torch/_torch_docs.py and torch/_tensor_docs.py (the Example:: section of each docstring).
# Licence: BSD-3-Clause (PyTorch); the docstrings' examples, put together in one script.
# Changes: each example runs once.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers).
import array

import numpy as np
import torch

torch.manual_seed(0)
print(torch.zeros(2, 3), torch.zeros(5), torch.ones(2, 3), torch.full((2, 3), 3.141592))
print(torch.arange(5), torch.arange(1, 4), torch.arange(1, 2.5, 0.5), torch.arange(0, 1, 0.1).shape)
print(torch.linspace(3, 10, steps=5), torch.linspace(-10, 10, steps=5), torch.linspace(start=-10, end=10, steps=1))
print(torch.logspace(start=-10, end=10, steps=5), torch.logspace(start=0.1, end=1.0, steps=5),
      torch.logspace(start=2, end=2, steps=1, base=2))
print(torch.eye(3), torch.eye(2, 3))
a = torch.empty_strided((2, 3), (1, 2))
print(a.stride(), a.size())
input = torch.empty(2, 3)
print(torch.zeros_like(input), torch.ones_like(input), torch.full_like(input, 7), torch.empty_like(input).shape)
print(torch.rand_like(input), torch.randn_like(input), torch.randint_like(input, 3, 10))
g = torch.Generator().manual_seed(2147483647)
print(torch.randn(2, 3, generator=g), torch.rand(2, generator=g), torch.randint(3, 10, (2, 2), generator=g))
print(torch.tensor([[0.1, 1.2], [2.2, 3.1], [4.9, 5.2]]), torch.tensor([0, 1]), torch.tensor([[0.11111, 0.222222, 0.3333333]],
      dtype=torch.float64, device=torch.device('cpu')), torch.tensor(3.14159), torch.tensor([]))
a = np.array([1, 2, 3])
t = torch.as_tensor(a)
t[0] = -1
print(a)
a = np.array([1, 2, 3])
t = torch.as_tensor(a, dtype=torch.float32)
t[0] = -1
print(a)
a = array.array('i', [1, 2, 3])
t = torch.frombuffer(a, dtype=torch.int32)
print(t)
t[0] = -1
print(a)
a = array.array('b', [-1, 0, 0, 0])
print(torch.frombuffer(a, dtype=torch.int32))
a = torch.tensor([1, 2, 3])
b = torch.asarray(a)
print(a.data_ptr() == b.data_ptr(), torch.asarray(a, copy=True).data_ptr() == a.data_ptr(),
      torch.asarray([1, 2, 3], dtype=torch.float64), torch.asarray(np.array([1.5, 2.5])))
a = torch.randn(3, 3)
print(torch.tril(a), torch.triu(a, diagonal=1), torch.tril(torch.randn(4, 6), diagonal=-1))
x = torch.tensor([1, 2, 3, 5])
print(torch.vander(x), torch.vander(x, N=3), torch.vander(x, N=3, increasing=True))
tensor = torch.ones((2,), dtype=torch.int8)
data = [[0, 1], [2, 3]]
print(tensor.new_tensor(data), tensor.new_full((3, 4), 3.141592), tensor.new_empty((2, 3)).shape,
      tensor.new_ones((2, 3)), torch.tensor((), dtype=torch.int32).new_zeros((2, 3)))
print(torch.Tensor(2, 3).shape, torch.Tensor([1, 2]), torch.FloatTensor([[1, 2], [3, 4]]), torch.LongTensor(2).zero_(),
      torch.DoubleTensor([1]).dtype, torch.BoolTensor([True, False]), torch.IntTensor([1, 2]).dtype)
