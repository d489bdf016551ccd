"""Linear algebra: matrix products (matmul, mm, bmm, mv, dot, outer), einsum, and what is built on them.

Every product here is one array ``matmul`` (or ``einsum``) in forward and one per input
in backward: for ``y = a @ b``,

    da = grad @ b^T        db = a^T @ grad

where ``^T`` swaps the last two dimensions (a view, never a copy: BLAS reads transposed
data directly). Vectors are treated as one-row or one-column matrices, and batch
dimensions broadcast; the engine sums each gradient back over the batch dimensions that
were broadcast (the one place that happens for every op).

Errors use PyTorch's words, including its habit of describing a batched product by the
``mm``/``mv``/``bmm`` call it turns into.

Further down: the ``add*`` family (``addmm``, ``baddbmm``... ``beta * input + alpha * product``),
products composed from the ones above (``inner``, ``kron``, ``cross``), distances (``dist``,
``cdist``), diagonals (``diagonal`` is a view; ``diag``, ``diag_embed``, ``trace``), and the
determinant and inverse, whose derivatives are the classic matrix-calculus results::

    d det(A) = det(A) * A^{-T}        d A^{-1}: dA = -A^{-T} @ grad @ A^{-T}
"""

from __future__ import annotations

import builtins
import string
import warnings

import numpy as np

from .. import _dtype, return_types
from .._tensor import Tensor
from ..autograd.function import Op
from . import pointwise, reduction, shape as shape_ops
from ._util import array_module, broadcast_shapes, cast, check_same_device, is_number, wrap_dim
from .reduction import scalar_type_name

# PyTorch names dtypes by their C++ types in some messages ("float != double").
_CPP_TYPE_NAMES = {
    "float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int", "int32": "int",
    "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
}


# -- matrix products ------------------------------------------------------------------------
class MatMul(Op):
    """``y = a @ b`` (batched, broadcast);  ``da = grad @ b^T``,  ``db = a^T @ grad``.

    A 1-D ``a`` acts as a row ``(1, k)`` and a 1-D ``b`` as a column ``(k, 1)``; the
    added dimension is removed from the result, and from the gradients again.
    """

    node_name = "MatmulBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        product = array_module(a).matmul(a, b)
        return product if a.ndim > 1 or b.ndim > 1 else array_module(a).asarray(product)  # vector . vector: 0-d

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        if a.ndim == 1 and b.ndim == 1:  # dot product: y = sum_i a_i b_i
            return (grad * b if ctx.needs_input_grad[0] else None), (grad * a if ctx.needs_input_grad[1] else None)
        # view vectors as matrices (a row, b a column) and give grad the matching size-1 dimension
        matrix_a = a.unsqueeze(0) if a.ndim == 1 else a
        matrix_b = b.unsqueeze(-1) if b.ndim == 1 else b
        if a.ndim == 1:
            grad = grad.unsqueeze(-2)
        if b.ndim == 1:
            grad = grad.unsqueeze(-1)
        grad_a = grad_b = None
        if ctx.needs_input_grad[0]:
            grad_a = matmul(grad, matrix_b.mT)
            if a.ndim == 1:
                grad_a = grad_a.squeeze(-2)
        if ctx.needs_input_grad[1]:
            grad_b = matmul(matrix_a.mT, grad)
            if b.ndim == 1:
                grad_b = grad_b.squeeze(-1)
        return grad_a, grad_b


# Same computation; PyTorch's node names for the cases its own functions cover.
class Mm(MatMul):
    """``y = a @ b`` for two matrices;  ``da = grad @ b^T``,  ``db = a^T @ grad``."""

    node_name = "MmBackward0"


class Mv(MatMul):
    """``y = A @ v`` for a matrix and a vector;  ``dA = outer(grad, v)``,  ``dv = A^T @ grad``."""

    node_name = "MvBackward0"


class Dot(MatMul):
    """``y = sum_i a_i b_i``;  ``da = grad * b``,  ``db = grad * a``."""

    node_name = "DotBackward0"


class Bmm(MatMul):
    """``y[n] = a[n] @ b[n]`` for a batch of matrices;  ``da = grad @ b^T``,  ``db = a^T @ grad``."""

    node_name = "BmmBackward0"


def _cpp_names(a: Tensor, b: Tensor) -> str:
    return f"{_CPP_TYPE_NAMES[a.dtype.name]} != {_CPP_TYPE_NAMES[b.dtype.name]}"


def _check_products(a: Tensor, b: Tensor) -> None:
    if not (isinstance(a, Tensor) and isinstance(b, Tensor)):
        offending = b if isinstance(a, Tensor) else a
        raise TypeError(f"matmul(): argument 'other' (position 1) must be Tensor, not {type(offending).__name__}")
    check_same_device(a, b)
    if a._data.dtype == bool:
        raise NotImplementedError("\"addmm_impl_cpu_\" not implemented for 'Bool'")


def _mm_checks(a: Tensor, b: Tensor, rows_a: int, inner_a: int) -> None:
    """Checks of a product PyTorch computes with ``mm`` (``a`` seen as ``rows_a x inner_a``)."""
    if inner_a != b._data.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows_a}x{inner_a} and {b._data.shape[0]}x{b._data.shape[1]})"
        )
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_cpp_names(a, b)}")


