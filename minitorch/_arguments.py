"""Two things every public function does the way PyTorch does, implemented once here.

* **A tensor where a tensor is wanted.** ``minitorch.relu([1.0, 2.0])`` raises PyTorch's
  ``TypeError: relu(): argument 'input' (position 1) must be Tensor, not list``, before the
  function runs, instead of some ``AttributeError`` from deep inside it.
* **A stand-in for a tensor.** An argument refused above whose class defines ``__torch_function__``
  (``torch.fx``'s ``Proxy``) is handed the call instead (``overrides.py``): ``torch.neg(proxy)``
  records a node. Only the refusing branch looks, so a call with tensors pays nothing for it.
* **``out=``.** ``minitorch.add(a, b, out=c)`` computes ``a + b`` as usual and then writes the
  result into ``c``'s memory, with PyTorch's rules:

  - the result's dtype must be castable to ``c``'s (a float result never goes into an integer
    tensor): ``result type Float can't be cast to the desired output type Long``;
  - ``c`` of the wrong shape is resized to the result's shape, with PyTorch's deprecation
    warning when ``c`` had elements (an empty ``c`` is resized silently);
  - creation functions (``zeros``, ``arange``...) take ``c``'s dtype and device when none is given;
  - a function with ``out=`` records no graph, so PyTorch refuses it while recording when any
    argument (``out`` included) requires grad: ``add(): functions with out=... arguments don't
    support automatic differentiation, but one of the arguments requires grad.``
  - functions returning several tensors (``max(x, dim)``, ``sort``) take a tuple of tensors.

``minitorch/__init__.py`` binds each public name to ``public(function)`` where it is named, and each function of
``nn/functional/`` is decorated with it where it is defined; the ops themselves know nothing of either
rule, and the library's own calls between ops skip the wrapper. ``Tensor`` methods that take ``dim``,
``keepdim`` or ``other`` are decorated with ``numpy_names`` where they are defined (``_tensor.py``; it uses
``aliases_for`` and ``rename_aliases`` below).
"""

from __future__ import annotations

import functools
import inspect
import numbers
import warnings

from . import _dtype, _messages, _random
from ._tensor_base import TensorBase as Tensor  # isinstance only: the Tensor class builds on this module
from .autograd.grad_mode import _GradState
from .overrides import handle_torch_function, has_torch_function, overloaded_arguments


def must_be_tensor(function: str, value, argument: str = "input", position: int = 1) -> TypeError:
    """PyTorch's error for a non-tensor argument where a tensor is wanted."""
    return TypeError(_messages.must_be_tensor(function, value, argument, position))


def _requires_grad(value) -> bool:
    if isinstance(value, Tensor):
        return value._requires_grad
    if isinstance(value, (list, tuple)):
        return any(_requires_grad(item) for item in value)
    return False


def _write(function: str, destination, result: Tensor) -> Tensor:
    """Copy ``result`` into ``destination`` with PyTorch's cast and resize rules."""
    if not isinstance(destination, Tensor):
        raise TypeError(f"{function}(): argument 'out' must be Tensor, not {_messages.type_name(destination)}")
    source_dtype, target_dtype = result.dtype, destination.dtype
    if source_dtype.category > target_dtype.category:
        raise RuntimeError(_messages.cannot_cast(source_dtype, target_dtype))
    if result._device != destination._device:
        raise RuntimeError(
            f"Expected out tensor to have device {destination._device}, but got {result._device} instead"
        )
    values = result._data.astype(destination._data.dtype, copy=False)
    if destination._data.shape != values.shape:
        if destination._data.size:
            warnings.warn(
                f"An output with one or more elements was resized since it had shape {list(destination._data.shape)}, "
                f"which does not match the required output shape {list(values.shape)}. This behavior is deprecated, "
                "and in a future PyTorch release outputs will not be resized unless they have zero elements. You can "
                "explicitly reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0).",
                UserWarning,
                stacklevel=4,
            )
        destination._data = values.copy()  # a resize: new memory, as PyTorch's storage is reallocated
    else:
        if not destination._data.flags.writeable:
            raise RuntimeError(
                "unsupported operation: more than one element of the written-to tensor refers to a single memory "
                "location. Please clone() the tensor before performing the operation."
            )
        destination._data[...] = values
    destination._version_counter[0] += 1
    return destination


