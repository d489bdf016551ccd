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

At the end: ``tensordot``, ``matrix_power``, ``pdist``, and the decompositions (``qr``, ``svd``,
``eigh``, ``cholesky``) with ``solve``, ``pinv`` and ``matrix_exp``, whose backward formulas are
written in Tensor ops as well, so second derivatives work.
"""

from __future__ import annotations

import builtins
import string
import warnings

import numpy as np

from .. import _autocast_state, _dtype, _messages, return_types
from .._tensor_base import TensorBase as Tensor  # isinstance and _make; the class sits above the ops
from ..autograd.function import Op
from . import pointwise, reduction, shape as shape_ops
from ._reduced_precision import computes_in_float32
from ._util import array_module, broadcast_shapes, cast, check_broadcastable, check_same_device, is_number, wrap_dim
from .indexing import Index, tril
from .inplace import Copy


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
        product = array_module(a).matmul(a, b).astype(a.dtype, copy=False)  # bfloat16's product is float32: round
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


def _check_products(a: Tensor, b: Tensor) -> None:
    if not (isinstance(a, Tensor) and isinstance(b, Tensor)):
        offending = b if isinstance(a, Tensor) else a
        raise TypeError(f"matmul(): argument 'other' (position 1) must be Tensor, not {type(offending).__name__}")
    check_same_device(a, b)
    if a._data.dtype == bool:
        raise NotImplementedError(_messages.not_implemented_for("addmm_impl_cpu_", _dtype.bool))


def _mm_checks(a: Tensor, b: Tensor, rows_a: int, inner_a: int) -> None:
    """Checks of a product PyTorch computes with ``mm`` (``a`` seen as ``rows_a x inner_a``)."""
    if inner_a != b._data.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows_a}x{inner_a} and {b._data.shape[0]}x{b._data.shape[1]})"
        )
    if a._data.dtype != b._data.dtype and not _autocast_state.casts_inputs():  # (autocast casts them first)
        raise RuntimeError(_messages.m1_m2_dtypes(a.dtype, b.dtype))


def _mv_checks(a: Tensor, b: Tensor, rows_a: int, inner_a: int) -> None:
    """Checks of a product PyTorch computes with ``mv`` (``a`` seen as ``rows_a x inner_a``)."""
    if inner_a != b._data.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({rows_a}), mat ({rows_a}x{inner_a}), vec ({b._data.shape[0]})")
    if a._data.dtype != b._data.dtype:
        vector, matrix = b.dtype.type_name, a.dtype.type_name
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
            f"dot : expected both vectors to have same dtype, but found {a.dtype.type_name} and "
            f"{b.dtype.type_name}"
        )


def matmul(input: Tensor, other: Tensor) -> Tensor:
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
    _check_products(input, other)
    ndim_a, ndim_b = input._data.ndim, other._data.ndim
    shape_a, shape_b = input._data.shape, other._data.shape
    if ndim_a == 0 or ndim_b == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {ndim_a}D and {ndim_b}D")
    if ndim_a == 1 and ndim_b == 1:
        _dot_checks(input, other)
        return Dot.apply(input, other)
    if ndim_b == 1:  # matrix (or a batch folded into one tall matrix) times a vector
        rows = shape_a[-2] if ndim_a == 2 else _numel(shape_a[:-1])
        _mv_checks(input, other, rows, shape_a[-1])
        return (Mv if ndim_a == 2 else MatMul).apply(input, other)
    if ndim_b == 2 and ndim_a <= 2 or ndim_b == 2 and ndim_a >= 3:  # PyTorch folds these into one mm
        rows = 1 if ndim_a == 1 else _numel(shape_a[:-1])
        _mm_checks(input, other, rows, shape_a[-1])
        return (Mm if ndim_a == 2 else MatMul).apply(input, other)
    # batched: broadcast the batch dimensions, then each pair of matrices must fit (PyTorch's bmm)
    batch = broadcast_shapes(shape_a[:-2], shape_b[:-2])
    inner_a = shape_a[-1]
    if inner_a != shape_b[-2]:
        count = _numel(batch)
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{count}, {inner_a}] but got: "
            f"[{count}, {shape_b[-2]}]."
        )
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(
            _messages.expected_scalar_type(input.dtype, other.dtype)
        )
    same_batch = ndim_a == 3 and ndim_b == 3 and shape_a[0] == shape_b[0]
    return (Bmm if same_batch else MatMul).apply(input, other)


def _numel(shape) -> int:
    count = 1
    for extent in shape:
        count *= extent
    return count


def mm(input: Tensor, mat2: Tensor) -> Tensor:
    """The product of two matrices (no broadcasting; see ``matmul`` for that)."""
    _check_products(input, mat2)
    if input._data.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2._data.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    _mm_checks(input, mat2, input._data.shape[0], input._data.shape[1])
    return Mm.apply(input, mat2)


def bmm(input: Tensor, mat2: Tensor) -> Tensor:
    """``out[n] = a[n] @ b[n]`` for two batches of matrices of the same length (no broadcasting)."""
    _check_products(input, mat2)
    if input._data.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2._data.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    (count, _, inner), (count_b, inner_b, _) = input._data.shape, mat2._data.shape
    if (count_b, inner_b) != (count, inner):
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{count}, {inner}] but got: "
            f"[{count_b}, {inner_b}]."
        )
    if input._data.dtype != mat2._data.dtype:
        raise RuntimeError(
            _messages.expected_scalar_type(input.dtype, mat2.dtype)
        )
    return Bmm.apply(input, mat2)


def mv(input: Tensor, vec: Tensor) -> Tensor:
    """The product of a matrix and a vector."""
    _check_products(input, vec)
    if input._data.ndim != 2 or vec._data.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input._data.ndim}, {vec._data.ndim}")
    _mv_checks(input, vec, input._data.shape[0], input._data.shape[1])
    return Mv.apply(input, vec)


def dot(input: Tensor, tensor: Tensor) -> Tensor:
    """``sum_i a_i b_i`` for two vectors of the same length (a 0-d tensor)."""
    _check_products(input, tensor)
    if input._data.ndim != 1 or tensor._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input._data.ndim}D and {tensor._data.ndim}D tensors")
    _dot_checks(input, tensor)
    return Dot.apply(input, tensor)


def outer(input: Tensor, vec2: Tensor) -> Tensor:
    """``out[i, j] = a[i] * b[j]``: a column times a row, by broadcasting (types promote as for ``*``)."""
    for name, vector in (("self", input), ("vec2", vec2)):
        if vector._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {vector._data.ndim}-D")
    return input.reshape(-1, 1) * vec2


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
        wide = [o.astype(_dtype.ACCUMULATE_IN.get(o.dtype, o.dtype), copy=False) for o in operands]  # bf16: float32
        result = xp.asarray(xp.einsum(equation, *wide, optimize=optimize)).astype(operands[0].dtype, copy=False)
        if result.flags.c_contiguous or any(xp.may_share_memory(result, operand) for operand in operands):
            return result  # a view of an operand (a transpose, a diagonal), as PyTorch's einsum gives one too
        # a computed result row-major, as PyTorch's is (NumPy may hand back a transposed view of its work array)
        return result.copy(order="C")

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
                _messages.expected_scalar_type(first.dtype, operand.dtype)
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
            f"self and {other_name} must have the same dtype, but got {input.dtype.type_name} and "
            f"{other.dtype.type_name}"
        )


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)``, ``input`` broadcast to the product's shape (a linear layer's form).

        >>> import minitorch
        >>> minitorch.addmm(minitorch.ones(2, 2), minitorch.eye(2), minitorch.eye(2), beta=0.5).tolist()
        [[1.5, 0.5], [0.5, 1.5]]
    """
    _check_matrix(mat1, "mat1")
    _check_matrix(mat2, "mat2")
    if not _autocast_state.casts_inputs():  # (autocast casts them to one dtype first)
        _check_input_dtype(input, mat2, "mat2")
    if mat1._data.shape[1] != mat2._data.shape[0] or mat1._data.dtype != mat2._data.dtype:
        mm(mat1, mat2)  # raises PyTorch's error for the product
    product_shape = (mat1._data.shape[0], mat2._data.shape[1])
    if not _broadcasts_to(input._data.shape, product_shape):
        shape_ops.expand(input, product_shape)  # raises PyTorch's error for an input that does not fit
    return Addmm.apply(input, mat1, mat2, beta, alpha)