def _mv_checks(a: Tensor, b: Tensor, rows_a: int, inner_a: int) -> None:
    """Checks of a product PyTorch computes with ``mv`` (``a`` seen as ``rows_a x inner_a``)."""
    if inner_a != b._data.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({rows_a}), mat ({rows_a}x{inner_a}), vec ({b._data.shape[0]})")
    if a._data.dtype != b._data.dtype:
        vector, matrix = scalar_type_name(b.dtype), scalar_type_name(a.dtype)
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {vector}, {matrix}, and {vector}")


def _dot_checks(a: Tensor, b: Tensor) -> None:
    if a._data.shape[0] != b._data.shape[0]:
        n, m = a._data.shape[0], b._data.shape[0]
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same number of elements, "
            f"but got {n} and {m} elements respectively"
        )
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(
            f"dot : expected both vectors to have same dtype, but found {scalar_type_name(a.dtype)} and "
            f"{scalar_type_name(b.dtype)}"
        )


def matmul(a: Tensor, b: Tensor) -> Tensor:
    """Matrix product with NumPy's (and PyTorch's) rules for every rank.

    * vector @ vector: the dot product (a 0-d tensor);
    * matrix @ matrix: the matrix product;
    * a 1-D argument is a row (on the left) or a column (on the right), removed again after;
    * more dimensions: a batch of matrices, with batch dimensions broadcast.

        >>> import minitorch
        >>> a = minitorch.ones(2, 3)
        >>> (a @ minitorch.ones(3)).shape
        minitorch.Size([2])
    """
    _check_products(a, b)
    ndim_a, ndim_b = a._data.ndim, b._data.ndim
    shape_a, shape_b = a._data.shape, b._data.shape
    if ndim_a == 0 or ndim_b == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {ndim_a}D and {ndim_b}D")
    if ndim_a == 1 and ndim_b == 1:
        _dot_checks(a, b)
        return Dot.apply(a, b)
    if ndim_b == 1:  # matrix (or a batch folded into one tall matrix) times a vector
        rows = shape_a[-2] if ndim_a == 2 else _numel(shape_a[:-1])
        _mv_checks(a, b, rows, shape_a[-1])
        return (Mv if ndim_a == 2 else MatMul).apply(a, b)
    if ndim_b == 2 and ndim_a <= 2 or ndim_b == 2 and ndim_a >= 3:  # PyTorch folds these into one mm
        rows = 1 if ndim_a == 1 else _numel(shape_a[:-1])
        _mm_checks(a, b, rows, shape_a[-1])
        return (Mm if ndim_a == 2 else MatMul).apply(a, b)
    # batched: broadcast the batch dimensions, then each pair of matrices must fit (PyTorch's bmm)
    batch = broadcast_shapes(shape_a[:-2], shape_b[:-2])
    inner_a = shape_a[-1]
    if inner_a != shape_b[-2]:
        count = _numel(batch)
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{count}, {inner_a}] but got: "
            f"[{count}, {shape_b[-2]}]."
        )
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(a.dtype)} but found {scalar_type_name(b.dtype)}")
    same_batch = ndim_a == 3 and ndim_b == 3 and shape_a[0] == shape_b[0]
    return (Bmm if same_batch else MatMul).apply(a, b)


def _numel(shape) -> int:
    count = 1
    for extent in shape:
        count *= extent
    return count


def mm(a: Tensor, b: Tensor) -> Tensor:
    """The product of two matrices (no broadcasting; see ``matmul`` for that)."""
    _check_products(a, b)
    if a._data.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if b._data.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    _mm_checks(a, b, a._data.shape[0], a._data.shape[1])
    return Mm.apply(a, b)


def bmm(a: Tensor, b: Tensor) -> Tensor:
    """``out[n] = a[n] @ b[n]`` for two batches of matrices of the same length (no broadcasting)."""
    _check_products(a, b)
    if a._data.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b._data.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    (count, _, inner), (count_b, inner_b, _) = a._data.shape, b._data.shape
    if (count_b, inner_b) != (count, inner):
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{count}, {inner}] but got: "
            f"[{count_b}, {inner_b}]."
        )
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(a.dtype)} but found {scalar_type_name(b.dtype)}")
    return Bmm.apply(a, b)


def mv(matrix: Tensor, vector: Tensor) -> Tensor:
    """The product of a matrix and a vector."""
    _check_products(matrix, vector)
    if matrix._data.ndim != 2 or vector._data.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {matrix._data.ndim}, {vector._data.ndim}")
    _mv_checks(matrix, vector, matrix._data.shape[0], matrix._data.shape[1])
    return Mv.apply(matrix, vector)


def dot(a: Tensor, b: Tensor) -> Tensor:
    """``sum_i a_i b_i`` for two vectors of the same length (a 0-d tensor)."""
    _check_products(a, b)
    if a._data.ndim != 1 or b._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a._data.ndim}D and {b._data.ndim}D tensors")
    _dot_checks(a, b)
    return Dot.apply(a, b)


def outer(a: Tensor, b: Tensor) -> Tensor:
    """``out[i, j] = a[i] * b[j]``: a column times a row, by broadcasting (types promote as for ``*``)."""
    for name, vector in (("self", a), ("vec2", b)):
        if vector._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {vector._data.ndim}-D")
    return a.reshape(-1, 1) * b


