"""Linear algebra: matrix products (matmul, mm, bmm, mv, dot, outer) and einsum.

Every product here is one array ``matmul`` (or ``einsum``) in forward and one per input
in backward: for ``y = a @ b``,

    da = grad @ b^T        db = a^T @ grad

where ``^T`` swaps the last two dimensions (a view, never a copy: BLAS reads transposed
data directly). Vectors are treated as one-row or one-column matrices, and batch
dimensions broadcast; the engine sums each gradient back over the batch dimensions that
were broadcast (the one place that happens for every op).

Errors use PyTorch's words, including its habit of describing a batched product by the
``mm``/``mv``/``bmm`` call it turns into.
"""

from __future__ import annotations

import builtins
import string

from .._tensor import Tensor
from ..autograd.function import Op
from ._util import array_module, broadcast_shapes, check_same_device
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