def _broadcasts_to(shape, target) -> bool:
    try:
        return np.broadcast_shapes(shape, target) == tuple(target)
    except ValueError:
        return False


class Addmm(Op):
    """``y = beta * input + alpha * (m1 @ m2)`` as one op, as PyTorch records it (``AddmmBackward0``);
    ``dinput = beta * grad`` (summed back to ``input``'s shape by the engine), ``dm1 = alpha * grad @ m2^T``,
    ``dm2 = alpha * m1^T @ grad``. With ``beta = 0`` the input is ignored, NaNs and all (PyTorch's rule)."""

    @staticmethod
    @computes_in_float32  # bfloat16, float16: the products and the sum in float32, rounded once (PyTorch's kernel)
    def forward(ctx, input, mat1, mat2, beta, alpha):
        ctx.save_for_backward(mat1, mat2)
        ctx.beta, ctx.alpha = beta, alpha
        product = mat1 @ mat2  # a bfloat16 product comes back float32: added in float32 and rounded once, as PyTorch
        if alpha != 1:
            product = product * alpha
        result = product if beta == 0 else (input if beta == 1 else input * beta) + product
        return result.astype(np.result_type(input.dtype, mat1.dtype, mat2.dtype), copy=False)

    @staticmethod
    def backward(ctx, grad):
        # (bfloat16, float16: forward kept float32 copies, holding the same values; the products take grad's dtype)
        mat1, mat2 = (cast(saved, grad.dtype) for saved in ctx.saved_tensors)
        scaled = grad * ctx.alpha if ctx.alpha != 1 else grad
        grad_input = (grad * ctx.beta if ctx.beta != 1 else grad) if ctx.needs_input_grad[0] else None
        grad_mat1 = scaled @ mat2.transpose(-2, -1) if ctx.needs_input_grad[1] else None
        grad_mat2 = mat1.transpose(-2, -1) @ scaled if ctx.needs_input_grad[2] else None
        return grad_input, grad_mat1, grad_mat2, None, None