def write_out(function: str, result, out):
    """``out`` (a tensor, or a tuple of them for several results) holding ``result``; returns it."""
    if isinstance(out, (tuple, list)):
        results = tuple(result)
        if len(out) != len(results):
            raise RuntimeError(f"{function}(): expected {len(results)} out tensors, but got {len(out)}")
        written = [_write(function, target, value) for target, value in zip(out, results)]
        return type(result)(*written) if hasattr(result, "_fields") else tuple(written)
    return _write(function, out, result)


_MISSING = object()
_TENSOR_OR_NUMBER = (Tensor, numbers.Number)  # what the tensor argument may be (a number reaches the function)
_CREATION = {"zeros", "ones", "empty", "full", "arange", "linspace", "logspace", "eye", "rand", "randn", "randint",
             "randperm"}


def _tensor_position(signature: inspect.Signature):
    """The index of the parameter named ``input`` (PyTorch's name for the tensor operand), or None."""
    for index, parameter in enumerate(signature.parameters.values()):
        if parameter.name == "input" and parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD):
            return index
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.KEYWORD_ONLY, parameter.VAR_KEYWORD):
            return None
    return None


# NumPy's argument names that PyTorch's argument parser accepts for its own, on every builtin function and
# method: ``x.sum(axis=0, keepdims=True)``, ``torch.add(x1, x2=...)``.
NUMPY_ALIASES = {"axis": "dim", "keepdims": "keepdim", "x": "input", "a": "input", "x1": "input", "x2": "other"}


def aliases_for(signature: inspect.Signature, allowed) -> dict:
    parameters = signature.parameters
    return {alias: name for alias, name in NUMPY_ALIASES.items() if alias in allowed and name in parameters
            and alias not in parameters}


def rename_aliases(function: str, kwargs: dict, aliases: dict) -> dict:
    for alias, name in aliases.items():
        if alias in kwargs:
            if name in kwargs:
                raise TypeError(f"{function}() got multiple values for argument '{name}'")
            kwargs[name] = kwargs.pop(alias)
    return kwargs


def _not_a_tensor(public_function, name: str, value, position: int, args: tuple, kwargs: dict):
    """``value`` where a tensor is wanted: a stand-in for a tensor (its class defines ``__torch_function__``, as
    fx's ``Proxy`` does) is handed the call (``overrides.py``); anything else gets PyTorch's ``TypeError``."""
    if has_torch_function(value):
        return handle_torch_function(public_function, args, kwargs)
    raise must_be_tensor(name, value, "input", position + 1)


def _tensor_parameters(signature: inspect.Signature) -> tuple:
    """``(position, name, kind)`` of each parameter whose type PyTorch's parser checks, besides ``input``:
    annotated ``Tensor`` ("Tensor") or ``Tensor | None`` ("Tensor?"), annotated ``dtype``, named ``generator``,
    and ``*tensors`` ("tensors")."""
    found = []
    for index, parameter in enumerate(signature.parameters.values()):
        annotation = parameter.annotation.replace(" ", "") if isinstance(parameter.annotation, str) else ""
        if parameter.kind is parameter.VAR_POSITIONAL:
            if parameter.name in ("tensors", "operands", "matrices"):
                found.append((index, parameter.name, "tensors"))
            break  # the parameters after ``*tensors`` have no position
        if parameter.name == "input":
            continue
        if annotation in ("Tensor", "Tensor|None", "Optional[Tensor]"):
            found.append((index, parameter.name, "Tensor" if annotation == "Tensor" else "Tensor?"))
        elif annotation in ("dtype", "dtype|None") or parameter.name == "generator":
            found.append((index, parameter.name, "dtype" if parameter.name != "generator" else "Generator"))
    return tuple(found)


