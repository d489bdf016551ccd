"""``conj``, ``resolve_conj`` and ``is_conj`` for a library without complex dtypes.

PyTorch's ``conj`` of a real tensor is the tensor itself (the conjugate of a real number is the
number), so code written for complex numbers, such as ``A @ A.T.conj()`` for a Hermitian product,
runs unchanged on real tensors. minitorch has no complex dtypes: every tensor is real, and these
functions say so with PyTorch's answers for real tensors.
"""

from __future__ import annotations


def conj(input):
    """The complex conjugate: for a real tensor, ``input`` itself (PyTorch returns the same tensor)."""
    return input


def conj_physical(input):
    """The conjugate computed at once (not lazily): for a real tensor, ``input`` itself, as in PyTorch."""
    return input


def resolve_conj(input):
    """Materialise a lazily conjugated tensor: real tensors never are, so ``input`` itself."""
    return input


def is_conj(input) -> bool:
    """Whether the conjugate bit is set: never, for a real tensor."""
    return False
