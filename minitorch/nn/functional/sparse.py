"""Sparse functions: ``embedding`` (rows of a table picked by index), ``embedding_bag`` (their sum, mean
or maximum per bag) and ``one_hot``.
"""

from __future__ import annotations

from ... import _arguments
from ..._tensor import Tensor
from ...autograd import grad as autograd_grad
from ...autograd.function import Function
from ...autograd.grad_mode import enable_grad, is_grad_enabled, no_grad
from ...ops import nn_ops, pointwise
from ...ops.indexing import AccumulateAt

# Each function below is decorated with ``_arguments.public``: its tensor argument is checked the way PyTorch
# does, before the function runs (minitorch/_arguments.py).
__all__ = [
    "embedding", "embedding_bag", "one_hot",
]


def _wrap_padding_idx(padding_idx, num_embeddings: int, label: str = "Padding_idx"):
    """``padding_idx`` as a row number in ``[0, num_embeddings)`` (negative counts from the end), or None."""
    if padding_idx is None:
        return None
    if padding_idx > 0 and padding_idx >= num_embeddings:
        raise AssertionError(f"{label} must be within num_embeddings")
    if padding_idx < 0:
        if padding_idx < -num_embeddings:
            raise AssertionError(f"{label} must be within num_embeddings")
        padding_idx = num_embeddings + padding_idx
    return padding_idx


def _embedding_renorm_(weight: Tensor, indices: Tensor, max_norm: float, norm_type: float) -> None:
    """Rescale (in place, outside the graph) each looked-up row whose ``norm_type``-norm exceeds ``max_norm``.

    As PyTorch: ``row *= max_norm / (norm + 1e-7)``, each distinct row once.
    """
    rows = indices._xp.unique(indices._data)
    with no_grad():
        selected = weight[rows]
        norms = selected.norm(p=norm_type, dim=1, keepdim=True)
        scale = pointwise.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        weight[rows] = selected * scale


@_arguments.public
def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm: float | None = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Look up one row of ``weight`` per index: ``y[...] = weight[input[...]]`` (``y`` is ``input.shape + (D,)``).

    ``padding_idx``: that row receives no gradient. ``max_norm``: rows about to be looked up
    are first rescaled in place to norm at most ``max_norm``. ``scale_grad_by_freq``: each
    row's gradient is divided by how often it appears in ``input``.

        >>> import minitorch
        >>> table = minitorch.tensor([[0.0, 0.0], [1.0, 2.0], [3.0, 4.0]])
        >>> minitorch.nn.functional.embedding(minitorch.tensor([2, 1, 2]), table)
        tensor([[3., 4.],
                [1., 2.],
                [3., 4.]])
    """
    padding_idx = _wrap_padding_idx(padding_idx, weight.shape[0])
    if input.is_floating_point() or input.dtype.name not in ("int64", "int32"):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got "
            f"minitorch.{input.dtype.type_name}Tensor instead (while checking arguments for embedding)"
        )
    if input.numel() and (int(input._data.min()) < 0 or int(input._data.max()) >= weight.shape[0]):
        raise IndexError("index out of range in self")
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    return nn_ops.Embedding.apply(weight, input, padding_idx, scale_grad_by_freq)


@_arguments.public
def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None, max_norm: float | None = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """Sum, average or take the maximum of the embeddings of each *bag* of indices, without building the rows.

    Bags are the rows of a 2-D ``input``, or, for a 1-D ``input``, the slices that start at
    each entry of ``offsets`` (``include_last_offset``: the last offset marks the end instead
    of starting a bag). Entries equal to ``padding_idx`` are left out of their bag; an empty
    bag gives zeros. ``per_sample_weights`` (mode ``"sum"`` only) scales each looked-up row.

    Computed as one ``embedding`` lookup followed by a scatter-add of the rows into their
    bags (``sum``/``mean``), or a gather of each bag's maximal rows (``max``).

        >>> import minitorch
        >>> table = minitorch.tensor([[1.0, 1.0], [2.0, 4.0], [3.0, 0.0]])
        >>> minitorch.nn.functional.embedding_bag(minitorch.tensor([0, 1, 2]), table, minitorch.tensor([0, 2]))
        tensor([[1.5000, 2.5000],
                [3.0000, 0.0000]])
    """
    _check_embedding_bag(input, weight, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights)
    xp = input._xp
    if input.dim() == 2:  # each row is a bag
        bags, bag_length = input.shape
        bag_of_entry = xp.repeat(xp.arange(bags), bag_length)
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    else:
        bags, bag_of_entry = _bags_from_offsets(offsets, input.shape[0], include_last_offset)
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    _check_per_sample_weights_mode(per_sample_weights, mode)
    padding_idx = _wrap_padding_idx(padding_idx, weight.shape[0], "padding_idx")
    if padding_idx is not None:  # padding entries belong to no bag
        bag_of_entry = xp.where(input._data == padding_idx, -1, bag_of_entry)

    def bags_of(weight: Tensor, per_sample_weights: Tensor | None) -> Tensor:
        """The bags' results from the table (and the per-entry weights), in differentiable Tensor operations."""
        rows = nn_ops.Embedding.apply(weight, input, padding_idx, scale_grad_by_freq)
        if mode == "max":
            best_rows, non_empty = nn_ops.segment_argmax(rows._data, bag_of_entry, bags)
            picked = rows.gather(0, Tensor._make(best_rows, rows._device))
            return picked * Tensor._make(non_empty.astype(rows._data.dtype), rows._device)
        if per_sample_weights is not None:
            rows = rows * per_sample_weights.unsqueeze(1)
        member, entry_bags = bag_of_entry >= 0, bag_of_entry
        if not bool(member.all()):
            rows, entry_bags = rows[Tensor._make(member, rows._device)], bag_of_entry[member]
        sums = _scatter_rows(rows, entry_bags, bags, weight.shape[1])
        if mode == "sum":
            return sums
        counts = xp.bincount(entry_bags, minlength=bags).astype(rows._data.dtype)
        return sums / Tensor._make(xp.maximum(counts, 1)[:, None], rows._device)

    # PyTorch's node has a slot for per_sample_weights even when there are none: an empty stand-in fills it.
    weights_or_none = per_sample_weights if per_sample_weights is not None else weight.new_zeros(0)
    return _EmbeddingBag.apply(weight, weights_or_none, bags_of)


