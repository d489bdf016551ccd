# Corpus program: the Examples of torch.nn.functional's docstrings and of the losses (F.pad modes, F.interpolate with
#   antialias, F.one_hot, F.normalize, F.embedding with max_norm, F.grid_sample with F.affine_grid, F.gumbel_softmax
#   under a seed, F.cosine_embedding_loss, F.margin_ranking_loss, F.triplet_margin_loss, F.multilabel_soft_margin_loss,
#   F.huber_loss, F.smooth_l1_loss with beta, F.poisson_nll_loss, F.gaussian_nll_loss, F.kl_div with log_target,
#   nn.CTCLoss, nn.MultiMarginLoss, BCEWithLogitsLoss with pos_weight, CrossEntropyLoss with probabilities and
#   label_smoothing, NLLLoss on images).
# Source: pytorch/pytorch, torch/nn/functional.py and torch/nn/modules/loss.py (the Examples:: section of each
#   docstring).
# Licence: BSD-3-Clause (PyTorch); the docstrings' examples, put together in one script.
# Changes: sizes shrunk; values printed.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers).
# corpus-tolerance: rtol=1e-4 -- float32 arithmetic.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
t4d = torch.empty(3, 3, 4, 2)
p1d = (1, 1)  # pad last dim by 1 on each side
print(F.pad(t4d, p1d, "constant", 0).size())
p2d = (1, 1, 2, 2)
print(F.pad(t4d, p2d, "constant", 0).size())
p3d = (0, 1, 2, 1, 3, 3)
print(F.pad(t4d, p3d, "constant", 0).size())
x = torch.arange(6.).view(1, 2, 3)
print(F.pad(x, (2, 1), mode='reflect'), F.pad(x, (2, 1), mode='replicate'), F.pad(x, (2, 1), mode='circular'))
img = torch.arange(16.).view(1, 1, 4, 4)
print(F.interpolate(img, size=(2, 2), mode='bilinear', antialias=True), F.interpolate(img, scale_factor=0.5, mode='area'))
print(F.interpolate(torch.arange(4.).view(1, 1, 4), size=6, mode='linear', align_corners=False),
      F.interpolate(img, size=(3, 3), mode='bicubic', align_corners=True)[0, 0, 0])
print(F.one_hot(torch.arange(0, 5) % 3), F.one_hot(torch.arange(0, 5) % 3, num_classes=5)[:2],
      F.one_hot(torch.arange(0, 6).view(3, 2) % 3).shape)
print(F.normalize(torch.tensor([[3., 4.], [0., 0.]])), F.normalize(torch.tensor([[3., 4.]]), p=1, dim=1))
weight = torch.randn(5, 3)
print(F.embedding(torch.tensor([[0, 2], [4, 4]]), weight, max_norm=1.0).norm(dim=-1), weight.norm(dim=1))
theta = torch.tensor([[[0.8, -0.2, 0.1], [0.3, 0.9, -0.1]]])
grid = F.affine_grid(theta, (1, 1, 3, 3), align_corners=False)
print(grid[0, 0], F.grid_sample(img, grid, align_corners=False))
print(F.grid_sample(img, grid, mode='nearest', padding_mode='border', align_corners=True))
logits = torch.randn(2, 4)
print(F.gumbel_softmax(logits, tau=1, hard=True), F.gumbel_softmax(logits, tau=0.5))
a, b = torch.randn(3, 5), torch.randn(3, 5)
target = torch.tensor([1, -1, 1])
print(F.cosine_embedding_loss(a, b, target), F.margin_ranking_loss(a[:, 0], b[:, 0], target, margin=0.1),
      F.triplet_margin_loss(a, b, torch.randn(3, 5), margin=1.0, p=2, swap=True),
      F.multilabel_soft_margin_loss(a, (b > 0).float()), F.hinge_embedding_loss(a, torch.ones(3, 5)))
input = torch.randn(3, 5, requires_grad=True)
target = torch.randn(3, 5)
print(F.huber_loss(input, target, delta=0.5), F.smooth_l1_loss(input, target, beta=0.5),
      F.poisson_nll_loss(input, target.abs()), F.poisson_nll_loss(input.exp(), target.abs(), log_input=False, full=True))
var = torch.ones(3, 5, requires_grad=True)
print(F.gaussian_nll_loss(input, target, var), nn.GaussianNLLLoss()(input, target, torch.ones(3, 1)))
kl_loss = nn.KLDivLoss(reduction="batchmean")
input = F.log_softmax(torch.randn(3, 5, requires_grad=True), dim=1)
target = F.softmax(torch.rand(3, 5), dim=1)
print(kl_loss(input, target))
kl_loss = nn.KLDivLoss(reduction="batchmean", log_target=True)
log_target = F.log_softmax(torch.rand(3, 5), dim=1)
print(kl_loss(input, log_target))
T, C, N, S = 10, 5, 2, 4
input = torch.randn(T, N, C).log_softmax(2).detach().requires_grad_()
target = torch.randint(low=1, high=C, size=(N, S), dtype=torch.long)
input_lengths = torch.full(size=(N,), fill_value=T, dtype=torch.long)
target_lengths = torch.randint(low=1, high=S, size=(N,), dtype=torch.long)
ctc_loss = nn.CTCLoss()
loss = ctc_loss(input, target, input_lengths, target_lengths)
loss.backward()
print(loss, input.grad.abs().sum())
print(nn.MultiMarginLoss()(torch.tensor([[0.1, 0.2, 0.4, 0.8]]), torch.tensor([3])),
      nn.MultiLabelMarginLoss()(torch.FloatTensor([[0.1, 0.2, 0.4, 0.8]]), torch.LongTensor([[3, 0, -1, 1]])))
target = torch.ones([4, 6], dtype=torch.float32)  # 6 classes, batch size = 4
output = torch.full([4, 6], 1.5)  # A prediction (logit)
pos_weight = torch.ones([6])  # All weights are equal to 1
criterion = torch.nn.BCEWithLogitsLoss(pos_weight=pos_weight)
print(criterion(output, target))
loss = nn.CrossEntropyLoss(label_smoothing=0.1)
input = torch.randn(3, 5, requires_grad=True)
target = torch.randn(3, 5).softmax(dim=1)
print(loss(input, target), nn.CrossEntropyLoss(weight=torch.arange(1., 6.), ignore_index=2)(input, torch.tensor([1, 2, 4])))
N, C = 2, 4
data = torch.randn(N, 16, 10, 10)
conv = nn.Conv2d(16, C, (3, 3))
m = nn.LogSoftmax(dim=1)
target = torch.empty(N, 8, 8, dtype=torch.long).random_(0, C)
output = nn.NLLLoss()(m(conv(data)), target)
output.backward()
print(output, target[0, 0])
