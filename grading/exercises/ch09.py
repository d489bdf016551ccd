"""Chapter 9 (attention and transformers): attention (build it: bool, float and causal masks as
``F.scaled_dot_product_attention`` takes them), a causal mask, splitting and merging heads, positions, and
(build it) multi-head attention as a module, equal to ``nn.MultiheadAttention`` with its weights.

References: minitorch's own ``scaled_dot_product_attention``, ``nn.MultiheadAttention`` and tensor reshapes,
and NumPy for the causal mask and the sinusoidal encoding (computed in float64, then rounded to float32).
tests/grading/test_ch09_exercises.py checks the attention references against PyTorch's.
"""

import numpy as np

import minitorch
from grading.registry import exercise, randn


def _attention(query, key, value, mask, is_causal):
    return minitorch.nn.functional.scaled_dot_product_attention(query, key, value, attn_mask=mask, is_causal=is_causal)


exercise(
    "ch09.attention",
    function="attention",
    reference=_attention,
    public=[
        (randn(2, 3, 4, seed=900), randn(2, 5, 4, seed=901), randn(2, 5, 6, seed=902), None, False),
        (randn(1, 4, 8, seed=903), randn(1, 4, 8, seed=904), randn(1, 4, 8, seed=905),
         np.tril(np.ones((4, 4), dtype=bool)), False),
        (randn(2, 5, 8, seed=906), randn(2, 5, 8, seed=907), randn(2, 5, 8, seed=908),
         np.array([[[True, True, True, True, True]], [[True, True, True, False, False]]]), False),
        (randn(2, 4, 4, seed=909), randn(2, 4, 4, seed=910), randn(2, 4, 3, seed=911), None, True),
        (randn(1, 3, 4, seed=912), randn(1, 5, 4, seed=913), randn(1, 5, 2, seed=914), None, True),
        (randn(2, 3, 4, seed=915), randn(2, 3, 4, seed=916), randn(2, 3, 4, seed=917), randn(3, 3, seed=918),
         False),
    ],
    labels=[
        "no mask, 3 queries and 5 keys: a softmax over the keys of the scores scaled by 1/sqrt(d)",
        "a bool causal mask: True = may attend",
        "a bool padding mask of shape (batch, 1, S): it broadcasts over the queries",
        "is_causal=True: query i sees keys 0 .. i",
        "is_causal=True with 3 queries and 5 keys: query i still sees keys 0 .. i (the top-left triangle)",
        "a float mask: added to the scores",
    ],
    withheld=("minitorch.nn.functional.scaled_dot_product_attention",),
    hints=[
        "Compare every query with every key (one matrix product), scale, block what the masks forbid, turn each "
        "query's row of scores into weights with a softmax over the keys, and take the weighted average of the "
        "values (a second matrix product). A blocked score becomes −inf, so its weight is exactly 0.",
        "scores = Q Kᵀ / √d, shape (..., L, S), d = the query's last dimension. A bool mask: −inf where it is False. "
        "A float mask: added to the scores. is_causal: −inf where key j > query i, for i in 0..L−1 and "
        "j in 0..S−1, whatever L and S are. Then softmax(scores, dim=−1) @ V.",
        "key.transpose(-2, -1) swaps the last two dimensions whatever comes before them; masked_fill takes the "
        "positions to fill (the logical_not of an 'allowed' mask); mask.dtype == minitorch.bool tells the two kinds "
        "apart; the (L, S) causal pattern compares a column of query positions with a row of key positions "
        "(minitorch.arange, unsqueeze and broadcasting).",
    ],
)


def _causal_mask(size):
    return minitorch.tensor(np.tril(np.ones((size, size), dtype=bool)))


exercise(
    "ch09.causal_mask",
    function="causal_mask",
    # the library's causal mask
    withheld=(
        "minitorch.nn.Transformer.generate_square_subsequent_mask",
    ),
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
    labels=[
        "2 heads",
        "3 heads of 4 features",
        "1 head: head_dim is the whole embedding",
    ],
    hints=[
        "Each position's embed features are num_heads groups of head_dim features side by side; a head should see its "
        "own group at every position, so the head axis must come before the length axis.",
        "(batch, length, embed) → (batch, length, num_heads, head_dim) with head_dim = embed / num_heads → (batch, "
        "num_heads, length, head_dim).",
        "One reshape (or view) cuts the last dimension in two; one transpose or permute swaps the length and head "
        "axes. No data needs to move by hand.",
    ],
)


def _merge_heads(x):
    batch, num_heads, length, head_dim = x.shape
    return x.permute(0, 2, 1, 3).reshape(batch, length, num_heads * head_dim)


exercise(
    "ch09.merge_heads",
    function="merge_heads",
    reference=_merge_heads,
    public=[(randn(2, 2, 3, 4, seed=923),), (randn(1, 3, 5, 2, seed=924),), (randn(2, 1, 4, 6, seed=925),)],
    labels=[
        "2 heads",
        "3 heads",
        "1 head",
    ],
    hints=[
        "merge_heads undoes split_heads: put every position's heads back side by side in one feature vector.",
        "(batch, num_heads, length, head_dim) → (batch, length, num_heads, head_dim) → (batch, length, num_heads · "
        "head_dim).",
        "Undo the two steps of split_heads in reverse order. After a transpose the tensor is not contiguous, so use "
        "reshape (or .contiguous() before view).",
    ],
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
    labels=[
        "4 positions, 4 features",
        "10 positions, 8 features",
        "32 positions: large angles, float32",
    ],
    hints=[
        "Each position gets a vector of sines and cosines of the position at geometrically spaced frequencies: fast "
        "ones tell neighbours apart, slow ones tell far-apart positions apart.",
        "For position p and pair i = 0 .. d_model/2 − 1: angle = p / 10000^(2i / d_model); feature 2i is sin(angle), "
        "feature 2i + 1 is cos(angle).",
        "Build the (length, d_model/2) table of angles by broadcasting a column of positions against a row of "
        "frequencies, then fill the even and the odd columns (slicing with step 2). Return float32.",
    ],
)