# -- einsum ------------------------------------------------------------------------------------
class Einsum(Op):
    """``y = einsum(equation, x_1, ..., x_n)``: multiply the operands along shared subscripts, sum the rest.

    The gradient of one operand is itself an einsum: multiply ``grad`` (subscripts of the
    output) by every *other* operand and keep the subscripts of the operand, e.g. for
    ``ij,jk->ik``:  ``dA = einsum("jk,ik->ij", B, grad)``,  ``dB = einsum("ij,ik->jk", A, grad)``.
    Two details make that general: a subscript of the operand that appears nowhere else
    was summed away, so its gradient is broadcast back along it; a subscript repeated in
    the operand (``ii``, a diagonal) gets its gradient on the diagonal only, by
    multiplying with an identity matrix. ``equation`` here is explicit, with letters only
    (``einsum`` rewrites ``...`` and the implicit form before calling this).
    """

    @staticmethod
    def forward(ctx, equation, *operands):
        ctx.equation = equation
        ctx.save_for_backward(*operands)
        xp = array_module(operands[0])
        # With more than two operands, or big ones, let NumPy find a good order and use BLAS.
        optimize = len(operands) > 2 or builtins.max(o.size for o in operands) > 4096
        return xp.asarray(xp.einsum(equation, *operands, optimize=optimize))

    @staticmethod
    def backward(ctx, grad):
        operands = ctx.saved_tensors
        inputs, output = ctx.equation.split("->")
        subscripts = inputs.split(",")
        grads = [None]  # the equation gets no gradient
        for position, (operand, letters) in enumerate(zip(operands, subscripts)):
            if not ctx.needs_input_grad[position + 1]:
                grads.append(None)
                continue
            other_letters = [s for i, s in enumerate(subscripts) if i != position] + [output]
            others = [o for i, o in enumerate(operands) if i != position] + [grad]
            grads.append(_einsum_gradient(operand, letters, other_letters, others, ctx.equation))
        return tuple(grads)


def _einsum_gradient(operand: Tensor, letters: str, other_letters: list, others: list, equation: str) -> Tensor:
    """The gradient of one einsum operand with subscripts ``letters`` (see ``Einsum``)."""
    sizes = dict(zip(letters, operand.shape))
    distinct = "".join(dict.fromkeys(letters))  # each letter once, in order
    available = set("".join(other_letters))
    kept = "".join(c for c in distinct if c in available)
    gradient = einsum(",".join(other_letters) + "->" + kept, *others)
    if len(kept) < len(distinct):  # letters summed away in forward: broadcast the gradient back along them
        gradient = gradient.reshape(tuple(sizes[c] if c in available else 1 for c in distinct))
        gradient = gradient.expand(tuple(sizes[c] for c in distinct))
    if len(distinct) < len(letters):  # repeated letters (a diagonal): the gradient lives on the diagonal only
        unused = iter(c for c in string.ascii_letters if c not in equation)
        seen, target, factors, identities = set(), "", [distinct], [gradient]
        xp = operand._xp
        for c in letters:
            if c in seen:
                fresh = next(unused)
                target += fresh
                factors.append(c + fresh)
                identities.append(Tensor._make(xp.eye(sizes[c], dtype=operand._data.dtype), operand._device))
            else:
                seen.add(c)
                target += c
        gradient = einsum(",".join(factors) + "->" + target, *identities)
    return gradient


def _explicit_equation(equation: str, operands) -> str:
    """Rewrite ``equation`` with an explicit output and letters in place of ``...``, checking it as PyTorch does."""
    equation = equation.replace(" ", "")
    inputs, arrow, output = equation.partition("->")
    subscripts = inputs.split(",")
    if len(subscripts) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    if len(subscripts) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    arrow_at = equation.find("->")
    for index, character in enumerate(equation):
        if character not in string.ascii_letters and character not in ",." and index not in (arrow_at, arrow_at + 1):
            raise RuntimeError(
                f"einsum(): invalid subscript given at index {index} in the equation string, subscripts must be in "
                "[a-zA-Z]"
            )

    unused = iter(c for c in string.ascii_letters if c not in equation)
    ellipsis_rank = 0
    for position, (letters, operand) in enumerate(zip(subscripts, operands)):
        named = len(letters.replace("...", ""))
        if letters.count(".") not in (0, 3) or (letters.count(".") == 3 and "..." not in letters):
            raise RuntimeError(f"einsum(): found '.' for operand {position} for which an ellipsis was already found")
        if "..." in letters:
            if named > operand.ndim:
                raise RuntimeError(
                    f"einsum(): the number of subscripts in the equation ({named}) is more than the number of "
                    f"dimensions ({operand.ndim}) for operand {position}"
                )
            ellipsis_rank = builtins.max(ellipsis_rank, operand.ndim - named)
        elif named != operand.ndim:
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({named}) does not match the number of "
                f"dimensions ({operand.ndim}) for operand {position} and no ellipsis was given"
            )
    ellipsis_letters = "".join(next(unused) for _ in range(ellipsis_rank))

    # ``...`` becomes letters, right-aligned: an operand with fewer such dimensions gets the last ones
    explicit_inputs = []
    for letters, operand in zip(subscripts, operands):
        if "..." in letters:
            rank = operand.ndim - len(letters.replace("...", ""))
            letters = letters.replace("...", ellipsis_letters[ellipsis_rank - rank:])
        explicit_inputs.append(letters)
    _check_sizes(explicit_inputs, operands)

    if arrow:
        output = output.replace("...", ellipsis_letters)
        for letter in output:
            if output.count(letter) > 1:
                raise RuntimeError(f"einsum(): output subscript {letter} appears more than once in the output")
            if not any(letter in letters for letters in explicit_inputs):
                raise RuntimeError(
                    f"einsum(): output subscript {letter} does not appear in the equation for any input operand"
                )
    else:  # implicit form: the ellipsis, then every letter used exactly once, in alphabetical order
        named = inputs.replace("...", "").replace(",", "")
        output = ellipsis_letters + "".join(sorted(c for c in set(named) if named.count(c) == 1))
    return ",".join(explicit_inputs) + "->" + output


