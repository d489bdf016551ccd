"""Chapter 9's pieces of the learner's library: ``attention`` (exercise 1, what ``F.scaled_dot_product_attention``
computes, with its two kinds of mask and ``is_causal``), ``causal_mask`` (exercise 2) and ``MyMultiheadAttention``
(exercise 6, ``nn.MultiheadAttention`` with its parameter names; it builds on the learner's ``split_heads`` and
``merge_heads``, so their cells are run before its own when it is rebuilt from a saved chapter 9).

The fallbacks are minitorch's, with the learner's interfaces: ``minitorch_attention(query, key, value, mask,
is_causal)`` calls ``F.scaled_dot_product_attention``; ``minitorch_causal_mask(size)`` is the lower triangle of
ones; ``nn.MultiheadAttention`` takes the same arguments as ``MyMultiheadAttention``.
"""

from __future__ import annotations

from grading.library import piece


def minitorch_attention(query, key, value, mask, is_causal):
    """softmax(Q Kᵀ / √d + masks) V by ``F.scaled_dot_product_attention`` (a bool mask is True where a query may
    attend; a float mask is added to the scores)."""
    import minitorch.nn.functional as F

    return F.scaled_dot_product_attention(query, key, value, attn_mask=mask, is_causal=is_causal)


def minitorch_causal_mask(size):
    """(size, size) bool, True on and below the diagonal: key j is visible to query i when j <= i."""
    import minitorch

    return minitorch.ones(size, size, dtype=minitorch.bool).tril()


def _multihead_attention():
    import minitorch.nn as nn

    return nn.MultiheadAttention


piece("attention", chapter="09_attention", cells=("attention",), checks={"ch09.attention": "attention"},
      fallback=lambda: minitorch_attention)  # fmt: skip
piece("causal_mask", chapter="09_attention", cells=("causal_mask",), checks={"ch09.causal_mask": "causal_mask"},
      fallback=lambda: minitorch_causal_mask)  # fmt: skip
piece("MyMultiheadAttention", chapter="09_attention", cells=("split_heads", "merge_heads", "multihead_attention"),
      checks={"ch09.multihead_attention": "multihead_attention"}, fallback=_multihead_attention)  # fmt: skip
