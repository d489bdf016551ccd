"""Selection and blending: ``where`` and ``lerp``."""

from __future__ import annotations

import builtins

from ... import _dtype, _messages
from ..._tensor_base import TensorBase as Tensor  # isinstance and _make; the class sits above the ops
from ...autograd.function import Op
from .._reduced_precision import computes_in_float32
from .._util import (
    array_module,
    as_operand,
    broadcast_shapes,
    cast,
    check_same_device,
    is_number,
)
from ._operands import _apply_in_layout, _fit_integer, _require_tensor


# -- selection and blending -----------------------------------------------------------------
class Where(Op):
    """``y = a`` where ``condition``, else ``b``;  ``da = grad`` where ``condition`` (else 0), ``db`` the rest."""

    @staticmethod
    def forward(ctx, condition, a, b, numpy_dtype):
        ctx.save_for_backward(condition)
        result = array_module(condition).where(condition, a, b)
        return result if result.dtype == numpy_dtype else result.astype(numpy_dtype)

    @staticmethod
    def backward(ctx, grad):
        (condition,) = ctx.saved_tensors
        grad_a = where(condition, grad, 0.0) if ctx.needs_input_grad[1] else None
        grad_b = where(condition, 0.0, grad) if ctx.needs_input_grad[2] else None
        return None, grad_a, grad_b, None


def where(condition: Tensor, input=None, other=None):
    """Elements of ``input`` where ``condition`` is True, else of ``other`` (tensors or numbers, broadcast).

    With only ``condition``, the indices of its True elements (``condition.nonzero(as_tuple=True)``).

        >>> import minitorch
        >>> x = minitorch.tensor([-1.0, 2.0, -3.0])
        >>> minitorch.where(x > 0, x, 0.0)
        tensor([0., 2., 0.])
    """
    _require_tensor(condition, "where", "condition")
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)
    if condition._data.dtype != bool:
        raise RuntimeError(
            "where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{condition.dtype.type_name}"
        )
    input, other = as_operand(input, condition), as_operand(other, condition)
    result = _dtype.result_type(input, other)
    shapes = [condition._data.shape]
    operands = []
    for operand in (input, other):
        if isinstance(operand, Tensor):
            if operand._device is not condition._device:
                check_same_device(condition, operand)
            shapes.append(operand._data.shape)
            operand = cast(operand, result)
        elif type(operand) is int and result.category == _dtype.INTEGER:
            operand = _fit_integer(operand, result.numpy_dtype)
        operands.append(operand)
    if len(shapes) > 1 and any(shape != shapes[0] for shape in shapes):
        broadcast_shapes(*shapes)
    return _apply_in_layout(Where, condition, operands[0], operands[1], result.numpy_dtype)


class Lerp(Op):
    """``y = start + weight * (end - start)``;
    ``dstart = grad * (1 - weight)``,  ``dend = grad * weight``,  ``dweight = grad * (end - start)``."""

    @staticmethod
    @computes_in_float32
    def forward(ctx, start, end, weight):
        ctx.save_for_backward(start, end, weight)
        difference = end - start
        # PyTorch's two-sided formula: exact at weight = 0 (start) and at weight = 1 (end).
        if is_number(weight):
            return start + weight * difference if builtins.abs(weight) < 0.5 else end - difference * (1 - weight)
        xp = array_module(start)
        return xp.where(xp.abs(weight) < 0.5, start + weight * difference, end - difference * (1 - weight))

    @staticmethod
    def backward(ctx, grad):
        start, end, weight = ctx.saved_tensors
        needs = ctx.needs_input_grad
        grad_start = grad * (1 - weight) if needs[0] else None
        grad_end = grad * weight if needs[1] else None
        grad_weight = grad * (end - start) if needs[2] else None
        return grad_start, grad_end, grad_weight


class LerpTensor(Lerp):
    node_name = "LerpBackward1"  # PyTorch's name when the weight is a tensor


def lerp(input: Tensor, end: Tensor, weight) -> Tensor:
    """Linear interpolation ``input + weight * (end - input)``; ``weight`` is a number or a tensor.

    ``end`` (and a ``weight`` tensor with dimensions) must have ``input``'s dtype; a 0-d
    ``weight`` is promoted with the others instead, as in PyTorch.
    """
    _require_tensor(input, "lerp")
    _require_tensor(end, "lerp", "end", 2)
    for name, value in (("end", end), ("weight", weight)):
        if isinstance(value, Tensor) and value._data.dtype != input._data.dtype and (name == "end" or value.ndim):
            expected, got = input.dtype.cpp_name, value.dtype.cpp_name
            raise RuntimeError(f"expected dtype {expected} for `{name}` but got dtype {got}")
    weight = as_operand(weight, input)
    result = _dtype.result_type(input, weight) if isinstance(weight, Tensor) else input.dtype
    if not result.is_floating_point:
        kernel = "lerp_kernel_tensor" if isinstance(weight, Tensor) else "lerp_kernel_scalar"
        raise NotImplementedError(_messages.not_implemented_for(kernel, result))
    tensors = [t for t in (input, end, weight) if isinstance(t, Tensor)]
    check_same_device(*tensors)
    shapes = [t._data.shape for t in tensors]
    if any(shape != shapes[0] for shape in shapes):
        broadcast_shapes(*shapes)
    if isinstance(weight, Tensor):
        return _apply_in_layout(LerpTensor, cast(input, result), cast(end, result), cast(weight, result))
    return _apply_in_layout(Lerp, input, end, weight)