class _EmbeddingBag(Function):
    """All of ``embedding_bag`` as one node, as PyTorch records it (``EmbeddingBagBackward0``).

    ``forward`` runs ``bags_of`` (the lookup and the per-bag sum, mean or maximum); ``backward``
    runs the same ``bags_of`` again with recording on and differentiates it (recomputing, as
    activation checkpointing does): ``dweight[i] += grad[bag] * w_e / count[bag]`` for each entry ``e``
    of row ``i`` (sum and mean; the maximal row only for max), ``dw_e = grad[bag] . weight[i]``.
    """

    node_name = "EmbeddingBagBackward0"

    @staticmethod
    def forward(ctx, weight, per_sample_weights, bags_of):
        ctx.save_for_backward(weight, per_sample_weights)
        ctx.bags_of = bags_of
        return bags_of(weight, per_sample_weights if per_sample_weights.numel() else None)

    @staticmethod
    def backward(ctx, grad):
        weight, per_sample_weights = ctx.saved_tensors
        needs_weight, needs_sample_weights = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
        with enable_grad():
            weight = weight.detach().requires_grad_(needs_weight)
            given = per_sample_weights.numel() > 0
            per_sample_weights = per_sample_weights.detach().requires_grad_(needs_sample_weights) if given else None
            result = ctx.bags_of(weight, per_sample_weights)
        wanted = [tensor for tensor, needed in ((weight, needs_weight), (per_sample_weights, needs_sample_weights))
                  if needed]
        grads = iter(autograd_grad(result, wanted, grad, create_graph=is_grad_enabled(), allow_unused=True))
        return (next(grads) if needs_weight else None), (next(grads) if needs_sample_weights else None), None