class Baddbmm(Addmm):
    """``y[n] = beta * input[n] + alpha * (b1[n] @ b2[n])`` as one op: ``Addmm`` on batches of matrices. Used for
    bfloat16 and float16, which PyTorch's kernel computes in float32 and rounds once."""


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
    if _autocast_state.casts_inputs():  # on PyTorch's CUDA list (lower precision)
        input, mat, vec = _autocast_state.cast_inputs("lower_precision_fp", ("cuda",), input, mat, vec)
    product = mv(mat, vec)
    return _scaled_sum(shape_ops.expand(input, product.shape), beta, product, alpha)


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """``beta * input + alpha * (batch1[n] @ batch2[n])`` for each ``n``."""
    if _autocast_state.casts_inputs():  # on PyTorch's lists (lower precision)
        input, batch1, batch2 = _autocast_state.cast_inputs("lower_precision_fp", ("cpu", "cuda"), input, batch1,
                                                            batch2)
    if _reduced(input, batch1, batch2) and input._data.dtype == batch1._data.dtype == batch2._data.dtype:
        product_shape = batch1._data.shape[:2] + batch2._data.shape[2:]
        bmm(batch1, batch2)  # (raises PyTorch's error for shapes that do not fit)
        return Baddbmm.apply(shape_ops.expand(input, product_shape), batch1, batch2, beta, alpha)
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
    if _autocast_state.casts_inputs():  # on PyTorch's lists (lower precision)
        input, batch1, batch2 = _autocast_state.cast_inputs("lower_precision_fp", ("cpu", "cuda"), input, batch1,
                                                            batch2)
    if _reduced(input, batch1, batch2) and batch1._data.shape[0]:
        # bfloat16, float16: PyTorch adds one product at a time (an addmm each), rounding the running sum each time
        for index in range(batch1._data.shape[0]):
            input = addmm(input, batch1[index], batch2[index], beta=beta if index == 0 else 1, alpha=alpha)
        return input
    product = bmm(batch1, batch2).sum(0)
    return _scaled_sum(shape_ops.expand(input, product.shape), beta, product, alpha)


def addcmul(input: Tensor, tensor1, tensor2, *, value=1) -> Tensor:
    """``input + value * tensor1 * tensor2`` (broadcast; the out-of-place form of ``addcmul_``)."""
    if _reduced(input, tensor1, tensor2):
        # bfloat16, float16: PyTorch's kernel computes fma(value * tensor1, tensor2, input) in float32 and rounds
        # once; float64 holds that product exactly, so only the final roundings remain
        scaled = pointwise.mul(tensor1.float(), value).double()
        return pointwise.add(input.double(), pointwise.mul(scaled, tensor2.double())).float().to(input.dtype)
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
    if _reduced(input, tensor1, tensor2):  # bfloat16, float16: in float32, rounded once, as PyTorch's kernel
        return addcdiv(input.float(), tensor1.float(), tensor2.float(), value=value).to(input.dtype)
    return pointwise.add(input, pointwise.div(tensor1, tensor2), alpha=value)


def _reduced(*tensors) -> bool:
    """Whether the result of ``addcmul``/``addcdiv`` of ``tensors`` is bfloat16 or float16."""
    return all(isinstance(t, Tensor) for t in tensors) and _dtype.result_type(*tensors) in (
        _dtype.bfloat16, _dtype.float16)


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
            _messages.expected_scalar_type(input.dtype, other.dtype)
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
    difference_dtype = _dtype.result_type(input, other)
    if not difference_dtype.is_floating_point:
        raise RuntimeError(
            f"norm(): input dtype should be either floating point or complex. Got {difference_dtype.type_name} "
            "instead."
        )
    if isinstance(input, Tensor) and isinstance(other, Tensor) and input.dtype == other.dtype:
        check_same_device(input, other)
        check_broadcastable(input, other)
        return reduction.Dist.apply(input, other, float(p))  # one node: grad_fn=<DistBackward0>
    return reduction.norm(pointwise.sub(input, other), p)


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """``out[..., i, j] = ||x1[..., i, :] - x2[..., j, :]||_p``: every distance between two sets of points.

    Computed as the norm of the broadcast difference ``x1[..., :, None, :] - x2[..., None, :, :]``,
    so the gradient is ``norm``'s (0 where two points coincide, like PyTorch's). PyTorch switches
    to a matrix-product formula for ``p = 2`` with more than 25 points; that one is faster but
    loses precision for nearby points, which is why this readable version keeps the difference.
    """
    if _autocast_state.casts_inputs():  # on PyTorch's lists (float32)
        x1, x2 = _autocast_state.cast_inputs("float32", ("cpu", "cuda"), x1, x2)
    for name, points in (("X1", x1), ("X2", x2)):
        if points._data.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {points._data.ndim}D")
    for name, points in (("X1", x1), ("X2", x2)):
        if not points.is_floating_point():
            raise RuntimeError(
                f"cdist only supports floating-point dtypes, {name} got: {points.dtype.type_name}"
            )
    if x1._data.shape[-1] != x2._data.shape[-1]:
        raise RuntimeError(
            f"X1 and X2 must have the same number of columns. X1: {x1._data.shape[-1]} X2: {x2._data.shape[-1]}"
        )
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if x1._data.dtype != x2._data.dtype:
        raise RuntimeError(_messages.expected_scalar_type(x1.dtype, x2.dtype))
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
        raise NotImplementedError(_messages.not_implemented_for("trace", _dtype.bool))
    if _autocast_state.casts_inputs():  # on PyTorch's CPU list (float32)
        (input,) = _autocast_state.cast_inputs("float32", ("cpu",), input)
    return diagonal(input).sum()


