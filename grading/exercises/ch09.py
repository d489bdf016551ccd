"""Chapter 9 (attention and transformers): attention, a causal mask, splitting and merging heads, positions.

References: minitorch's own ``scaled_dot_product_attention`` and tensor reshapes, and NumPy for the
causal mask and the sinusoidal encoding (computed in float64, then rounded to float32).
"""

import numpy as np

import minitorch
from grading.registry import exercise, randn


def _attention(query, key, value, mask):
    return minitorch.nn.functional.scaled_dot_product_attention(query, key, value, attn_mask=mask)


exercise(
    "ch09.attention",
    function="attention",
    reference=_attention,
    public=[
        (randn(2, 3, 4, seed=900), randn(2, 5, 4, seed=901), randn(2, 5, 6, seed=902), None),
        (randn(1, 4, 8, seed=903), randn(1, 4, 8, seed=904), randn(1, 4, 8, seed=905),
         np.tril(np.ones((4, 4), dtype=bool))),
        (randn(2, 5, 8, seed=906), randn(2, 5, 8, seed=907), randn(2, 5, 8, seed=908),
         np.array([[[True, True, True, True, True]], [[True, True, True, False, False]]])),
    ],
    hint="scores = query @ key.transpose(-2, -1) / math.sqrt(d) with d = query.shape[-1]; where the mask is False, "
    "masked_fill the scores with float('-inf'); softmax over the last dimension (the keys), then @ value.",
)


def _causal_mask(size):
    return minitorch.tensor(np.tril(np.ones((size, size), dtype=bool)))


exercise(
    "ch09.causal_mask",
    function="causal_mask",
    reference=_causal_mask,
    public=[(1,), (4,), (5,)],
    hints=[
        "Position i may look at positions j that are not in its future: the mask is True on and below the diagonal.",
        "Entry (i, j) is True exactly when j ≤ i. Compare a column of positions with a row of positions and let "
        "broadcasting make the (size, size) table.",
        "minitorch.arange(size) gives the positions; unsqueeze(1) makes them a column and unsqueeze(0) a row.",
    ],
)


def _split_heads(x, num_heads):
    batch, length, embed = x.shape
    return x.reshape(batch, length, num_heads, embed // num_heads).permute(0, 2, 1, 3)


exercise(
    "ch09.split_heads",
    function="split_heads",
    reference=_split_heads,
    public=[(randn(2, 3, 8, seed=920), 2), (randn(1, 5, 12, seed=921), 3), (randn(2, 4, 6, seed=922), 1)],
    hint="First cut the features of each position: x.view(batch, length, num_heads, embed // num_heads); "
    "then swap the length and head dimensions with transpose(1, 2).",
)


def _merge_heads(x):
    batch, num_heads, length, head_dim = x.shape
    return x.permute(0, 2, 1, 3).reshape(batch, length, num_heads * head_dim)


exercise(
    "ch09.merge_heads",
    function="merge_heads",
    reference=_merge_heads,
    public=[(randn(2, 2, 3, 4, seed=923),), (randn(1, 3, 5, 2, seed=924),), (randn(2, 1, 4, 6, seed=925),)],
    hint="Undo split_heads in reverse order: transpose(1, 2) back to (batch, length, heads, head_dim), then reshape.",
)


def _positional_encoding(length, d_model):
    positions = np.arange(length, dtype=np.float64)[:, None]
    frequencies = 10000.0 ** (-np.arange(0, d_model, 2, dtype=np.float64) / d_model)
    angles = positions * frequencies
    encoding = np.empty((length, d_model), dtype=np.float64)
    encoding[:, 0::2] = np.sin(angles)
    encoding[:, 1::2] = np.cos(angles)
    return minitorch.tensor(encoding.astype(np.float32))


exercise(
    "ch09.positional_encoding",
    function="positional_encoding",
    reference=_positional_encoding,
    public=[(4, 4), (10, 8), (32, 6)],
    # float32 angles up to ~50 radians carry rounding errors of a few 1e-6; a wrong formula is off by far more.
    rtol=1e-4,
    atol=1e-4,
    hint="angle[p, i] = p / 10000 ** (2 * i / d_model) for i = 0 .. d_model/2 - 1; sin goes to the even features "
    "(0, 2, 4, ...), cos to the odd ones. Return float32.",
)