def _check_embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None, scale_grad_by_freq: bool, mode: str,
                         sparse: bool, per_sample_weights: Tensor | None) -> None:
    """PyTorch's errors for ``embedding_bag``'s arguments, up to its ``max_norm`` renormalisation.

    In this order: ``per_sample_weights`` of another shape than ``input``; a ``weight`` that is not
    2-D; ``offsets`` given with a 2-D ``input``, missing or not 1-D with a 1-D one, or whose values
    cannot start bags (``_check_offsets``); an ``input`` neither 1-D nor 2-D; a ``mode`` unknown or
    ``"max"`` with ``scale_grad_by_freq`` or ``sparse``; an index outside the table. The refusal
    of ``per_sample_weights`` outside mode ``"sum"`` is not here: PyTorch makes it after the
    renormalisation has rescaled ``weight``, so it is ``_check_per_sample_weights_mode``, called there.
    """
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(
            f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it must have the "
            f"same shape as the input ({input.shape})"
        )
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length "
                f"sequences. However, found offsets of type "
                f"{_CLASS_OF_TENSOR if isinstance(offsets, Tensor) else type(offsets)}"
            )
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        _check_offsets(offsets, input.shape[0])
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    elif mode not in ("sum", "mean"):
        raise ValueError("mode has to be one of sum, mean or max")
    indices = input._data.reshape(-1)
    if indices.size:
        low, high = int(indices.min()), int(indices.max())
        if low < 0 or high >= weight.shape[0]:
            position = int(input._xp.argmax((indices < 0) | (indices >= weight.shape[0])))
            raise RuntimeError(
                f"Index {position} of input takes value {int(indices[position])} which is not in the valid range "
                f"[0, {weight.shape[0]})"
            )


def _check_per_sample_weights_mode(per_sample_weights: Tensor | None, mode: str) -> None:
    """PyTorch's refusal of ``per_sample_weights`` outside mode ``"sum"`` (made after ``max_norm`` rescaled rows)."""
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' "
            f"(got mode='{mode}'). Please open a feature request on GitHub."
        )


_CLASS_OF_TENSOR = "<class 'minitorch.Tensor'>"  # how PyTorch prints its class (rather than its defining module)


def _scatter_rows(rows: Tensor, bag_of_entry, bags: int, embedding_dim: int) -> Tensor:
    """``sums[b] = sum of rows[l] with bag_of_entry[l] == b`` (differentiable: the backward reads ``grad[bag]``)."""
    return AccumulateAt.apply(rows, (bags, embedding_dim), (bag_of_entry, Ellipsis), True)


def _bags_from_offsets(offsets: Tensor, length: int, include_last_offset: bool):
    """The number of bags and, for each of the ``length`` entries, the bag it belongs to."""
    xp = offsets._xp
    starts = offsets._data.astype(xp.int64)
    bags = max(starts.size - 1, 0) if include_last_offset else starts.size
    # Entry l belongs to the last bag starting at or before l; entries past the last offset
    # (include_last_offset) belong to none.
    bag_of_entry = xp.searchsorted(starts, xp.arange(length), side="right") - 1
    if include_last_offset:
        bag_of_entry = xp.where(bag_of_entry >= bags, -1, bag_of_entry)
    return bags, bag_of_entry


def _check_offsets(offsets: Tensor, length: int) -> None:
    """PyTorch's errors for offsets that cannot start the bags of an input of ``length`` entries."""
    starts = offsets._data.astype(offsets._xp.int64)
    if starts.size and int(starts[0]) != 0:
        raise RuntimeError(
            "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. "
            f"However, got {int(starts[0])}"
        )
    if starts.size and int(starts[-1]) > length:
        raise RuntimeError(
            f"offsets[-1] can not be greater than input's length {length} but got offsets[-1] of {int(starts[-1])}"
        )
    if starts.size > 1 and bool((starts[1:] < starts[:-1]).any()):
        raise RuntimeError("offsets must be non-decreasing")


@_arguments.public
def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """``y[..., c] = 1 if tensor[...] == c else 0`` (int64); ``num_classes=-1`` uses ``tensor.max() + 1``.

        >>> import minitorch
        >>> minitorch.nn.functional.one_hot(minitorch.tensor([0, 2]))
        tensor([[1, 0, 0],
                [0, 0, 1]])
    """
    if not isinstance(tensor, Tensor):
        raise _arguments.must_be_tensor("one_hot", tensor)
    if tensor.dtype.name != "int64":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    data = tensor._data
    xp = tensor._xp
    if num_classes == -1:
        if data.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(data.max()) + 1
    if data.size:
        if int(data.min()) < 0:
            raise RuntimeError("Class values must be non-negative.")
        if int(data.max()) >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    encoded = (data[..., None] == xp.arange(num_classes)).astype(xp.int64)
    return Tensor._make(encoded, tensor._device)