# -- determinant and inverse -----------------------------------------------------------------------
def _check_square(input: Tensor, name: str) -> None:
    """PyTorch's checks for the ``linalg`` functions: float dtype, batches of square matrices."""
    if input._data.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if not input.is_floating_point():
        raise RuntimeError(
            f"{name}: Expected a floating point or complex tensor as input. Got {input.dtype.type_name}"
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
            f"cov(): expected {name} to have {kind} dtype but got {name} with {weights.dtype.type_name} dtype"
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


# -- more products ---------------------------------------------------------------------------------
def vdot(input: Tensor, other: Tensor) -> Tensor:
    """``sum_i conj(a_i) b_i``: for real vectors (all minitorch has) it is ``dot``."""
    _check_products(input, other)
    if input._data.ndim != 1 or other._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input._data.ndim}D and {other._data.ndim}D tensors")
    _dot_checks(input, other)
    return Vdot.apply(input, other)


class Vdot(MatMul):
    """``y = sum_i a_i b_i`` (real vectors);  ``da = grad * b``,  ``db = grad * a``."""

    node_name = "VdotBackward0"


def _dim_list(dims) -> list:
    return [int(dims)] if isinstance(dims, int) else [int(d) for d in dims]


def tensordot(a: Tensor, b: Tensor, dims=2) -> Tensor:
    """Sum the products of ``a`` and ``b`` over the pairs of dimensions ``dims`` names.

    ``dims = k`` pairs the last ``k`` dimensions of ``a`` with the first ``k`` of ``b``;
    ``dims = ([1, 0], [0, 2])`` names the pairs. Moving the contracted dimensions of ``a``
    to the end and those of ``b`` to the front makes it one matrix product::

        out[i..., j...] = sum_k a[i..., k...] * b[k..., j...]

        >>> import minitorch
        >>> minitorch.tensordot(minitorch.ones(2, 3, 4), minitorch.ones(3, 4, 5)).shape
        minitorch.Size([2, 5])
    """
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, (list, tuple)):
        dims_a, dims_b = (_dim_list(d) for d in dims)
    else:
        count = int(dims)
        if count < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if count > builtins.min(a._data.ndim, b._data.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(-count, 0)), list(range(count))
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError("both inputs should have same dtype")
    check_same_device(a, b)
    axes_a = [wrap_dim(d, a._data.ndim) for d in dims_a]
    axes_b = [wrap_dim(d, b._data.ndim) for d in dims_b]
    for given_a, given_b, axis_a, axis_b in zip(dims_a, dims_b, axes_a, axes_b):
        size_a, size_b = a._data.shape[axis_a], b._data.shape[axis_b]
        if size_a != size_b:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {size_a} in dim {given_a} and second has "
                f"size {size_b} in dim {given_b}"
            )
    free_a = [axis for axis in range(a._data.ndim) if axis not in axes_a]
    free_b = [axis for axis in range(b._data.ndim) if axis not in axes_b]
    contracted = _numel(a._data.shape[axis] for axis in axes_a)
    rows = shape_ops.reshape(shape_ops.permute(a, free_a + axes_a), (-1, contracted))
    columns = shape_ops.reshape(shape_ops.permute(b, axes_b + free_b), (contracted, -1))
    shape = tuple(a._data.shape[axis] for axis in free_a) + tuple(b._data.shape[axis] for axis in free_b)
    return shape_ops.reshape(mm(rows, columns), shape)


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """A square matrix with the flattened ``input`` on its ``offset``-th diagonal, zeros elsewhere."""
    flat = shape_ops.reshape(input, (-1,))
    size = flat._data.shape[0] + builtins.abs(int(offset))
    return DiagEmbed.apply(flat, (size, size), int(offset), 0, 1)


def matrix_power(input: Tensor, n: int) -> Tensor:
    """``A^n`` for each square matrix: ``n`` products by repeated squaring (``A^13 = A^8 A^4 A``);
    ``A^0 = I``; a negative ``n`` is ``(A^{-1})^{|n|}``. The gradient comes from ``matmul`` and ``inverse``."""
    if input._data.ndim < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 dimensions.")
    rows, columns = input._data.shape[-2:]
    if rows != columns:
        raise RuntimeError(
            f"linalg.matrix_power: A must be batches of square matrices, but they are {rows} by {columns} matrices"
        )
    n = int(n)
    if n == 0:  # the identity, connected to the input with a zero gradient (PyTorch's copy)
        return Copy.apply(input, input._xp.eye(rows, dtype=input._data.dtype))
    if n < 0:
        input, n = inverse(input), -n
    if n == 1:  # a copy, never the input itself (writing to the result must not change A)
        return shape_ops.clone(input)
    result, square = None, input
    while n:
        if n & 1:
            result = square if result is None else matmul(result, square)
        n >>= 1
        if n:
            square = matmul(square, square)
    return result


# -- distances between the rows of one matrix ----------------------------------------------------
def pdist(input: Tensor, p: float = 2) -> Tensor:
    """``||x_i - x_j||_p`` for every pair of rows ``i < j``, in row-major order: the upper triangle of
    ``cdist(input, input)`` without its diagonal, as a vector. Its gradient is ``norm``'s."""
    if input._data.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input._data.ndim}D")
    if not input.is_floating_point():
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    first, second = (shape_ops._on_device(i, input) for i in np.triu_indices(input._data.shape[0], 1))
    difference = Index.apply(input, (first, Ellipsis)) - Index.apply(input, (second, Ellipsis))
    return reduction.norm(difference, p, dim=-1)