def _check_sizes(subscripts, operands) -> None:
    """Each letter must have one size (or size 1, which broadcasts); repeated letters within an operand must agree."""
    sizes = {}
    for position, (letters, operand) in enumerate(zip(subscripts, operands)):
        own = {}
        for letter, extent in zip(letters, operand.shape):
            if letter in own and own[letter] != extent:
                raise RuntimeError(
                    f"einsum(): subscript {letter} is repeated for operand {position} but the sizes don't match, "
                    f"{extent} != {own[letter]}"
                )
            own[letter] = extent
            seen = sizes.get(letter)
            if seen is not None and extent != seen and extent != 1 and seen != 1:
                raise RuntimeError(
                    f"einsum(): subscript {letter} has size {extent} for operand {position} which does not broadcast "
                    f"with previously seen size {seen}"
                )
            if seen is None or seen == 1:
                sizes[letter] = extent


def einsum(equation: str, *operands) -> Tensor:
    """Einstein summation: ``einsum("ij,jk->ik", a, b)`` is ``a @ b``.

    Each operand gets one letter per dimension; letters shared between operands are
    multiplied along, letters missing from the output (after ``->``) are summed over.
    ``...`` stands for any number of broadcast dimensions; without ``->`` the output is
    every letter used once, in alphabetical order.

        >>> import minitorch
        >>> a = minitorch.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> minitorch.einsum("ii->", a)  # the trace
        tensor(5.)
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise ValueError(
            "einsum(): must specify the equation string and at least one operand, or at least one operand and its "
            "subscripts list"
        )
    check_same_device(*operands)
    first = operands[0]
    for operand in operands[1:]:
        if operand._data.dtype != first._data.dtype:
            raise RuntimeError(
                f"expected scalar type {scalar_type_name(first.dtype)} but found {scalar_type_name(operand.dtype)}"
            )
    explicit = _explicit_equation(equation, operands)
    return Einsum.apply(explicit, *operands)


# -- the add* family: beta * input + alpha * product -------------------------------------------
def _scaled_sum(input: Tensor, beta, product: Tensor, alpha) -> Tensor:
    """``beta * input + alpha * product``; with ``beta = 0`` the input is ignored, NaNs and all (PyTorch's rule)."""
    if alpha != 1:
        product = product * alpha
    if beta == 0:
        return product
    return (input if beta == 1 else input * beta) + product


def _check_matrix(tensor: Tensor, name: str) -> None:
    if tensor._data.ndim != 2:
        raise RuntimeError(f"{name} must be a matrix, got {tensor._data.ndim}-D tensor")


def _check_input_dtype(input: Tensor, other: Tensor, other_name: str) -> None:
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(
            f"self and {other_name} must have the same dtype, but got {scalar_type_name(input.dtype)} and "
            f"{scalar_type_name(other.dtype)}"
        )


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)``, ``input`` broadcast to the product's shape (a linear layer's form).

        >>> import minitorch
        >>> minitorch.addmm(minitorch.ones(2, 2), minitorch.eye(2), minitorch.eye(2), beta=0.5).tolist()
        [[1.5, 0.5], [0.5, 1.5]]
    """
    _check_matrix(mat1, "mat1")
    _check_matrix(mat2, "mat2")
    _check_input_dtype(input, mat2, "mat2")
    product = mm(mat1, mat2)
    return _scaled_sum(shape_ops.expand(input, product.shape), beta, product, alpha)


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta=1, alpha=1) -> Tensor:
    """``beta * input + alpha * (mat @ vec)``."""
    if mat._data.ndim != 2 or vec._data.ndim != 1 or input._data.ndim > 1:
        raise RuntimeError(
            f"vector + matrix @ vector expected, got {input._data.ndim}, {mat._data.ndim}, {vec._data.ndim}"
        )
    rows, columns = mat._data.shape
    if input._data.shape not in ((), (1,), (rows,)) or vec._data.shape[0] != columns:
        size = input._data.shape[0] if input._data.ndim else 1
        raise RuntimeError(f"size mismatch, got input ({size}), mat ({rows}x{columns}), vec ({vec._data.shape[0]})")
    product = mv(mat, vec)
    return _scaled_sum(shape_ops.expand(input, product.shape), beta, product, alpha)


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """``beta * input + alpha * (batch1[n] @ batch2[n])`` for each ``n``."""
    product = bmm(batch1, batch2)
    return _scaled_sum(shape_ops.expand(input, product.shape), beta, product, alpha)


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """``beta * input + alpha * sum_n batch1[n] @ batch2[n]``: the products of a batch, added up."""
    for name, batch in (("batch1", batch1), ("batch2", batch2)):
        if batch._data.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    if batch1._data.shape[0] != batch2._data.shape[0]:
        raise RuntimeError(
            f"batch1 and batch2 must have same number of batches, got {batch1._data.shape[0]} and "
            f"{batch2._data.shape[0]}"
        )
    product = bmm(batch1, batch2).sum(0)
    return _scaled_sum(shape_ops.expand(input, product.shape), beta, product, alpha)


def addcmul(input: Tensor, tensor1, tensor2, *, value=1) -> Tensor:
    """``input + value * tensor1 * tensor2`` (broadcast; the out-of-place form of ``addcmul_``)."""
    return pointwise.add(input, pointwise.mul(tensor1, tensor2), alpha=value)


def addcdiv(input: Tensor, tensor1, tensor2, *, value=1) -> Tensor:
    """``input + value * tensor1 / tensor2`` (true division; integer ``tensor1 / tensor2`` is refused)."""
    if not _dtype.result_type(tensor1, tensor2).is_floating_point:
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a "
            "true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value "
            "* torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
            "tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: (input + value "
            "* tensor1 / tensor2), for all dtypes."
        )
    return pointwise.add(input, pointwise.div(tensor1, tensor2), alpha=value)


# -- products built from the ones above -----------------------------------------------------------
def inner(input: Tensor, other: Tensor) -> Tensor:
    """``out[i..., j...] = sum_k input[i..., k] * other[j..., k]``: the dot product over the last dimension.

    For vectors this is ``dot``; a 0-d argument just multiplies. It is one matrix product
    of the two inputs flattened to ``(-1, k)`` matrices.
    """
    if input._data.ndim == 0 or other._data.ndim == 0:
        return pointwise.mul(input, other)
    shape_a, shape_b = input._data.shape, other._data.shape
    if shape_a[-1] != shape_b[-1]:
        raise RuntimeError(
            "inner() the last dimension must match on both input tensors but got shapes "
            f"{list(shape_a)} and {list(shape_b)}"
        )
    if input._data.dtype != other._data.dtype:
        raise RuntimeError("both inputs should have same dtype")
    extent = shape_a[-1]
    rows = shape_ops.reshape(input, (_numel(shape_a[:-1]), extent))
    columns = shape_ops.reshape(other, (_numel(shape_b[:-1]), extent))
    return shape_ops.reshape(matmul(rows, columns.mT), shape_a[:-1] + shape_b[:-1])


def kron(input: Tensor, other: Tensor) -> Tensor:
    """The Kronecker product: ``out[i * m + k] = input[i] * other[k]`` in every dimension.

    Seen with interleaved dimensions ``(a0, b0, a1, b1, ...)`` it is just a broadcast
    product of ``input`` shaped ``(a0, 1, a1, 1, ...)`` and ``other`` shaped ``(1, b0, 1, b1, ...)``;
    merging each pair ``(ai, bi)`` gives the result, so the gradient comes from ``*`` and ``reshape``.
    """
    ndim = builtins.max(input._data.ndim, other._data.ndim)
    shape_a = (1,) * (ndim - input._data.ndim) + input._data.shape
    shape_b = (1,) * (ndim - other._data.ndim) + other._data.shape
    spread_a = shape_ops.reshape(input, tuple(extent for a in shape_a for extent in (a, 1)))
    spread_b = shape_ops.reshape(other, tuple(extent for b in shape_b for extent in (1, b)))
    return shape_ops.reshape(pointwise.mul(spread_a, spread_b), tuple(a * b for a, b in zip(shape_a, shape_b)))


def cross(input: Tensor, other: Tensor, dim: int | None = None) -> Tensor:
    """The cross product of 3-vectors along ``dim`` (by default, as PyTorch: the first dimension of size 3).

    With the components shifted cyclically (``roll``), ``c_i = a_{i+1} b_{i+2} - a_{i+2} b_{i+1}``
    for all three ``i`` at once.
    """
    if dim is None:
        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim explicitly "
            "or simply use torch.linalg.cross.\nThe default value of dim will change to agree with that of "
            "linalg.cross in a future release.",
            UserWarning, stacklevel=2,
        )
        dim = next((axis for axis, extent in enumerate(input._data.shape) if extent == 3), -1)
    return _cross(input, other, dim)


def _cross(input: Tensor, other: Tensor, dim: int) -> Tensor:
    if input._data.ndim != other._data.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    axis = wrap_dim(dim, input._data.ndim)
    size_a, size_b = input._data.shape[axis], other._data.shape[axis]
    if size_a != 3 or size_b != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {size_a} and {size_b}")
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(
            f"expected scalar type {scalar_type_name(input.dtype)} but found {scalar_type_name(other.dtype)}"
        )
    broadcast_shapes(input._data.shape, other._data.shape)

    def shifted(tensor: Tensor, by: int) -> Tensor:
        return shape_ops.roll(tensor, -by, axis)

    return shifted(input, 1) * shifted(other, 2) - shifted(input, 2) * shifted(other, 1)


def linalg_cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    """``torch.linalg.cross``: ``cross`` with ``dim = -1`` by default."""
    return _cross(input, other, dim)


# -- distances ------------------------------------------------------------------------------------
def dist(input: Tensor, other: Tensor, p=2) -> Tensor:
    """``||input - other||_p`` over all elements (broadcast); its gradient at distance 0 is 0, as ``norm``'s."""
    difference = pointwise.sub(input, other)
    if not difference.is_floating_point():
        raise RuntimeError(
            f"norm(): input dtype should be either floating point or complex. Got {scalar_type_name(difference.dtype)} "
            "instead."
        )
    return reduction.norm(difference, p)


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode=None) -> Tensor:
    """``out[..., i, j] = ||x1[..., i, :] - x2[..., j, :]||_p``: every distance between two sets of points.

    Computed as the norm of the broadcast difference ``x1[..., :, None, :] - x2[..., None, :, :]``,
    so the gradient is ``norm``'s (0 where two points coincide, like PyTorch's). PyTorch switches
    to a matrix-product formula for ``p = 2`` with more than 25 points; that one is faster but
    loses precision for nearby points, which is why this readable version keeps the difference.
    """
    for name, points in (("X1", x1), ("X2", x2)):
        if points._data.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {points._data.ndim}D")
    for name, points in (("X1", x1), ("X2", x2)):
        if not points.is_floating_point():
            raise RuntimeError(
                f"cdist only supports floating-point dtypes, {name} got: {scalar_type_name(points.dtype)}"
            )
    if x1._data.shape[-1] != x2._data.shape[-1]:
        raise RuntimeError(
            f"X1 and X2 must have the same number of columns. X1: {x1._data.shape[-1]} X2: {x2._data.shape[-1]}"
        )
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if x1._data.dtype != x2._data.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(x1.dtype)} but found {scalar_type_name(x2.dtype)}")
    broadcast_shapes(x1._data.shape[:-2], x2._data.shape[:-2])
    difference = shape_ops.unsqueeze(x1, -2) - shape_ops.unsqueeze(x2, -3)
    return reduction.norm(difference, p, dim=-1)


