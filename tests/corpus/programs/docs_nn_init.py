# Corpus program: the Examples of torch.nn.init's docstrings: calculate_gain, uniform_, normal_, trunc_normal_,
#   constant_, ones_, zeros_, eye_, dirac_, xavier_uniform_, xavier_normal_, kaiming_uniform_, kaiming_normal_,
#   orthogonal_, sparse_, with the generator argument.
# Source: pytorch/pytorch, torch/nn/init.py (the Examples of each function's docstring).
# Licence: BSD-3-Clause (PyTorch); the docstrings' examples, put together in one script.
# Changes: shapes 3x5 as in the docstrings; values and summary statistics printed.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers).
import torch
from torch import nn

torch.manual_seed(0)
print(nn.init.calculate_gain('leaky_relu', 0.2), nn.init.calculate_gain('tanh'), nn.init.calculate_gain('selu'),
      nn.init.calculate_gain('conv2d'), nn.init.calculate_gain('relu'))
w = torch.empty(3, 5)
print(nn.init.uniform_(w))
print(nn.init.normal_(w))
print(nn.init.trunc_normal_(w))
print(nn.init.trunc_normal_(torch.empty(2, 3), mean=0.5, std=2.0, a=-1.0, b=1.0))
print(nn.init.constant_(w, 0.3))
print(nn.init.ones_(w), nn.init.zeros_(w))
print(nn.init.eye_(w))
w = torch.empty(3, 16, 5, 5)
nn.init.dirac_(w)
print(w[:, :4, 2, 2], w.sum())
w = torch.empty(4, 16, 3, 3)
nn.init.dirac_(w, 2)
print(w[:, :2, 1, 1])
w = torch.empty(3, 5)
print(nn.init.xavier_uniform_(w, gain=nn.init.calculate_gain('relu')))
print(nn.init.xavier_normal_(w))
print(nn.init.kaiming_uniform_(w, mode='fan_in', nonlinearity='relu'))
print(nn.init.kaiming_normal_(w, mode='fan_out', nonlinearity='relu'))
print(nn.init.kaiming_uniform_(torch.empty(2, 3, 3, 3), a=5 ** 0.5)[0, 0])
w = torch.empty(3, 5)
nn.init.orthogonal_(w)
print(w, (w @ w.T).diagonal())
w = torch.empty(3, 5)
nn.init.sparse_(w, sparsity=0.1)
print(w, (w == 0).sum(0))
g = torch.Generator().manual_seed(7)
print(nn.init.uniform_(torch.empty(4), -1, 1, generator=g), nn.init.normal_(torch.empty(4), generator=g))
conv = nn.Conv2d(2, 3, 3)
print(conv.weight[0, 0], conv.bias)
lin = nn.Linear(4, 2)
print(lin.weight, lin.bias)
emb = nn.Embedding(4, 3, padding_idx=1)
print(emb.weight)
rnn = nn.GRU(2, 3)
print(rnn.weight_hh_l0[:2], rnn.bias_ih_l0)
bn = nn.BatchNorm2d(3)
print(bn.weight, bn.bias, bn.running_var)