# -- decompositions: QR, SVD, eigh, Cholesky -----------------------------------------------------------
# Each backward below is the classic matrix-calculus result, written with Tensor ops (so it can be
# differentiated again). They assume what makes the decomposition smooth: full rank for QR and
# Cholesky, distinct singular values or eigenvalues for SVD and eigh (with repeated ones the
# factors are not unique and the formulas divide by zero, as PyTorch's do).
def _check_matrices(input: Tensor, name: str) -> None:
    """PyTorch's checks for a ``linalg`` function of any (batch of) matrices: 2+ dimensions, a float dtype."""
    if input._data.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if not input.is_floating_point():
        raise RuntimeError(
            f"{name}: Expected a floating point or complex tensor as input. Got {input.dtype.type_name}"
        )


def _eye_like(x: Tensor, size: int) -> Tensor:
    """A ``size x size`` identity with ``x``'s dtype and device (a constant)."""
    return Tensor._make(x._xp.eye(size, dtype=x._data.dtype), x._device)


def _copy_lower_to_upper(m: Tensor) -> Tensor:
    """``tril(m)`` mirrored: the strictly lower triangle copied above the diagonal."""
    return tril(m) + tril(m, -1).mT


class Qr(Op):
    """``Q, R = qr(A)``: ``A = QR``, ``Q^T Q = I``, ``R`` upper triangular (reduced: ``k = min(m, n)`` columns of Q).

    For ``m >= n`` (Liao et al. 2019, the standard result)::

        M = R gR^T - gQ^T Q            dA = (gQ + Q copyltu(M)) R^{-T}

    where ``copyltu`` mirrors the lower triangle upwards. For ``m < n`` split ``A = [X | Y]``,
    ``R = [U | V]`` with ``X = QU`` square: ``dY = Q gV`` and ``dX`` is the square case with
    ``gQ + Y gV^T`` in place of ``gQ``.
    """

    node_name = "LinalgQrBackward0"

    @staticmethod
    def forward(ctx, a, mode):
        ctx.mode = mode
        ctx.set_materialize_grads(False)
        q, r = array_module(a).linalg.qr(a, mode="complete" if mode == "complete" else "reduced")
        ctx.save_for_backward(a, q, r)
        return q, r

    @staticmethod
    def backward(ctx, grad_q, grad_r):
        a, q, r = ctx.saved_tensors
        rows, columns = a.shape[-2:]
        if ctx.mode == "r":
            raise RuntimeError(
                "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
                "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr."
            )
        if ctx.mode == "complete" and rows > columns:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
        grad_q = grad_q if grad_q is not None else q * 0
        grad_r = grad_r if grad_r is not None else r * 0
        if rows >= columns:
            return _qr_square_backward(q, r, grad_q, grad_r), None
        right, grad_right = a[..., rows:], grad_r[..., rows:]
        grad_left = _qr_square_backward(q, r[..., :rows], grad_q + matmul(right, grad_right.mT), grad_r[..., :rows])
        return shape_ops.cat([grad_left, matmul(q, grad_right)], -1), None


def _qr_square_backward(q: Tensor, r: Tensor, grad_q: Tensor, grad_r: Tensor) -> Tensor:
    """``dA = (gQ + Q copyltu(R gR^T - gQ^T Q)) R^{-T}`` (see ``Qr``)."""
    m = matmul(r, grad_r.mT) - matmul(grad_q.mT, q)
    return matmul(grad_q + matmul(q, _copy_lower_to_upper(m)), inverse(r).mT)


def linalg_qr(A: Tensor, mode: str = "reduced"):
    """``(Q, R)`` with ``A = QR``: orthonormal columns in ``Q``, ``R`` upper triangular.

    ``mode="reduced"`` keeps ``k = min(m, n)`` columns of ``Q``; ``"complete"`` all ``m``;
    ``"r"`` computes ``R`` only (``Q`` is empty).
    """
    _check_matrices(A, "linalg.qr")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or 'complete'"
        )
    q, r = Qr.apply(A, mode)
    if mode == "r":
        q = Tensor._make(A._xp.zeros(0, dtype=A._data.dtype), A._device)
    return return_types.linalg_qr(q, r)


def qr(input: Tensor, some: bool = True):
    """``torch.qr``, deprecated: ``linalg.qr`` with ``some=False`` meaning ``mode="complete"``."""
    warnings.warn(
        "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch release.\nThe "
        "boolean parameter 'some' has been replaced with a string parameter 'mode'.\nQ, R = torch.qr(A, some)\n"
        "should be replaced with\nQ, R = torch.linalg.qr(A, 'reduced' if some else 'complete')",
        UserWarning, stacklevel=2,
    )
    Q, R = linalg_qr(input, "reduced" if some else "complete")
    return return_types.qr(Q, R)