# -- diagonals ------------------------------------------------------------------------------------
def _diagonal_view(array, offset: int, dim1: int, dim2: int):
    """``array[..., i, i + offset]`` over ``dim1, dim2`` as a view, the diagonal as the last dimension.

    NumPy returns diagonals read-only for backward compatibility only; PyTorch's are writable
    views, so the flag is lifted when ``array`` itself may be written.
    """
    view = array_module(array).diagonal(array, offset, dim1, dim2)
    flags = view.flags
    if not getattr(flags, "writeable", True) and getattr(array.flags, "writeable", False):
        flags.writeable = True
    return view


class Diagonal(Op):
    """``y[..., i] = x[..., i, i + offset]`` over dimensions ``dim1, dim2`` (a view; the diagonal comes last);
    ``dx = zeros like x`` with ``diagonal(dx) = grad``."""

    is_view = True

    @staticmethod
    def forward(ctx, x, offset, dim1, dim2):
        ctx.input_shape, ctx.where = x.shape, (offset, dim1, dim2)
        return _diagonal_view(x, offset, dim1, dim2)

    @staticmethod
    def backward(ctx, grad):
        return DiagEmbed.apply(grad, ctx.input_shape, *ctx.where), None, None, None


class DiagonalCopy(Diagonal):
    """``diag`` of a matrix: ``diagonal`` as a copy, as PyTorch's ``diag`` returns."""

    node_name = "DiagonalBackward0_copy"
    is_view = False

    @staticmethod
    def forward(ctx, x, offset, dim1, dim2):
        return Diagonal.forward(ctx, x, offset, dim1, dim2).copy()


