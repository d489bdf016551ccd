"""``SyncBatchNorm``: batch norm whose statistics cover the whole global batch, across the ranks of a job.

With ``DistributedDataParallel`` each rank sees only its share of the batch; plain ``BatchNorm`` would
normalise with that share's statistics, so a small per-rank batch gives noisy statistics and the ranks
normalise differently. ``SyncBatchNorm`` combines them: every rank contributes its count ``n_i``, mean
``m_i`` and sum of squared deviations ``M2_i`` per channel (one ``all_gather``), and all ranks compute

    n = sum n_i,   mean = sum n_i m_i / n,   var = (sum M2_i + n_i (m_i - mean)^2) / n

(Chan's formula: no catastrophic cancellation, unlike ``E[x^2] - E[x]^2``). Backward needs two sums over
the global batch per channel, ``sum dy`` and ``sum dy (x - mean)`` (one ``all_reduce``):

    dx = w / sqrt(var + eps) * (dy - sum dy / n - (x - mean) / (var + eps) * sum dy (x - mean) / n)

The weight's and bias's gradients stay local (``sum dy (x - mean) / sqrt(var + eps)`` and ``sum dy``);
``DistributedDataParallel`` averages them as it does every parameter's.

A departure from PyTorch: PyTorch's ``SyncBatchNorm`` synchronises only GPU tensors (its CPU backend, gloo,
has no kernels for it) and raises for CPU tensors. minitorch's CPU backend is MPI, so it synchronises CPU
tensors too. Outside training, or without an initialised process group of more than one rank, it is
``BatchNorm``.
"""

from __future__ import annotations

from ... import _creation, distributed as dist
from ..._tensor import Tensor
from ...autograd.function import Function
from ...ops.shape import cat
from .batchnorm import _BatchNorm

__all__ = ["SyncBatchNorm"]


class _SyncBatchNormFunction(Function):
    """Forward and backward of batch norm over the ranks' inputs together (the math is the module's docstring)."""

    @staticmethod
    def forward(ctx, input, weight, bias, running_mean, running_var, eps, momentum, process_group, world_size):
        channels = input.shape[1]
        dims = [0] + list(range(2, input.dim()))
        per_channel = (1, channels) + (1,) * (input.dim() - 2)
        count = input.numel() // channels
        if count > 0:
            local_mean = input.mean(dims)
            local_m2 = ((input - local_mean.view(per_channel)) ** 2).sum(dims)
        else:  # a rank with an empty share contributes nothing
            local_mean = _creation.zeros(channels, dtype=input.dtype, device=input.device)
            local_m2 = _creation.zeros(channels, dtype=input.dtype, device=input.device)
        stats = cat([_creation.full((1,), float(count), dtype=input.dtype, device=input.device),
                               local_mean, local_m2])
        gathered = _creation.zeros(world_size, 2 * channels + 1, dtype=input.dtype, device=input.device)
        dist.all_gather_into_tensor(gathered, stats, group=process_group)
        counts, means, m2s = gathered[:, :1], gathered[:, 1:channels + 1], gathered[:, channels + 1:]
        total = float(counts.sum())
        if total <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {int(total)}")
        mean = (counts * means).sum(0) / total
        var = (m2s + counts * (means - mean) ** 2).sum(0) / total
        invstd = (var + eps).rsqrt()
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_(mean * momentum)
        if running_var is not None:
            running_var.mul_(1 - momentum).add_(var * (total / (total - 1)) * momentum)  # unbiased, as PyTorch
        output = (input - mean.view(per_channel)) * invstd.view(per_channel)
        if weight is not None:
            output = output * weight.view(per_channel)
        if bias is not None:
            output = output + bias.view(per_channel)
        ctx.save_for_backward(input, weight)
        ctx.mean, ctx.invstd, ctx.total = mean, invstd, total
        ctx.process_group, ctx.has_bias = process_group, bias is not None
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight = ctx.saved_tensors
        channels = input.shape[1]
        dims = [0] + list(range(2, input.dim()))
        per_channel = (1, channels) + (1,) * (input.dim() - 2)
        centred = input - ctx.mean.view(per_channel)
        sum_dy = grad_output.sum(dims)
        sum_dy_centred = (grad_output * centred).sum(dims)
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            both = cat([sum_dy, sum_dy_centred])  # the global sums, in one all_reduce
            dist.all_reduce(both, group=ctx.process_group)
            mean_dy, mean_dy_centred = both[:channels] / ctx.total, both[channels:] / ctx.total
            invstd = ctx.invstd.view(per_channel)
            grad_input = (grad_output - mean_dy.view(per_channel)
                          - centred * invstd ** 2 * mean_dy_centred.view(per_channel)) * invstd
            if weight is not None:
                grad_input = grad_input * weight.view(per_channel)
        if weight is not None and ctx.needs_input_grad[1]:
            grad_weight = sum_dy_centred * ctx.invstd
        if ctx.has_bias and ctx.needs_input_grad[2]:
            grad_bias = sum_dy
        return grad_input, grad_weight, grad_bias, None, None, None, None, None, None


class SyncBatchNorm(_BatchNorm):
    """Batch norm with statistics over every rank's input (``process_group``: the ranks; default: all)."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, process_group=None, device=None, dtype=None, *,
                 bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device=device, dtype=dtype,
                         bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        if input.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        world_size = 1
        if self.training and dist.is_available() and dist.is_initialized():
            world_size = dist.get_world_size(self.process_group)
        if world_size <= 1:  # nothing to synchronise with: plain batch norm
            return super().forward(input)
        average_factor = 0.0 if self.momentum is None else self.momentum
        if self.track_running_stats:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                average_factor = 1.0 / float(self.num_batches_tracked)
        running_mean = self.running_mean if self.track_running_stats else None
        running_var = self.running_var if self.track_running_stats else None
        return _SyncBatchNormFunction.apply(input, self.weight, self.bias, running_mean, running_var, self.eps,
                                            average_factor, self.process_group, world_size)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """``module`` with every ``BatchNorm*d`` inside it replaced by a ``SyncBatchNorm`` sharing its parameters
        and buffers (the module itself when it is one)."""
        converted = module
        if isinstance(module, _BatchNorm):
            converted = cls(module.num_features, module.eps, module.momentum, module.affine,
                            module.track_running_stats, process_group)
            if module.affine:
                converted.weight = module.weight
                converted.bias = module.bias  # None when the BatchNorm had bias=False
            converted.running_mean = module.running_mean
            converted.running_var = module.running_var
            converted.num_batches_tracked = module.num_batches_tracked
            converted.training = module.training
            if hasattr(module, "qconfig"):
                converted.qconfig = module.qconfig
        for name, child in module.named_children():
            converted.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return converted