class Svd(Op):
    """``U, S, Vh = svd(A)``: ``A = U diag(S) Vh`` with orthonormal columns in ``U`` and rows in ``Vh``.

    With ``E_jk = S_k^2 - S_j^2`` (1 on the diagonal), ``skew(X) = X - X^T`` and ``V = Vh^T``::

        dA = U [ (skew(U^T gU) S + S skew(V^T gV)) / E + diag(gS) ] V^T
             + (I - U U^T) gU S^{-1} V^T  +  U S^{-1} gV^T (I - V V^T)

    (the last two terms matter only for non-square ``A``). With ``full_matrices`` only the
    first ``k`` columns of ``U`` and rows of ``Vh`` carry a gradient, as in PyTorch.
    """

    node_name = "LinalgSvdBackward0"

    @staticmethod
    def forward(ctx, a, full_matrices):
        ctx.set_materialize_grads(False)
        u, s, vh = array_module(a).linalg.svd(a, full_matrices=full_matrices)
        ctx.save_for_backward(u, s, vh)
        return u, s, vh

    @staticmethod
    def backward(ctx, grad_u, grad_s, grad_vh):
        u, s, vh = ctx.saved_tensors
        k = s.shape[-1]
        u, vh = u[..., :k], vh[..., :k, :]
        grad_u = None if grad_u is None else grad_u[..., :k]
        grad_v = None if grad_vh is None else grad_vh[..., :k, :].mT
        rows, columns = u.shape[-2], vh.shape[-1]
        if grad_u is None and grad_v is None:
            return matmul(u * shape_ops.unsqueeze(grad_s, -2), vh), None
        squares = s * s
        gaps = shape_ops.unsqueeze(squares, -2) - shape_ops.unsqueeze(squares, -1) + _eye_like(s, k)
        inner = 0
        if grad_u is not None:
            u_grad_u = matmul(u.mT, grad_u)
            inner = (u_grad_u - u_grad_u.mT) * shape_ops.unsqueeze(s, -2)
        if grad_v is not None:
            v_grad_v = matmul(vh, grad_v)
            inner = inner + shape_ops.unsqueeze(s, -1) * (v_grad_v - v_grad_v.mT)
        inner = inner / gaps
        if grad_s is not None:
            inner = inner + diag_embed(grad_s)
        if rows > k and grad_u is not None:  # the part of gU outside U's columns
            scaled = grad_u / shape_ops.unsqueeze(s, -2)
            return matmul(matmul(u, inner) + scaled - matmul(u, matmul(u.mT, scaled)), vh), None
        if columns > k and grad_v is not None:  # the part of gV outside V's columns
            scaled = grad_v.mT / shape_ops.unsqueeze(s, -1)
            return matmul(u, matmul(inner, vh) + scaled - matmul(matmul(scaled, vh.mT), vh)), None
        return matmul(matmul(u, inner), vh), None


def linalg_svd(A: Tensor, full_matrices: bool = True):
    """``(U, S, Vh)`` with ``A = U diag(S) Vh``, singular values ``S`` in descending order.

        >>> import minitorch
        >>> minitorch.linalg.svd(minitorch.tensor([[3.0, 0.0], [0.0, -4.0]])).S
        tensor([4., 3.])
    """
    _check_matrices(A, "linalg.svd")
    return return_types.linalg_svd(*Svd.apply(A, bool(full_matrices)))


def svdvals(A: Tensor) -> Tensor:
    """The singular values of each matrix, in descending order;  ``dA = U diag(gS) V^T``."""
    _check_matrices(A, "linalg.svd")
    return Svd.apply(A, False)[1]


def svd(input: Tensor, some: bool = True, compute_uv: bool = True):
    """``torch.svd``: ``(U, S, V)`` with ``A = U diag(S) V^T`` (``V``, not ``Vh``); ``some=False`` gives square
    ``U`` and ``V``; without ``compute_uv`` they are zeros."""
    _check_matrices(input, "linalg.svd")
    if not compute_uv:
        rows, columns = input._data.shape[-2:]
        batch, xp = input._data.shape[:-2], input._xp

        def zeros(size):
            return Tensor._make(xp.zeros(batch + (size, size), dtype=input._data.dtype), input._device)

        return return_types.svd(zeros(rows), svdvals(input), zeros(columns))
    U, S, Vh = Svd.apply(input, not some)
    return return_types.svd(U, S, Vh.mT.contiguous())  # PyTorch's V is row-major, not a transposed view


class Eigh(Op):
    """``L, V = eigh(A)`` for symmetric ``A = V diag(L) V^T`` (eigenvalues ascending; one triangle is read).

    With ``E_ij = L_j - L_i`` (1 on the diagonal), the gradient, made symmetric as ``A`` is::

        dA = V ( diag(gL) + skew(V^T gV) / (2 E) ) V^T
    """

    node_name = "LinalgEighBackward0"

    @staticmethod
    def forward(ctx, a, triangle):
        ctx.set_materialize_grads(False)
        values, vectors = array_module(a).linalg.eigh(a, UPLO=triangle)
        ctx.save_for_backward(values, vectors)
        return values, vectors

    @staticmethod
    def backward(ctx, grad_values, grad_vectors):
        values, vectors = ctx.saved_tensors
        inner = 0
        if grad_vectors is not None:
            size = values.shape[-1]
            gaps = shape_ops.unsqueeze(values, -2) - shape_ops.unsqueeze(values, -1) + _eye_like(values, size)
            v_grad_v = matmul(vectors.mT, grad_vectors)
            inner = (v_grad_v - v_grad_v.mT) / (gaps * 2)
        if grad_values is not None:
            inner = inner + diag_embed(grad_values)
        return matmul(matmul(vectors, inner), vectors.mT), None


def _check_triangle_name(UPLO: str) -> str:
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return UPLO


def _check_symmetric_input(A: Tensor, name: str) -> None:
    if A._data.ndim >= 2 and not A.is_floating_point():
        raise NotImplementedError(_messages.not_implemented_for("linalg_eigh_cpu", A.dtype))
    _check_square(A, name)