class DiagEmbed(Op):
    """``y = zeros(shape)`` with ``diagonal(y, offset, dim1, dim2) = g``;  ``dg = diagonal(grad, offset, dim1, dim2)``.

    The adjoint of ``Diagonal``: each is the other's backward.
    """

    @staticmethod
    def forward(ctx, g, shape, offset, dim1, dim2):
        ctx.where = (offset, dim1, dim2)
        result = array_module(g).zeros(shape, dtype=g.dtype)
        _diagonal_view(result, offset, dim1, dim2)[...] = g
        return result

    @staticmethod
    def backward(ctx, grad):
        return Diagonal.apply(grad, *ctx.where), None, None, None, None


class DiagonalScatter(Op):
    """``y = x`` with ``diagonal(y, offset, dim1, dim2) = src``;
    ``dx = grad`` with its diagonal set to 0,  ``dsrc = diagonal(grad)``."""

    @staticmethod
    def forward(ctx, x, src, offset, dim1, dim2):
        ctx.where = (offset, dim1, dim2)
        result = x.copy()
        _diagonal_view(result, offset, dim1, dim2)[...] = src
        return result

    @staticmethod
    def backward(ctx, grad):
        grad_x = DiagonalScatter.apply(grad, 0.0, *ctx.where) if ctx.needs_input_grad[0] else None
        grad_src = Diagonal.apply(grad, *ctx.where) if ctx.needs_input_grad[1] else None
        return grad_x, grad_src, None, None, None


