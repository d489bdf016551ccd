"""PyTorch's words for the errors that many functions share, each built in one place.

A learner's error reads exactly as PyTorch's (the tests compare the text with PyTorch's own), so a
message that several functions raise is written once here, and a dtype spells itself the two ways
PyTorch does (``float32.type_name`` is ``Float``, ``float32.cpp_name`` is ``float``: ``_dtype.py``).
A message that belongs to one function stays beside it, in that function's ``_check_*`` helper.

Each builder returns the text; the caller picks the exception class PyTorch raises with it
(``"abs_cpu" not implemented for 'Bool'`` is a ``NotImplementedError`` from some kernels and a
``RuntimeError`` from others).
"""

from __future__ import annotations

_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class defined in Python


def type_name(value) -> str:
    """How PyTorch's argument parser names a value's type: the C ``tp_name`` (``list``, ``numpy.ndarray``, ``X``).

    Classes written in Python go by their bare name; types written in C by their dotted one,
    except the builtins.
    """
    kind = type(value)
    if kind.__flags__ & _HEAP_TYPE or kind.__module__ == "builtins":
        return kind.__name__
    return f"{kind.__module__}.{kind.__name__}"


def must_be_tensor(function: str, value, argument: str = "input", position: int = 1) -> str:
    """``relu(): argument 'input' (position 1) must be Tensor, not list``."""
    return f"{function}(): argument '{argument}' (position {position}) must be Tensor, not {type_name(value)}"


def not_implemented_for(kernel: str, dtype) -> str:
    """``"abs_cpu" not implemented for 'Bool'``: PyTorch has no kernel of that op for ``dtype``."""
    return f"\"{kernel}\" not implemented for '{dtype.type_name}'"


def expected_scalar_type(expected, found) -> str:
    """``expected scalar type Float but found Double``: operands that must share one dtype."""
    return f"expected scalar type {expected.type_name} but found {found.type_name}"


def m1_m2_dtypes(m1, m2) -> str:
    """``expected m1 and m2 to have the same dtype, but got: float != double`` (matrix products, ``F.linear``)."""
    return f"expected m1 and m2 to have the same dtype, but got: {m1.cpp_name} != {m2.cpp_name}"


def cannot_cast(result, target) -> str:
    """``result type Float can't be cast to the desired output type Long`` (``out=``, in-place ops)."""
    return f"result type {result.type_name} can't be cast to the desired output type {target.type_name}"