def eigh(A: Tensor, UPLO: str = "L"):
    """``(eigenvalues, eigenvectors)`` of symmetric matrices, eigenvalues ascending; only the ``UPLO`` triangle
    (lower by default) of ``A`` is read."""
    _check_symmetric_input(A, "linalg.eigh")
    return return_types.linalg_eigh(*Eigh.apply(A, _check_triangle_name(UPLO)))


def eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:
    """The eigenvalues of symmetric matrices, ascending;  ``dA = V diag(gL) V^T``."""
    _check_symmetric_input(A, "linalg.eigvalsh")
    return Eigh.apply(A, _check_triangle_name(UPLO))[0]


class Cholesky(Op):
    """``L = cholesky(A)``: ``A = L L^T``, ``L`` lower triangular (``A`` symmetric positive-definite).

    With ``phi(X)`` = the lower triangle of ``X`` with its diagonal halved::

        dA = sym( L^{-T} phi(L^T gL) L^{-1} ),   sym(X) = (X + X^T) / 2
    """

    node_name = "LinalgCholeskyExBackward0"

    @staticmethod
    def forward(ctx, a):
        try:
            lower = array_module(a).linalg.cholesky(a)
        except np.linalg.LinAlgError:
            raise RuntimeError(
                "linalg.cholesky: The factorization could not be completed because the input is not positive-definite."
            ) from None
        ctx.save_for_backward(lower)
        return lower

    @staticmethod
    def backward(ctx, grad):
        (lower,) = ctx.saved_tensors
        phi = tril(matmul(lower.mT, grad))
        phi = phi - diag_embed(diagonal(phi, 0, -2, -1)) * 0.5
        lower_inverse = inverse(lower)
        gradient = matmul(matmul(lower_inverse.mT, phi), lower_inverse)
        return (gradient + gradient.mT) * 0.5


def linalg_cholesky(A: Tensor, *, upper: bool = False) -> Tensor:
    """The Cholesky factor ``L`` of each symmetric positive-definite matrix, ``A = L L^T`` (``U = L^T`` when
    ``upper``); only the lower triangle of ``A`` is read."""
    _check_square(A, "linalg.cholesky")
    lower = Cholesky.apply(A)
    return lower.mT if upper else lower


def cholesky(input: Tensor, upper: bool = False) -> Tensor:
    """``torch.cholesky``, deprecated in favour of ``linalg.cholesky`` (and it says so)."""
    warnings.warn(
        "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future PyTorch "
        "release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\nand\nU = "
        "torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\nThis transform "
        "will produce equivalent results for all valid (symmetric positive definite) inputs.",
        UserWarning, stacklevel=2,
    )
    return linalg_cholesky(input, upper=upper)


