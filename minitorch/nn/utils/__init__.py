"""``minitorch.nn.utils``: gradient clipping, parameter/vector conversion, ``rnn`` (padding and packing),
``parametrize`` (a tensor computed from others on every access) and ``skip_init``."""

from . import parametrize, rnn
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .init import skip_init

__all__ = [
    "clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm",
    "parameters_to_vector", "vector_to_parameters", "parametrize", "rnn", "skip_init",
]
