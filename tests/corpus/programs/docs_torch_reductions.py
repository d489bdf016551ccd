# Corpus program: the Examples of torch's reduction, scan and sorting functions in PyTorch's reference
#   (torch.logsumexp, cumsum, cummax, cumprod, diff, nanmean, nansum, quantile, median, mode, kthvalue, topk,
#   sort(stable=True), argsort, unique, unique_consecutive, histc, bucketize, searchsorted, count_nonzero, aminmax,
#   std_mean, var with correction).
# Source: pytorch/pytorch, torch/_torch_docs.py (the Example:: section of each function's docstring).
# Licence: BSD-3-Clause (PyTorch); the docstrings' examples, put together in one script.
# Changes: each example runs once; printed as the docstrings show them.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers).
import torch

torch.manual_seed(0)
a = torch.randn(3, 3)
print(torch.logsumexp(a, 1))
print(torch.cumsum(torch.randn(10), dim=0))
a = torch.randn(10)
print(torch.cummax(a, dim=0))
print(torch.cummin(a, dim=0))
print(torch.cumprod(torch.tensor([0.6, 1.2, -0.5, 2.0]), dim=0))
print(torch.logcumsumexp(torch.randn(5), dim=0))
a = torch.tensor([1, 3, 2])
print(torch.diff(a))
b = torch.tensor([4, 5])
print(torch.diff(a, append=b))
c = torch.tensor([[1, 2, 3], [3, 4, 5]])
print(torch.diff(c, dim=0), torch.diff(c, dim=1))
x = torch.tensor([[torch.nan, 1, 2], [1, 2, 3]])
print(x.mean(), x.nanmean(), x.nanmean(dim=0), torch.tensor([torch.nan]).nanmean())
print(torch.nansum(torch.tensor([1., 2., float('nan'), 4.])))
a = torch.tensor([0.0700, -0.5446,  0.9214])
q = torch.tensor([0, 0.5, 1])
print(torch.quantile(a, q))
a = torch.randn(2, 3)
print(torch.quantile(a, q, dim=1, keepdim=True).shape)
a = torch.arange(4.)
print(torch.quantile(a, 0.6, interpolation='linear'), torch.quantile(a, 0.6, interpolation='lower'),
      torch.quantile(a, 0.6, interpolation='higher'), torch.quantile(a, 0.6, interpolation='midpoint'),
      torch.quantile(a, 0.6, interpolation='nearest'))
print(torch.nanquantile(torch.tensor([float('nan'), 1, 2]), 0.5))
a = torch.randn(4, 5)
print(torch.median(a), torch.median(a, 1))
print(torch.nanmedian(torch.tensor([[2, 3, 1], [float('nan'), 1, float('nan')]]), 0))
b = torch.tensor([[0, 0, 0, 2, 0, 0, 2], [0, 3, 0, 0, 2, 0, 1], [2, 2, 2, 0, 0, 0, 3], [2, 2, 3, 0, 1, 1, 0],
                  [1, 1, 0, 0, 2, 0, 2]])
print(torch.mode(b, 0))
x = torch.arange(1., 6.)
print(torch.kthvalue(x, 4))
x = torch.arange(1., 7.).resize_(2, 3)
print(torch.kthvalue(x, 2, 0, True))
x = torch.arange(1., 6.)
print(torch.topk(x, 3), torch.topk(x, 3, largest=False, sorted=True))
x = torch.randn(3, 4)
sorted, indices = torch.sort(x)
print(sorted, indices)
x = torch.tensor([0, 1] * 9)
print(x.sort(stable=True))
print(torch.argsort(torch.randn(4, 4), dim=1), torch.argsort(x, stable=True, descending=True))
output = torch.unique(torch.tensor([1, 3, 2, 3], dtype=torch.long))
print(output)
output, inverse_indices = torch.unique(torch.tensor([1, 3, 2, 3], dtype=torch.long), sorted=True,
                                       return_inverse=True)
print(output, inverse_indices)
output, counts = torch.unique(torch.tensor([[1, 3], [2, 3]]), return_counts=True)
print(output, counts)
a = torch.tensor([[0, 0, 1], [0, 0, 1], [1, 0, 0]])
print(torch.unique(a, dim=0, return_counts=True))
x = torch.tensor([1, 1, 2, 2, 3, 1, 1, 2])
print(torch.unique_consecutive(x), torch.unique_consecutive(x, return_inverse=True),
      torch.unique_consecutive(x, return_counts=True))
print(torch.histc(torch.tensor([1., 2, 1]), bins=4, min=0, max=3))
print(torch.histogram(torch.tensor([1., 2, 1]), bins=4, range=(0., 3.), weight=torch.tensor([1., 2., 4.])))
boundaries = torch.tensor([1, 3, 5, 7, 9])
v = torch.tensor([[3, 6, 9], [3, 6, 9]])
print(torch.bucketize(v, boundaries), torch.bucketize(v, boundaries, right=True))
sorted_sequence = torch.tensor([[1, 3, 5, 7, 9], [2, 4, 6, 8, 10]])
values = torch.tensor([[3, 6, 9], [3, 6, 9]])
print(torch.searchsorted(sorted_sequence, values), torch.searchsorted(sorted_sequence, values, side='right'))
sorted_sequence_1d = torch.tensor([1, 3, 5, 7, 9])
print(torch.searchsorted(sorted_sequence_1d, values))
x = torch.zeros(3, 3)
x[torch.randn(3, 3) > 0.5] = 1
print(x, torch.count_nonzero(x), torch.count_nonzero(x, dim=0))
print(torch.aminmax(torch.tensor([1, -3, 5])), torch.aminmax(torch.arange(10).view(2, 5), dim=-1, keepdim=True))
a = torch.tensor([[-0.8166, -1.3802, -0.3560]])
print(torch.std_mean(a, dim=0, keepdim=True), torch.var_mean(a, dim=1, correction=0))
a = torch.tensor([[0.2035, 1.2959, 1.8101, -0.4644], [1.5027, -0.3270, 0.5905, 0.6538],
                  [-1.5745, 1.3330, -0.5596, -0.6548], [0.1264, -0.5080, 1.6420, 0.1992]])
print(torch.var(a, dim=1, keepdim=True), torch.std(a, dim=1, correction=0))
print(torch.prod(a, 1), torch.amax(a, 1), torch.amin(a, (0, 1)), torch.argmax(a, dim=1, keepdim=True))
print(torch.all(a > -2, dim=0), torch.any(a > 1.8), torch.norm(a), torch.dist(a[0], a[1], p=1))