# -- solving, the pseudo-inverse, rank --------------------------------------------------------------------
class Solve(Op):
    """``X = A^{-1} B`` (one LU solve, batches broadcast);  ``dB = A^{-T} gX`` (one more solve),  ``dA = -dB X^T``."""

    node_name = "LinalgSolveExBackward0"

    @staticmethod
    def forward(ctx, a, b):
        try:
            result = array_module(a).linalg.solve(a, b)
        except np.linalg.LinAlgError:
            raise RuntimeError("torch.linalg.solve: The solver failed because the input matrix is singular.") from None
        ctx.save_for_backward(a, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, result = ctx.saved_tensors
        grad_b = Solve.apply(a.mT, grad)
        grad_a = -matmul(grad_b, result.mT) if ctx.needs_input_grad[0] else None
        return grad_a, grad_b if ctx.needs_input_grad[1] else None


def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    """``X`` with ``A X = B`` (``X A = B`` when not ``left``), without forming ``A^{-1}``.

    ``B`` is a batch of vectors when it is 1-D or has ``A``'s shape without the last dimension;
    otherwise a batch of matrices. Batch dimensions broadcast.
    """
    _check_square(A, "linalg.solve")
    check_same_device(A, B)
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(
            f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
            f"{A.dtype.type_name} and B of type {B.dtype.type_name} instead"
        )
    vector = B._data.ndim == 1 or (B._data.ndim == A._data.ndim - 1 and B._data.shape == A._data.shape[:-1])
    columns = shape_ops.unsqueeze(B, -1) if vector else B
    size = A._data.shape[-1]
    rows, count = columns._data.shape[-2:]
    if (rows if left else count) != size:
        raise RuntimeError(
            f"linalg.solve: Incompatible shapes of A and B for the equation {'AX' if left else 'XA'} = B "
            f"({size}x{size} and {rows}x{count})"
        )
    broadcast_shapes(columns._data.shape[:-2], A._data.shape[:-2])
    if not left:
        A, columns = A.mT, columns.mT
    result = Solve.apply(A, columns)
    if not left:
        result = result.mT.contiguous()  # row-major, as PyTorch's
    return shape_ops.squeeze(result, -1) if vector else result


def _tolerance(singular_values, atol, rtol, rows: int, columns: int):
    """PyTorch's cut-off below which singular values count as zero: ``max(atol, rtol * largest)``, with
    ``rtol = eps * max(m, n)`` unless a tolerance is given."""
    xp = array_module(singular_values)
    if rtol is None:
        default = np.finfo(singular_values.dtype).eps * builtins.max(rows, columns)
        rtol = 0.0 if atol is not None and atol > 0 else default
    largest = singular_values.max(-1, keepdims=True) if singular_values.shape[-1] else 0.0
    return xp.maximum(0.0 if atol is None else atol, rtol * largest)


def _pseudo_inverse(a, atol, rtol, hermitian):
    """``A^+ = V diag(1/s) U^T`` over the singular values above the tolerance (eigenvalues when ``hermitian``)."""
    xp = array_module(a)
    if hermitian:
        values, vectors = xp.linalg.eigh(a)
        cutoff = _tolerance(xp.abs(values), atol, rtol, *a.shape[-2:])
        kept = xp.abs(values) > cutoff
        inverted = xp.where(kept, 1 / xp.where(kept, values, 1), 0)
        return (vectors * inverted[..., None, :]) @ xp.swapaxes(vectors, -1, -2)
    u, s, vh = xp.linalg.svd(a, full_matrices=False)
    kept = s > _tolerance(s, atol, rtol, *a.shape[-2:])
    inverted = xp.where(kept, 1 / xp.where(kept, s, 1), 0)
    return (xp.swapaxes(vh, -1, -2) * inverted[..., None, :]) @ xp.swapaxes(u, -1, -2)


class Pinv(Op):
    """``P = A^+`` (Moore-Penrose; through the SVD);  for a rank that does not change under small steps
    (Golub and Pereyra)::

        dA = -P^T G P^T + (I - A P) G^T P P^T + P^T P G^T (I - P A)
    """

    node_name = "LinalgPinvBackward0"

    @staticmethod
    def forward(ctx, a, atol, rtol, hermitian):
        result = _pseudo_inverse(a, atol, rtol, hermitian)
        ctx.save_for_backward(a, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, pinv = ctx.saved_tensors
        grad_t = grad.mT
        first = -matmul(matmul(pinv.mT, grad), pinv.mT)
        second = matmul(grad_t - matmul(matmul(a, pinv), grad_t), matmul(pinv, pinv.mT))
        third = matmul(matmul(pinv.mT, pinv), grad_t - matmul(matmul(grad_t, pinv), a))
        return first + second + third, None, None, None


def pinv(A: Tensor, *, atol=None, rtol=None, hermitian: bool = False) -> Tensor:
    """The pseudo-inverse ``A^+`` of each matrix (``n x m`` for an ``m x n`` ``A``): ``A^+ b`` is the least-squares
    solution of ``A x = b`` with the smallest norm. Singular values up to ``max(atol, rtol * s_max)`` count as 0."""
    if A._data.ndim < 2 or not A.is_floating_point():
        raise RuntimeError(
            f"linalg.pinv({A.dtype.type_name}{{{list(A._data.shape)}}}): expected a tensor with 2 or more "
            "dimensions of float, double, cfloat or cdouble types"
        )
    return Pinv.apply(A, atol, rtol, bool(hermitian))


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """``torch.pinverse``: ``linalg.pinv`` with ``rcond`` as the relative tolerance."""
    return pinv(input, rtol=rcond)


def matrix_rank(A: Tensor, *, atol=None, rtol=None, hermitian: bool = False) -> Tensor:
    """The number of singular values above ``max(atol, rtol * s_max)`` (int64; no gradient)."""
    if not A.is_floating_point():
        raise RuntimeError("This function doesn't handle types other than float and double")
    _check_matrices(A, "linalg.matrix_rank")
    xp = A._xp
    if hermitian:
        values = xp.abs(xp.linalg.eigvalsh(A._data))
    else:
        values = xp.linalg.svd(A._data, compute_uv=False)
    rank = (values > _tolerance(values, atol, rtol, *A._data.shape[-2:])).sum(-1)
    return Tensor._make(xp.asarray(rank, dtype=np.int64), A._device)


# -- the matrix exponential ----------------------------------------------------------------------------
def _expm(a):
    """``exp(A) = sum_k A^k / k!`` for each matrix, by SciPy's scaling and squaring (CuPy's on a GPU)."""
    if isinstance(a, np.ndarray):
        import scipy.linalg  # SciPy is slow to import: loaded when this op first runs

        return np.asarray(scipy.linalg.expm(a), dtype=a.dtype)
    import cupy  # optional (the cuda extra): only on a GPU
    import cupyx.scipy.linalg  # optional (the cuda extra): only on a GPU

    matrices = a.reshape((-1,) + a.shape[-2:])
    return cupy.stack([cupyx.scipy.linalg.expm(m) for m in matrices]).reshape(a.shape).astype(a.dtype)


class MatrixExp(Op):
    """``Y = exp(A)``;  ``dA`` = the top-right block of ``exp([[A^T, G], [0, A^T]])``.

    (The derivative of ``exp`` at ``A^T`` in direction ``G`` is that block: a classic trick, since
    ``d/dt exp(A + tE)`` mixes ``A`` and ``E`` in every power.) Being ``matrix_exp`` again, the
    backward can itself be differentiated.
    """

    node_name = "LinalgMatrixExpBackward0"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _expm(a) if a.size else a.copy()

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        size = a.shape[-1]
        transposed = a.mT
        zeros = Tensor._make(a._xp.zeros(tuple(a.shape), dtype=a._data.dtype), a._device)
        block = shape_ops.cat([shape_ops.cat([transposed, grad], -1), shape_ops.cat([zeros, transposed], -1)], -2)
        return MatrixExp.apply(block)[..., :size, size:]


def matrix_exp(input: Tensor) -> Tensor:
    """The matrix exponential ``exp(A) = I + A + A^2/2! + ...`` of each square matrix."""
    _check_square(input, "linalg.matrix_exp")
    return MatrixExp.apply(input)
