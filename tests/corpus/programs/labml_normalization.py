# Corpus program: labml.ai's annotated normalization layers written from scratch: BatchNorm with running statistics as
#   buffers, LayerNorm over normalized_shape with elementwise affine, InstanceNorm, GroupNorm, and RMSNorm-style
#   DeepNorm's residual scaling, each checked against torch.nn's layer.
# Source: labmlai/annotated_deep_learning_paper_implementations, labml_nn/normalization/batch_norm/__init__.py,
#   layer_norm/__init__.py, instance_norm/__init__.py, group_norm/__init__.py and deep_norm/__init__.py (the _test
#   functions).
# Licence: MIT (annotated_deep_learning_paper_implementations); re-written here following the files.
# Changes: labml's Module becomes nn.Module; inspect() becomes print; small shapes.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers).
# corpus-tolerance: rtol=1e-4 -- float32 arithmetic.

import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)


class BatchNorm(nn.Module):
    def __init__(self, channels: int, *, eps: float = 1e-5, momentum: float = 0.1, affine: bool = True,
                 track_running_stats: bool = True):
        super().__init__()
        self.channels = channels
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.scale = nn.Parameter(torch.ones(channels))
            self.shift = nn.Parameter(torch.zeros(channels))
        if self.track_running_stats:
            self.register_buffer('exp_mean', torch.zeros(channels))
            self.register_buffer('exp_var', torch.ones(channels))

    def forward(self, x: torch.Tensor):
        x_shape = x.shape
        batch_size = x_shape[0]
        assert self.channels == x.shape[1]
        x = x.view(batch_size, self.channels, -1)
        if self.training or not self.track_running_stats:
            mean = x.mean(dim=[0, 2])
            mean_x2 = (x ** 2).mean(dim=[0, 2])
            var = mean_x2 - mean ** 2
            if self.training and self.track_running_stats:
                self.exp_mean = (1 - self.momentum) * self.exp_mean + self.momentum * mean
                self.exp_var = (1 - self.momentum) * self.exp_var + self.momentum * var
        else:
            mean = self.exp_mean
            var = self.exp_var
        x_norm = (x - mean.view(1, -1, 1)) / torch.sqrt(var + self.eps).view(1, -1, 1)
        if self.affine:
            x_norm = self.scale.view(1, -1, 1) * x_norm + self.shift.view(1, -1, 1)
        return x_norm.view(x_shape)


class LayerNorm(nn.Module):
    def __init__(self, normalized_shape: int | list[int] | torch.Size, *,
                 eps: float = 1e-5,
                 elementwise_affine: bool = True):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = torch.Size([normalized_shape])
        elif isinstance(normalized_shape, list):
            normalized_shape = torch.Size(normalized_shape)
        assert isinstance(normalized_shape, torch.Size)
        self.normalized_shape = normalized_shape
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if self.elementwise_affine:
            self.gain = nn.Parameter(torch.ones(normalized_shape))
            self.bias = nn.Parameter(torch.zeros(normalized_shape))

    def forward(self, x: torch.Tensor):
        assert self.normalized_shape == x.shape[-len(self.normalized_shape):]
        dims = [-(i + 1) for i in range(len(self.normalized_shape))]
        mean = x.mean(dim=dims, keepdim=True)
        mean_x2 = (x ** 2).mean(dim=dims, keepdim=True)
        var = mean_x2 - mean ** 2
        x_norm = (x - mean) / torch.sqrt(var + self.eps)
        if self.elementwise_affine:
            x_norm = self.gain * x_norm + self.bias
        return x_norm


class InstanceNorm(nn.Module):
    def __init__(self, channels: int, *, eps: float = 1e-5, affine: bool = True):
        super().__init__()
        self.channels = channels
        self.eps = eps
        self.affine = affine
        if self.affine:
            self.scale = nn.Parameter(torch.ones(channels))
            self.shift = nn.Parameter(torch.zeros(channels))

    def forward(self, x: torch.Tensor):
        x_shape = x.shape
        batch_size = x_shape[0]
        assert self.channels == x.shape[1]
        x = x.view(batch_size, self.channels, -1)
        mean = x.mean(dim=[-1], keepdim=True)
        mean_x2 = (x ** 2).mean(dim=[-1], keepdim=True)
        var = mean_x2 - mean ** 2
        x_norm = (x - mean) / torch.sqrt(var + self.eps)
        x_norm = x_norm.view(batch_size, self.channels, -1)
        if self.affine:
            x_norm = self.scale.view(1, -1, 1) * x_norm + self.shift.view(1, -1, 1)
        return x_norm.view(x_shape)


class GroupNorm(nn.Module):
    def __init__(self, groups: int, channels: int, *, eps: float = 1e-5, affine: bool = True):
        super().__init__()
        assert channels % groups == 0, "Number of channels should be evenly divisible by the number of groups"
        self.groups = groups
        self.channels = channels
        self.eps = eps
        self.affine = affine
        if self.affine:
            self.scale = nn.Parameter(torch.ones(channels))
            self.shift = nn.Parameter(torch.zeros(channels))

    def forward(self, x: torch.Tensor):
        x_shape = x.shape
        batch_size = x_shape[0]
        assert self.channels == x.shape[1]
        x = x.view(batch_size, self.groups, -1)
        mean = x.mean(dim=[-1], keepdim=True)
        mean_x2 = (x ** 2).mean(dim=[-1], keepdim=True)
        var = mean_x2 - mean ** 2
        x_norm = (x - mean) / torch.sqrt(var + self.eps)
        if self.affine:
            x_norm = x_norm.view(batch_size, self.channels, -1)
            x_norm = self.scale.view(1, -1, 1) * x_norm + self.shift.view(1, -1, 1)
        return x_norm.view(x_shape)


class DeepNorm(nn.Module):
    def __init__(self, alpha: float, normalized_shape: int | list[int] | torch.Size, *,
                 eps: float = 1e-5,
                 elementwise_affine: bool = True):
        super().__init__()
        self.alpha = alpha
        self.layer_norm = LayerNorm(normalized_shape, eps=eps, elementwise_affine=elementwise_affine)

    def forward(self, x: torch.Tensor, gx: torch.Tensor):
        return self.layer_norm(x + self.alpha * gx)


x = torch.randn(4, 3, 2, 5)
bn = BatchNorm(3)
ours = bn(x)
ref = nn.BatchNorm2d(3)(x)
print(x.shape, torch.allclose(ours, ref, atol=1e-5), bn.exp_var, list(dict(bn.named_buffers())))
bn.eval()
print(bn(x)[0, 0, 0])
ln = LayerNorm(x.shape[2:])
print(torch.allclose(ln(x), F.layer_norm(x, x.shape[2:]), atol=1e-5), ln.gain.shape)
inn = InstanceNorm(3)
print(torch.allclose(inn(x), F.instance_norm(x), atol=1e-5))
gn = GroupNorm(1, 3)
print(torch.allclose(gn(x), F.group_norm(x, 1), atol=1e-5), torch.allclose(GroupNorm(3, 3)(x), F.group_norm(x, 3), atol=1e-5))
dn = DeepNorm(0.5, 5)
print(dn(x, torch.ones_like(x))[0, 0])
loss = ln(x).pow(3).sum() + gn(x).sum()
loss.backward()
print(ln.gain.grad, gn.scale.grad)
