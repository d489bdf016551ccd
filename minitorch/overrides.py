"""``__torch_function__``: a function of minitorch handing its call to an object that stands in for a tensor.

An object that is not a tensor, but whose class defines the class method

    __torch_function__(cls, func, types, args=(), kwargs=None)

may be passed where a tensor is wanted: instead of raising ``must be Tensor``, the function calls
``__torch_function__`` with itself (the public function, ``minitorch.neg``) and the arguments, and
returns what that returns. This is PyTorch's protocol (``torch/overrides.py``); ``torch.fx``'s
``Proxy`` uses it to record ``torch.neg(proxy)`` as a node of a graph, even outside a trace.

Where minitorch looks: only where it would otherwise refuse the argument (the ``input`` check of
``_arguments.public``, or the ``TypeError`` of a function taking a list of tensors), so the call
with real tensors pays nothing for the protocol.

How the arguments are passed on: as the caller wrote them, except for the functions of
``nn.functional`` that PyTorch writes in Python. Those hand over their arguments themselves
(``handle_torch_function(relu, (input,), input, inplace=inplace)``): the parameters without a
default positionally, every other one by keyword with its value, defaults included, so that
``F.relu(x)`` is recorded as ``relu(x, inplace=False)``. ``keyword_style`` says which functions do.
"""

from __future__ import annotations

import inspect
from typing import Any

from ._tensor_base import TensorBase as Tensor  # isinstance only


def has_torch_function(value: Any) -> bool:
    """Whether ``value`` is not a tensor but its class defines ``__torch_function__``."""
    return not isinstance(value, Tensor) and hasattr(type(value), "__torch_function__")


def overloaded_arguments(args: tuple, kwargs: dict) -> list:
    """The arguments (inside lists and tuples too) whose class defines ``__torch_function__``, in order."""
    found: list = []

    def visit(value):
        if isinstance(value, (list, tuple)):
            for item in value:
                visit(item)
        elif has_torch_function(value) and not any(item is value for item in found):
            found.append(value)

    visit(tuple(args))
    visit(tuple(kwargs.values()))
    return found


# The functions of torch.nn.functional that PyTorch binds from C++: they pass their arguments on as written.
# (tests/fx/test_proxy.py checks this list against PyTorch.)
_BOUND_FROM_CPP = frozenset({
    "adaptive_avg_pool1d", "avg_pool1d", "avg_pool2d", "avg_pool3d", "bilinear", "celu_", "channel_shuffle",
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "cosine_similarity",
    "elu_", "gelu", "hardshrink", "hardtanh_", "leaky_relu_", "linear", "logsigmoid", "native_channel_shuffle",
    "one_hot", "pairwise_distance", "pixel_shuffle", "pixel_unshuffle", "prelu", "relu_", "rrelu_",
    "scaled_dot_product_attention", "selu_", "softplus", "softshrink", "threshold_",
})


def keyword_style(function) -> bool:
    """Whether ``function`` passes its optional arguments on by keyword (a Python function of ``nn.functional``)."""
    module = getattr(function, "__module__", None) or ""
    return module.startswith("minitorch.nn.functional") and function.__name__ not in _BOUND_FROM_CPP


def _keywords(function, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    bound = inspect.signature(function).bind(*args, **kwargs)
    bound.apply_defaults()
    positional, keywords = [], {}
    for parameter in inspect.signature(function).parameters.values():
        value = bound.arguments[parameter.name]
        if parameter.default is inspect.Parameter.empty and parameter.kind is parameter.POSITIONAL_OR_KEYWORD:
            positional.append(value)
        else:
            keywords[parameter.name] = value
    return tuple(positional), keywords


def handle_torch_function(function, args: tuple, kwargs: dict) -> Any:
    """Call ``__torch_function__`` of the overloaded arguments in turn, until one does not return NotImplemented."""
    overloaded = overloaded_arguments(args, kwargs)
    types = tuple(dict.fromkeys(type(value) for value in overloaded))
    if keyword_style(function):
        args, kwargs = _keywords(function, args, kwargs)
    for value in overloaded:
        result = type(value).__torch_function__(function, types, args, kwargs)
        if result is not NotImplemented:
            return result
    name = getattr(function, "__qualname__", repr(function))
    raise TypeError(f"no implementation found for '{name}' on types that "
                    f"implement __torch_function__: {list(types)}")
