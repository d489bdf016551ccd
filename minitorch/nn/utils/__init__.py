"""``minitorch.nn.utils``: gradient clipping, parameter/vector conversion, ``rnn`` (padding and packing),
``parametrize`` (a tensor computed from others on every access), ``parametrizations`` (weight_norm,
spectral_norm, orthogonal), the deprecated hook-based ``weight_norm`` and ``skip_init``."""

from . import parametrizations, parametrize, rnn
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .init import skip_init
from .weight_norm import remove_weight_norm, weight_norm

__all__ = [
    "clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm",
    "parameters_to_vector", "vector_to_parameters", "parametrize", "parametrizations", "rnn", "skip_init",
    "weight_norm", "remove_weight_norm",
]
