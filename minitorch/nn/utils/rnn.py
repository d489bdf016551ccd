"""Batches of sequences of different lengths: padding and packing (``torch.nn.utils.rnn``).

A batch of sentences rarely has one length. Two ways to put them in one tensor:

* **Padding** (``pad_sequence``): a ``(max_length, batch, *)`` tensor, short sequences filled with
  ``padding_value``. Simple, but a recurrent layer would also read the padding, and its final
  state would then not be the state at the end of each sequence.
* **Packing** (``pack_padded_sequence``, ``pack_sequence``): sequences sorted from longest to
  shortest, and only their real steps kept, time step by time step::

      lengths [3, 2, 1]      padded (time, batch)       data            batch_sizes
                             t0: a0 b0 c0               a0 b0 c0        3
                             t1: a1 b1 .                a1 b1           2
                             t2: a2 .  .                a2              1

  ``batch_sizes[t]`` says how many sequences are still running at step ``t``. ``RNN``, ``LSTM``
  and ``GRU`` accept a ``PackedSequence``: each sequence's final state is the state after its
  own last step, and a reverse direction starts at each sequence's own end.

Everything here is made of differentiable tensor ops (indexing with a mask, ``index_select``),
so gradients flow through packing and unpacking.

    >>> import minitorch
    >>> from minitorch.nn.utils.rnn import pack_sequence, pad_packed_sequence
    >>> packed = pack_sequence([minitorch.tensor([1, 2, 3]), minitorch.tensor([4, 5]), minitorch.tensor([6])])
    >>> packed.data, packed.batch_sizes
    (tensor([1, 4, 6, 2, 5, 3]), tensor([3, 2, 1]))
    >>> pad_packed_sequence(packed)[0]
    tensor([[1, 4, 6],
            [2, 5, 0],
            [3, 0, 0]])
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ... import _creation, _dtype
from ..._tensor import Tensor

__all__ = [
    "PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
    "unpad_sequence", "pack_sequence", "unpack_sequence",
]  # fmt: skip


class PackedSequence(NamedTuple):
    """The real steps of a batch of sequences, time step by time step (module docstring).

    ``data``: ``(sum of lengths, *)``; ``batch_sizes``: int64 CPU tensor, sequences still running at
    each step; ``sorted_indices``: the batch order used (longest first), or None if the batch came
    sorted; ``unsorted_indices``: its inverse, to put results back in the caller's order.
    """

    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None = None
    unsorted_indices: Tensor | None = None

    def to(self, *args, **kwargs) -> PackedSequence:
        """The same sequence with ``data`` (and the index tensors, for a device) converted; ``batch_sizes`` stays."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        sorted_indices, unsorted_indices = (
            None if index is None else index.to(data.device) for index in (self.sorted_indices, self.unsorted_indices)
        )
        return PackedSequence(data, self.batch_sizes, sorted_indices, unsorted_indices)

    def cpu(self) -> PackedSequence:
        return self.to("cpu")

    def cuda(self, device=None) -> PackedSequence:
        return self.to("cuda" if device is None else device)

    def float(self) -> PackedSequence:
        return self.to(dtype=_dtype.float32)

    def double(self) -> PackedSequence:
        return self.to(dtype=_dtype.float64)

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The permutation that undoes ``permutation``: ``inverse[permutation[i]] = i``."""
    if permutation is None:
        return None
    inverse = np.empty(permutation.numel(), dtype=np.int64)
    inverse[permutation.cpu().numpy()] = np.arange(permutation.numel())
    return _creation.tensor(inverse, device=permutation.device)


def _lengths_array(lengths) -> np.ndarray:
    if isinstance(lengths, Tensor):
        if lengths.is_cuda:
            raise RuntimeError(
                "'lengths' argument should be a 1D CPU int64 tensor, but got 1D cuda:0 Long tensor"
            )
        return lengths.numpy().astype(np.int64).reshape(-1)
    return np.asarray(lengths, dtype=np.int64).reshape(-1)


def _valid_steps(lengths: np.ndarray, steps: int) -> np.ndarray:
    """``(steps, batch)`` bool: True where step ``t`` is a real step of sequence ``b`` (``t < lengths[b]``)."""
    return np.arange(steps)[:, None] < lengths[None, :]


def pack_padded_sequence(input: Tensor, lengths, batch_first: bool = False, enforce_sorted: bool = True):
    """Pack a padded ``(T, B, *)`` batch (``(B, T, *)`` with ``batch_first``) whose sequences have ``lengths``.

    With ``enforce_sorted=True`` the lengths must already decrease; otherwise the batch is sorted here
    (longest first) and ``sorted_indices`` records the order.
    """
    lengths = _lengths_array(lengths)
    if enforce_sorted:
        if np.any(lengths[:-1] < lengths[1:]):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
                "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement if "
                "you do not need ONNX exportability."
            )
        sorted_indices = None
    else:
        order = np.argsort(-lengths, kind="stable")
        sorted_indices = _creation.tensor(order, device=input.device)
        lengths = lengths[order]
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if lengths.size == 0 or lengths.min() <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0"
        )
    if batch_first:
        input = input.transpose(0, 1)
    steps = int(lengths[0])
    if steps > input.shape[0]:
        raise RuntimeError(f"Expected sequence length to be at most {input.shape[0]}, but got a length of {steps}")
    valid = _valid_steps(lengths, steps)
    data = input[:steps][_creation.tensor(valid, device=input.device)]
    batch_sizes = _creation.tensor(valid.sum(axis=1))
    return PackedSequence(data, batch_sizes, sorted_indices, invert_permutation(sorted_indices))


def _padded_in_sorted_order(sequence: PackedSequence, padding_value: float = 0.0, total_length: int | None = None):
    """``(T, B, *)`` padded tensor, batch in the packed (longest-first) order, and the sorted lengths."""
    batch_sizes = sequence.batch_sizes.numpy()
    steps, batch = len(batch_sizes), int(batch_sizes[0])
    lengths = (batch_sizes[None, :] > np.arange(batch)[:, None]).sum(axis=1)
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in input, but got "
                f"total_length={total_length} and max sequence length being {steps}"
            )
        steps = total_length
    data = sequence.data
    padded = _creation.full((steps, batch, *data.shape[1:]), padding_value, dtype=data.dtype, device=data.device)
    padded[_creation.tensor(_valid_steps(lengths, steps), device=data.device)] = data
    return padded, lengths


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple[Tensor, Tensor]:
    """Undo ``pack_padded_sequence``: ``(padded, lengths)``, in the caller's batch order."""
    padded, lengths = _padded_in_sorted_order(sequence, padding_value, total_length)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices.cpu().numpy()]
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, _creation.tensor(lengths)


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stack tensors ``(L_i, *)`` into ``(max L, B, *)`` (``(B, max L, *)`` with ``batch_first``), padding the
    short ones with ``padding_value`` after their steps (``padding_side="left"``: before)."""
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    first = sequences[0]
    longest = max(sequence.shape[0] for sequence in sequences)
    padded = _creation.full((len(sequences), longest, *first.shape[1:]), padding_value, dtype=first.dtype,
                            device=first.device)
    for index, sequence in enumerate(sequences):  # one write per sequence, not per element
        length = sequence.shape[0]
        if padding_side == "right":
            padded[index, :length] = sequence
        else:
            padded[index, longest - length:] = sequence
    return padded if batch_first else padded.transpose(0, 1)


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False) -> list[Tensor]:
    """Undo ``pad_sequence``: the list of sequences, each cut to its length."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [padded_sequences[index, :length] for index, length in enumerate(_lengths_array(lengths).tolist())]


def pack_sequence(sequences, enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of tensors ``(L_i, *)`` (longest first, unless ``enforce_sorted=False``)."""
    lengths = [sequence.shape[0] for sequence in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """Undo ``pack_sequence``: the list of sequences in the caller's order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
