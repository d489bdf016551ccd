"""minitorch: a readable implementation of PyTorch's core, on NumPy (and CuPy on a GPU).

Code written against minitorch runs on PyTorch and back: ``import minitorch as torch``.
This file is the public face only; each name comes from the module that implements it.
"""

from __future__ import annotations

from . import _dtype
from ._device import device
from ._dtype import (
    bool, double, float, float16, float32, float64, get_default_dtype, half, int, int8, int16, int32, int64,
    long, promote_types, set_default_dtype, short, uint8,
)
from ._dtype import dtype
from ._random import Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state
from ._tensor import Size, Tensor
from ._creation import (
    arange, as_tensor, asarray, bernoulli, empty, empty_like, eye, from_numpy, full, full_like, linspace, logspace,
    multinomial, normal, ones, ones_like, rand, rand_like, randint, randint_like, randn, randn_like, randperm, tensor,
    zeros, zeros_like,
)
from . import autograd, cuda
from .autograd import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .autograd.grad_mode import is_inference_mode_enabled
from .ops import conversion, indexing, inplace, linalg, pointwise, reduction
from .ops import shape as _shape_ops

__version__ = "0.1.0"


def is_tensor(obj) -> builtins_bool:
    return isinstance(obj, Tensor)


def is_floating_point(input: Tensor) -> builtins_bool:
    return input.is_floating_point()


def numel(input: Tensor) -> builtins_int:
    return input.numel()


def result_type(tensor1, tensor2) -> dtype:
    return _dtype.result_type(tensor1, tensor2)


def can_cast(from_: dtype, to: dtype) -> builtins_bool:
    """Whether an in-place op may write a ``from_`` result into a ``to`` tensor (no float->int, no ->bool)."""
    return from_.category <= to.category


import builtins as _builtins  # noqa: E402

builtins_bool, builtins_int = _builtins.bool, _builtins.int

# --- pointwise exports (ops/pointwise.py) ---
from .ops.pointwise import add, div, mul, neg, sub  # noqa: E402

# --- reduction exports (ops/reduction.py) ---
from .ops.reduction import sum  # noqa: E402, A004

# --- linalg exports (ops/linalg.py) ---

# --- shape exports (ops/shape.py) ---
from .ops.shape import expand, reshape, view  # noqa: E402

# --- indexing exports (ops/indexing.py) ---