# -- build it: multi-head attention as a module ----------------------------------------------------------
def _multihead_attention(query, key, value, in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias,
                         num_heads, batch_first, key_padding_mask, attn_mask):
    """minitorch's ``nn.MultiheadAttention`` with the case's weights: ``(output, weights averaged over heads)``."""
    module = minitorch.nn.MultiheadAttention(query.shape[-1], num_heads, batch_first=batch_first)
    module.load_state_dict({"in_proj_weight": in_proj_weight, "in_proj_bias": in_proj_bias,
                            "out_proj.weight": out_proj_weight, "out_proj.bias": out_proj_bias})
    with minitorch.no_grad():
        return module(query, key, value, key_padding_mask=key_padding_mask, attn_mask=attn_mask)


def _attention_case(query_shape, key_length, num_heads, batch_first, seed, key_padding_mask=None, attn_mask=None,
                    self_attention=False):
    """``(query, key, value, in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias, num_heads, batch_first,
    key_padding_mask, attn_mask)``; ``query_shape`` is (batch, length, embed) or (length, batch, embed) as
    ``batch_first`` says, and the keys have ``key_length`` positions."""
    embed = query_shape[-1]
    key_shape = (query_shape[0], key_length, embed) if batch_first else (key_length, query_shape[1], embed)
    query = randn(*query_shape, seed=seed)
    key = query if self_attention else randn(*key_shape, seed=seed + 1)
    value = query if self_attention else randn(*key_shape, seed=seed + 2)
    return (
        query, key, value,
        randn(3 * embed, embed, seed=seed + 3, scale=0.5), randn(3 * embed, seed=seed + 4, scale=0.1),
        randn(embed, embed, seed=seed + 5, scale=0.5), randn(embed, seed=seed + 6, scale=0.1),
        num_heads, batch_first, key_padding_mask, attn_mask,
    )  # fmt: skip


def _padding(lengths, total):
    """(batch, total) bool, True on the padding (nn.MultiheadAttention's convention: True = ignore that key)."""
    return np.arange(total)[None, :] >= np.asarray(lengths)[:, None]


exercise(
    "ch09.multihead_attention",
    function="multihead_attention",
    reference=_multihead_attention,
    public=[
        _attention_case((2, 4, 8), 4, 2, True, seed=950, self_attention=True),
        _attention_case((3, 2, 6), 5, 3, False, seed=960, key_padding_mask=_padding([5, 3], 5)),
        _attention_case((1, 5, 4), 5, 1, True, seed=970, self_attention=True,
                        attn_mask=np.triu(np.ones((5, 5), dtype=bool), k=1)),
        _attention_case((2, 3, 4), 3, 2, True, seed=980, attn_mask=randn(3, 3, seed=985)),
    ],
    labels=[
        "self-attention, batch first, 2 heads: each head scales its scores by 1/sqrt(head_dim)",
        "batch_first=False inputs (length, batch, embed), 5 keys for 3 queries, a key_padding_mask (True = ignore)",
        "a bool causal attn_mask, True = blocked (nn.MultiheadAttention's convention)",
        "a float attn_mask: added to the scores",
    ],
    outputs=("output", "averaged attention weights"),
    rtol=1e-4,
    atol=1e-5,
    withheld=(
        "minitorch.nn.MultiheadAttention",
        "minitorch.nn.functional.multi_head_attention_forward",
        "minitorch.nn.functional.scaled_dot_product_attention",
    ),
    hints=[
        "__init__ holds the parameters under nn.MultiheadAttention's names, so that its state_dict loads into "
        "yours: the three input projections stacked in one (3E, E) parameter and its (3E,) bias, and the output "
        "projection as an nn.Linear(E, E) called out_proj. forward: project, split into heads, attend in every "
        "head at once, merge, project out; return the output and the weights averaged over the heads.",
        "Work batch first inside (transpose(0, 1) on the way in and out when batch_first is False). "
        "Q, K, V = the (3E, E) weight and the bias cut in three (query rows first), applied to query, key, value. "
        "Per head (head_dim = E / H): scores = Q Kᵀ / √head_dim, shape (batch, H, L, S). Bool masks mean "
        "blocked where True: those scores become −inf; a float mask is added. key_padding_mask is (batch, S): "
        "give it the dimensions of the heads and the queries. weights = softmax over the keys; "
        "output = out_proj(merged heads of weights V); the weights' mean over the head dimension is (batch, L, S).",
        "Your split_heads and merge_heads of exercises 3 and 4 fit as they are; a bool mask goes into "
        "scores.masked_fill(mask, float('-inf')), a float one is added (check mask.dtype == minitorch.bool). "
        "key_padding_mask[:, None, None, :] broadcasts over heads and queries; attn_mask (L, S) broadcasts as it is.",
    ],
)