def _refuse_a_non_tensor(error, name: str, signature: inspect.Signature, checked: tuple, args: tuple,
                         kwargs: dict) -> None:
    """PyTorch's ``TypeError`` for the first argument of the wrong type among ``checked`` (a list where a tensor
    goes, a tensor where a dtype goes; a number may stand for a tensor, as in many of PyTorch's functions).
    Called only when the function failed, so a call with the right types pays nothing for the check. A
    ``TypeError`` the function raised stands: it is already an argument's (PyTorch's own for an inner call)."""
    if isinstance(error, TypeError):
        return
    try:
        bound = signature.bind(*args, **kwargs).arguments
    except TypeError:
        return
    for index, parameter, kind in checked:
        value = bound.get(parameter, _MISSING)
        if value is _MISSING or has_torch_function(value):
            continue  # a stand-in for a tensor (fx's Proxy): the function's own error stands
        if kind == "tensors":
            for element_index, element in enumerate(value):
                if not isinstance(element, Tensor) and not (
                        isinstance(element, (list, tuple)) and all(isinstance(item, Tensor) for item in element)):
                    raise TypeError(f"expected Tensor as element {element_index} in argument {index}, but got "
                                    f"{_messages.type_name(element)}") from None
        elif kind in ("Tensor", "Tensor?"):
            if not isinstance(value, _TENSOR_OR_NUMBER) and not (value is None and kind == "Tensor?"):
                raise must_be_tensor(name, value, parameter, index + 1) from None
        elif value is not None and not isinstance(value, _dtype.dtype if kind == "dtype" else _random.Generator):
            raise TypeError(f"{name}(): argument '{parameter}' (position {index + 1}) must be torch.{kind}, "
                            f"not {_messages.type_name(value)}") from None


def tensor_arguments(method):
    """Decorator for a ``Tensor`` method that takes other tensors (``x.take(index)``, ``x.view_as(other)``), written
    where the method is defined: a non-tensor there gets PyTorch's ``TypeError`` (``take(): argument 'index'
    (position 1) must be Tensor, not list``: positions counted after ``self``), checked once the method failed."""
    signature = inspect.signature(method)
    checked = tuple((index - 1, parameter, kind) for index, parameter, kind in _tensor_parameters(signature))
    name = method.__name__

    @functools.wraps(method)
    def with_tensor_arguments(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except Exception as error:  # a list where a tensor goes fails deep inside: PyTorch's TypeError instead
            _refuse_a_non_tensor(error, name, signature, checked, (self, *args), kwargs)
            raise

    return with_tensor_arguments


def _call_or_hand_over(public_function, function, args: tuple, kwargs: dict):
    """``function(*args, **kwargs)``; if it refuses an argument that stands in for a tensor (``cat([proxy])``),
    the call is handed to that argument's ``__torch_function__`` instead."""
    try:
        return function(*args, **kwargs)
    except TypeError:
        if not overloaded_arguments(args, kwargs):
            raise
        return handle_torch_function(public_function, args, kwargs)


def _named(wrapper, name: str):
    """``wrapper`` under its public name: ``minitorch.arctan`` is ``atan``'s function, named ``arctan`` as PyTorch's
    is (torch.fx writes ``torch.arctan(x)`` in generated code, by name)."""
    wrapper.__name__ = name
    wrapper.__qualname__ = name
    return wrapper


def public(function, *, takes_out: bool = False, name: str | None = None, numpy_aliases=()):
    """``function`` as the public face calls it: its tensor argument checked, ``out=`` if PyTorch takes one,
    and the ``numpy_aliases`` (a subset of ``NUMPY_ALIASES``' keys) accepted for PyTorch's names.

    Functions that need none of these come back unchanged.
    """
    name = name or function.__name__
    signature = inspect.signature(function)
    position = _tensor_position(signature)
    takes_out = takes_out and "out" not in signature.parameters
    aliases = aliases_for(signature, numpy_aliases)
    tensors = _tensor_parameters(signature)
    if position is None and not takes_out and not aliases and not tensors:
        return function
    creates = name in _CREATION  # zeros, arange...: out= sets the dtype and device
    if position is not None and not takes_out and not aliases:  # the common case: the tensor arguments to check
        @functools.wraps(function)
        def tensor_checked(*args, **kwargs):
            value = args[position] if len(args) > position else kwargs.get("input", _MISSING)
            if not isinstance(value, _TENSOR_OR_NUMBER) and value is not _MISSING:
                return _not_a_tensor(tensor_checked, name, value, position, args, kwargs)
            try:
                return function(*args, **kwargs)
            except Exception as error:  # a list where a weight goes fails deep inside: PyTorch's TypeError instead
                _refuse_a_non_tensor(error, name, signature, tensors, args, kwargs)
                raise

        return _named(tensor_checked, name)

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        if aliases and kwargs:
            rename_aliases(name, kwargs, aliases)
        if position is not None:
            value = args[position] if len(args) > position else kwargs.get("input", _MISSING)
            if not isinstance(value, Tensor) and not isinstance(value, numbers.Number) and value is not _MISSING:
                return _not_a_tensor(wrapper, name, value, position, args, kwargs)
        out = kwargs.pop("out", None) if takes_out else None
        if out is None:
            try:
                if position is None:  # no ``input`` to check (``cat(tensors)``)
                    return _call_or_hand_over(wrapper, function, args, kwargs)
                return function(*args, **kwargs)
            except Exception as error:  # a list where a tensor goes fails deep inside: PyTorch's TypeError instead
                _refuse_a_non_tensor(error, name, signature, tensors, args, kwargs)
                raise
        needs_grad = _requires_grad(out) or _requires_grad(args) or _requires_grad(tuple(kwargs.values()))
        if _GradState.enabled and needs_grad:
            raise RuntimeError(
                f"{name}(): functions with out=... arguments don't support automatic differentiation, but one of "
                "the arguments requires grad."
            )
        if creates and isinstance(out, Tensor):
            kwargs.setdefault("dtype", out.dtype)
            if "device" in signature.parameters:
                kwargs.setdefault("device", out.device)
        return write_out(name, function(*args, **kwargs), out)

    if takes_out:
        out_parameter = inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None)
        parameters = list(signature.parameters.values())
        at = next((i for i, p in enumerate(parameters) if p.kind is p.VAR_KEYWORD), len(parameters))
        parameters.insert(at, out_parameter)
        wrapper.__signature__ = signature.replace(parameters=parameters)
    return _named(wrapper, name)