def _diagonal_dims(ndim: int, dim1: int, dim2: int) -> tuple:
    axis1, axis2 = wrap_dim(dim1, ndim), wrap_dim(dim2, ndim)
    if axis1 == axis2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return axis1, axis2


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal ``input[..., i, i + offset]`` of dimensions ``dim1, dim2``, as a view (moved to the end).

        >>> import minitorch
        >>> minitorch.arange(9).reshape(3, 3).diagonal(1)
        tensor([1, 5])
    """
    axis1, axis2 = _diagonal_dims(input._data.ndim, dim1, dim2)
    return Diagonal.apply(input, int(offset), axis1, axis2)


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """A tensor with ``input``'s last dimension on the diagonals of dimensions ``dim1, dim2`` (zeros elsewhere)."""
    ndim = input._data.ndim + 1
    axis1, axis2 = _diagonal_dims(ndim, dim1, dim2)
    size = input._data.shape[-1] + builtins.abs(int(offset))
    shape = list(input._data.shape[:-1])
    for axis in sorted((axis1, axis2)):
        shape.insert(axis, size)
    return DiagEmbed.apply(input, tuple(shape), int(offset), axis1, axis2)


def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    """A vector becomes a square matrix with it on the ``diagonal``-th diagonal; a matrix gives that diagonal
    (as a copy)."""
    ndim = input._data.ndim
    if ndim == 1:
        size = input._data.shape[0] + builtins.abs(int(diagonal))
        return DiagEmbed.apply(input, (size, size), int(diagonal), 0, 1)
    if ndim == 2:
        return DiagonalCopy.apply(input, int(diagonal), 0, 1)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {ndim}D")


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """A copy of ``input`` with ``src`` written on the diagonal that ``diagonal(input, offset, dim1, dim2)`` reads."""
    axis1, axis2 = _diagonal_dims(input._data.ndim, dim1, dim2)
    check_same_device(input, src)
    expected = array_module(input._data).diagonal(input._data, int(offset), axis1, axis2).shape
    if src._data.shape != expected:
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = {list(src._data.shape)}, slice size = "
            f"{list(expected)}"
        )
    return DiagonalScatter.apply(input, cast(src, input.dtype), int(offset), axis1, axis2)


def trace(input: Tensor) -> Tensor:
    """The sum of a matrix's diagonal (integers add up in int64, as ``sum``)."""
    if input._data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input._data.ndim}")
    if input._data.dtype == bool:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    return diagonal(input).sum()


# -- determinant and inverse -----------------------------------------------------------------------
def _check_square(input: Tensor, name: str) -> None:
    """PyTorch's checks for the ``linalg`` functions: float dtype, batches of square matrices."""
    if input._data.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if not input.is_floating_point():
        raise RuntimeError(
            f"{name}: Expected a floating point or complex tensor as input. Got {scalar_type_name(input.dtype)}"
        )
    rows, columns = input._data.shape[-2:]
    if rows != columns:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {rows} by {columns} matrices")


def _as_matrices(values: Tensor) -> Tensor:
    """A batch of numbers with two size-1 dimensions added, to scale a batch of matrices."""
    return shape_ops.unsqueeze(shape_ops.unsqueeze(values, -1), -1)


