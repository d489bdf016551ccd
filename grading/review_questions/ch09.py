"""Review questions of chapter 9: attention (scaled dot product, masks, multi-head, transformers)."""

from grading.review import choice, number

QUESTIONS = [
    choice(
        "Why are attention scores divided by sqrt(d)?",
        [
            "to make the weights sum to 1",
            "the dot product of two random d-dimensional vectors has variance about d; dividing keeps the softmax from "
            "saturating",
            "to save computation",
            "to make attention ignore order",
        ],
        "b",
        "Large scores push the softmax to a one-hot vector whose gradients vanish. Scaling by 1/sqrt(d) keeps the "
        "scores' spread near 1 whatever the dimension.",
    ),
    number(
        "A causal mask for a sequence of 5 tokens: how many (query, key) pairs may attend?",
        15,
        "Query t sees keys 0..t: 1 + 2 + 3 + 4 + 5 = 15, the lower triangle including the diagonal.",
    ),
    choice(
        "A bool attention mask with True at some position means:",
        [
            "blocked, everywhere",
            "allowed, everywhere",
            "allowed in F.scaled_dot_product_attention, blocked in nn.MultiheadAttention and nn.Transformer*",
            "blocked in F.scaled_dot_product_attention, allowed in nn.MultiheadAttention",
        ],
        "c",
        "The two conventions differ: read the docstring before passing a bool mask. Float masks are added to the "
        "scores in both (−inf blocks).",
    ),
    number(
        "How many trainable numbers does `nn.MultiheadAttention(embed_dim=16, num_heads=4)` hold?",
        1088,
        "The input projection for q, k, v: 3 × 16 × 16 = 768 weights and 48 biases; the output projection: 256 + 16. "
        "Total 1088. The number of heads does not change it: the 16 features are split into 4 heads of 4.",
    ),
    choice(
        "Self-attention with no mask and no positional encoding. You shuffle the input tokens. The outputs:",
        [
            "are unchanged",
            "are the same vectors, shuffled the same way",
            "change completely",
            "become zero",
        ],
        "b",
        "Attention is a weighted average over a set: permuting the tokens permutes the outputs and nothing else. "
        "That is why positions are added to the input (learned or sinusoidal).",
    ),
    choice(
        "In each row of the attention weights (one query), the weights:",
        ["are all equal", "sum to 1 and are non-negative", "sum to d", "can be negative"],
        "b",
        "They are a softmax over the keys: each query takes a weighted average of the values, weighted by how well it "
        "matches each key.",
    ),
]