# The functions of the ``torch`` namespace that take ``out=`` in PyTorch 2.13 and that minitorch has
# (tests/test_api_signatures.py checks this list against PyTorch's own signatures).
TAKES_OUT = (
    "abs", "absolute", "acos", "add", "addbmm", "addcdiv", "addcmul", "addmm", "addmv", "all", "amax", "amin",
    "aminmax", "any", "arange", "arccos", "arcsin", "arctan", "arctan2", "argmax", "argmin", "argsort", "asin", "atan",
    "atan2", "baddbmm", "bernoulli", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "bmm", "bucketize",
    "cat", "ceil", "cholesky", "clamp", "clamp_max", "clamp_min", "clip", "column_stack", "concat", "concatenate",
    "cos", "cosh", "cross", "cummax", "cummin", "cumprod", "cumsum", "deg2rad", "diag", "diff", "digamma", "div",
    "divide", "dot", "dstack", "empty", "eq", "erf", "erfc", "erfinv", "exp", "exp2", "expm1", "eye", "fix",
    "float_power", "floor", "floor_divide", "fmax", "fmin", "fmod", "frac", "frexp", "full", "gather", "gcd", "ge",
    "greater", "greater_equal", "gt", "heaviside", "histc", "histogram", "hstack", "hypot", "i0", "index_add",
    "index_copy", "index_select", "inner", "inverse", "isin", "isneginf", "isposinf", "kron", "kthvalue", "lcm",
    "ldexp", "le", "lerp", "less", "less_equal", "lgamma", "linspace", "log", "log10", "log1p", "log2", "log_softmax",
    "logaddexp", "logaddexp2", "logcumsumexp", "logical_and", "logical_not", "logical_or", "logical_xor", "logit",
    "logspace", "logsumexp", "lt", "masked_select", "matmul", "matrix_power", "max", "maximum", "mean", "median",
    "min", "minimum", "mm", "mode", "msort", "mul", "multinomial", "multiply", "mv", "nan_to_num", "nanmean",
    "nanmedian", "nanquantile", "nansum", "narrow_copy", "ne", "neg", "negative", "nextafter", "nonzero", "norm",
    "normal", "not_equal", "ones", "outer", "polygamma", "pow", "prod", "qr", "quantile", "rad2deg", "rand", "randint",
    "randn", "randperm", "reciprocal", "remainder", "renorm", "round", "rsqrt", "scatter", "scatter_add",
    "scatter_reduce", "searchsorted", "sgn", "sigmoid", "sign", "signbit", "sin", "sinc", "sinh", "slice_scatter",
    "slogdet", "softmax", "sort", "sqrt", "square", "stack", "std", "sub", "subtract", "sum", "svd", "take",
    "take_along_dim", "tan", "tanh", "tensordot", "topk", "tril", "triu", "true_divide", "trunc", "var", "vdot",
    "vstack", "where", "xlogy", "zeros", "acosh", "arccosh", "arcsinh", "arctanh", "asinh", "atanh", "copysign",
    "threshold",
    "bitwise_left_shift", "bitwise_right_shift", "cholesky_solve", "conj_physical", "mvlgamma",
)  # fmt: skip