class Det(Op):
    """``y = det(A)`` (batched);  ``dA = grad * y * A^{-T}`` (Jacobi's formula).

    The formula needs the inverse, so a singular ``A`` has no gradient here (PyTorch goes
    through an SVD for that case).
    """

    node_name = "LinalgDetBackward0"

    @staticmethod
    def forward(ctx, a):
        result = array_module(a).asarray(array_module(a).linalg.det(a))
        ctx.save_for_backward(a, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, result = ctx.saved_tensors
        return _as_matrices(grad * result) * inverse(a).mT


class Inverse(Op):
    """``Y = A^{-1}`` (batched);  ``dA = -Y^T @ grad @ Y^T``  (from ``d(A Y) = 0``: ``dY = -Y dA Y``)."""

    node_name = "LinalgInvExBackward0"

    @staticmethod
    def forward(ctx, a):
        try:
            result = array_module(a).linalg.inv(a)
        except np.linalg.LinAlgError:
            raise RuntimeError(
                "linalg.inv: The input matrix is singular, the inversion could not be completed."
            ) from None
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        transposed = result.mT
        return -matmul(matmul(transposed, grad), transposed)


class Slogdet(Op):
    """``sign, log|det A| = slogdet(A)``;  ``dA = grad_logabsdet * A^{-T}`` (the sign is piecewise constant)."""

    node_name = "LinalgSlogdetBackward0"

    @staticmethod
    def forward(ctx, a):
        sign, logabsdet = array_module(a).linalg.slogdet(a)
        ctx.save_for_backward(a)
        xp = array_module(a)
        return xp.asarray(sign), xp.asarray(logabsdet)

    @staticmethod
    def backward(ctx, grad_sign, grad_logabsdet):
        (a,) = ctx.saved_tensors
        return _as_matrices(grad_logabsdet) * inverse(a).mT


def det(input: Tensor) -> Tensor:
    """The determinant of each square matrix in ``input`` (the last two dimensions)."""
    _check_square(input, "linalg.det")
    return Det.apply(input)


def inverse(input: Tensor) -> Tensor:
    """The inverse of each square matrix in ``input``.

        >>> import minitorch
        >>> minitorch.inverse(minitorch.tensor([[2.0, 0.0], [0.0, 4.0]]))
        tensor([[0.5000, 0.0000],
                [0.0000, 0.2500]])
    """
    _check_square(input, "linalg.inv")
    return Inverse.apply(input)


def slogdet(input: Tensor):
    """``(sign, logabsdet)`` with ``det = sign * exp(logabsdet)``: the determinant without overflow."""
    _check_square(input, "linalg.slogdet")
    return return_types.slogdet(*Slogdet.apply(input))


def logdet(input: Tensor) -> Tensor:
    """``log(det(input))``: NaN where the determinant is negative, ``-inf`` where it is 0."""
    _check_square(input, "logdet")
    sign, logabsdet = Slogdet.apply(input)
    return pointwise.where(sign == -1.0, float("nan"), logabsdet)


# -- matrices made from vectors, and covariance ----------------------------------------------------
def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    """The Vandermonde matrix ``out[i, j] = x[i] ** (N - 1 - j)`` (``x[i] ** j`` when ``increasing``).

    One broadcast power ``x[:, None] ** exponents[None, :]``, so the gradient is ``pow``'s;
    integer (and bool) inputs give int64, as in PyTorch.
    """
    if x._data.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    columns = x._data.shape[0] if N is None else int(N)
    if columns < 0:
        raise RuntimeError("N must be non-negative.")
    if not x.is_floating_point():
        x = cast(x, _dtype.int64)
    xp = x._xp
    exponents = xp.arange(columns, dtype=np.int64)
    exponents = Tensor._make(exponents if increasing else exponents[::-1].copy(), x._device)
    return pointwise.pow(shape_ops.unsqueeze(x, 1), exponents)


def _check_weights(weights: Tensor, name: str, kind: str, observations: int) -> None:
    if weights._data.ndim > 1:
        raise RuntimeError(
            f"cov(): expected {name} to have one or fewer dimensions but got {name} with {weights._data.ndim} "
            "dimensions"
        )
    integral = not weights.is_floating_point()
    if (kind == "integral") != integral:
        raise RuntimeError(
            f"cov(): expected {name} to have {kind} dtype but got {name} with {scalar_type_name(weights.dtype)} dtype"
        )
    if weights._data.size != observations:
        raise RuntimeError(
            f"cov(): expected {name} to have the same numel as there are observations in the input but got "
            f"{weights._data.size} != {observations}"
        )
    if weights._data.size and weights._data.min() < 0:
        raise RuntimeError(f"cov(): {name} cannot be negative")


def cov(input: Tensor, *, correction: int = 1, fweights: Tensor | None = None, aweights: Tensor | None = None):
    """The covariance matrix of the variables in the rows of ``input`` (observations in the columns).

    With weights ``w`` (``fweights * aweights``; all 1 by default) and ``N = sum(w)``::

        avg_i = sum_k w_k x_ik / N        c_ij = sum_k w_k (x_ik - avg_i)(x_jk - avg_j) / (N - correction)

    (with ``aweights`` the denominator is ``N - correction * sum(w * aweights) / N``). It is one
    matrix product of the centred rows, so the gradient comes from ``mm``. A single variable
    gives a 0-d result.
    """
    if input._data.ndim > 2:
        raise RuntimeError(
            f"cov(): expected input to have two or fewer dimensions but got an input with {input._data.ndim} dimensions"
        )
    if input._data.dtype == bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    rows = input if input._data.ndim == 2 else shape_ops.reshape(input, (1, -1))
    observations = rows._data.shape[1]
    weights = None
    if fweights is not None:
        _check_weights(fweights, "fweights", "integral", observations)
        weights = fweights
    if aweights is not None:
        _check_weights(aweights, "aweights", "floating point", observations)
        weights = aweights if weights is None else weights * aweights
    if weights is None:
        total = observations
        mean = rows.sum(1) / total
    else:
        total = weights.sum()
        if not bool((total._data != 0).all()):
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
        mean = (rows * weights).sum(1) / total
    if weights is not None and aweights is not None and correction != 0:
        degrees = total - correction * (weights * aweights).sum() / total
    else:
        degrees = total - correction
    if float(degrees if is_number(degrees) else degrees.item()) <= 0:
        warnings.warn(
            "cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of observations.",
            UserWarning, stacklevel=2,
        )
        degrees = degrees * 0
    centred = rows - shape_ops.unsqueeze(mean, 1)
    products = mm(centred, (centred if weights is None else centred * weights).t())
    return shape_ops.squeeze(pointwise.div(products, degrees))


def corrcoef(input: Tensor) -> Tensor:
    """Pearson correlation coefficients: ``cov(input)`` divided by ``std_i * std_j``, clipped to ``[-1, 1]``."""
    if input._data.ndim > 2:
        raise RuntimeError(
            "corrcoef(): expected input to have two or fewer dimensions but got an input with "
            f"{input._data.ndim} dimensions"
        )
    covariance = cov(input)
    if covariance._data.ndim == 0:
        return covariance / covariance
    deviations = pointwise.sqrt(diagonal(covariance))
    correlation = covariance / shape_ops.reshape(deviations, (-1, 1)) / shape_ops.reshape(deviations, (1, -1))
    return pointwise.clamp(correlation, -1, 1)
