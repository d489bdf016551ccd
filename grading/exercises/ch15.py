"""Chapter 15 (capstone: a character-level language model): cutting training windows from a text, an
embedding lookup as an autograd ``Function`` (its backward accumulates rows), causal multi-head
self-attention, sampling with temperature, and the validation loss that the learner's training loop reaches.

Expected values are computed by minitorch (``F.embedding`` and autograd, ``F.multi_head_attention_forward``
with a causal mask, ``softmax`` and ``searchsorted``), never written down; the public cases are inputs only.
The last exercise is graded against bounds, not values (``at_most``): two correct training runs never agree
to the last digit, so the check is that the validation loss reaches ``TARGET_LOSS`` (the reference reaches it
with a margin, printed by the chapter) and that no prediction depends on a later character.

The text is the chapter's own, ``notebooks/source/15_capstone/the_devils_dictionary.txt`` (public domain:
see ``ABOUT_THE_TEXT.md`` beside it); the cases read it from there and never download anything.
"""

from pathlib import Path

import numpy as np

import minitorch
import minitorch.nn.functional as F
from grading.registry import exercise, randn

TEXT_NAME = "the_devils_dictionary.txt"
TARGET_LOSS = 2.35  # the chapter's stated goal; the reference's runs reach about 2.2
_COURSE = Path(__file__).resolve().parents[2] / "notebooks"


def chapter_text() -> str:
    """The chapter's text, from the instructor's edition (or the learner's, which holds the same file)."""
    for edition in ("source", "release"):
        path = _COURSE / edition / "15_capstone" / TEXT_NAME
        if path.is_file():
            return path.read_text(encoding="ascii")
    raise FileNotFoundError(f"{TEXT_NAME} is in neither notebooks/source/15_capstone nor notebooks/release/15_capstone")


def text_ids() -> tuple[np.ndarray, np.ndarray, int]:
    """``(train_ids, val_ids, vocab_size)`` as the chapter makes them: one id per distinct character in sorted
    order, the first 90% of the text for training and the rest for validation."""
    text = chapter_text()
    vocabulary = sorted(set(text))
    lookup = {character: number for number, character in enumerate(vocabulary)}
    ids = np.array([lookup[character] for character in text], dtype=np.int64)
    split = int(0.9 * len(ids))
    return ids[:split], ids[split:], len(vocabulary)


def _ids(count, vocabulary, seed):
    return np.random.default_rng(seed).integers(0, vocabulary, size=count).astype(np.int64)


# -- 1. training windows ---------------------------------------------------------------------------------
def _get_batch(data, starts, block_size):
    rows = [data[start : start + block_size + 1] for start in starts.tolist()]
    windows = minitorch.stack(rows) if rows else minitorch.zeros(0, block_size + 1, dtype=data.dtype)
    return windows[:, :-1], windows[:, 1:]


exercise(
    "ch15.get_batch",
    function="get_batch",
    reference=_get_batch,
    public=[
        (np.arange(12, dtype=np.int64), np.array([0, 3, 7], dtype=np.int64), 4),
        (_ids(30, 9, seed=1501), np.array([21, 0, 5, 21], dtype=np.int64), 8),
        (_ids(10, 5, seed=1502), np.array([2, 8, 0], dtype=np.int64), 1),
    ],
    labels=[
        "data 0, 1, 2, ...: each id is its own position, so the windows show where they start and end",
        "the last start that fits (len(data) - block_size - 1, twice): the targets end on the text's last id",
        "block_size 1: the (previous character, next character) pairs of a bigram model",
    ],
    outputs=("inputs", "targets"),
    hints=[
        "A window of block_size ids starts at each start; the targets are the same window moved one character "
        "later, so that targets[b, t] is the character that follows inputs[b, t].",
        "With positions[b, t] = starts[b] + t (a (batch, block_size) table of indices): inputs are data at "
        "those positions, targets are data at the positions plus one.",
        "minitorch.arange(block_size) is a row of offsets; starts reshaped into a column plus that row "
        "broadcasts to the table of positions; indexing data with a tensor of indices gathers them all at once.",
    ],
)


# -- 2. the embedding lookup, forward and backward ------------------------------------------------------
def _embedding_forward_backward(weight, indices, grad_output):
    weight = weight.detach().requires_grad_()
    rows = F.embedding(indices, weight)
    rows.backward(grad_output)
    return rows.detach(), weight.grad


exercise(
    "ch15.embedding_forward_backward",
    function="embedding_forward_backward",
    withheld=("minitorch.nn.functional.embedding", "minitorch.nn.Embedding"),
    reference=_embedding_forward_backward,
    public=[
        (
            randn(5, 3, seed=1510, dtype="float64"),
            np.array([1, 3, 1, 1], dtype=np.int64),
            randn(4, 3, seed=1511, dtype="float64"),
        ),
        (
            randn(6, 4, seed=1512, dtype="float64"),
            np.array([[0, 5, 2], [2, 2, 0]], dtype=np.int64),
            randn(2, 3, 4, seed=1513, dtype="float64"),
        ),
        (
            randn(4, 2, seed=1514, dtype="float64"),
            np.array([3, 0, 2, 1], dtype=np.int64),
            randn(4, 2, seed=1515, dtype="float64"),
        ),
    ],
    labels=[
        "id 1 looked up three times: its row's gradient is the sum of the three rows of grad_output",
        "a batch of sequences (2-d ids): one vector per id, gradients summed over both dimensions; rows 1, 3 "
        "and 4 are never used and get 0",
        "every id once, shuffled: row i's gradient is the grad_output row where id i was looked up",
    ],
    outputs=("rows", "grad_weight"),
    rtol=1e-10,
    atol=1e-12,
    hints=[
        "Forward picks one row of the table per id. Backward sends each row of grad_output back to the row of "
        "the table it came from; an id that was looked up several times collects the sum of its gradients, "
        "and rows never looked up get 0.",
        "grad_weight[v] = Σ over the positions p where indices[p] = v of grad_output[p]. Start from zeros of the "
        "table's shape; the ids and grad_output both flatten to one list of positions (and of rows).",
        "Save the ids (ctx.save_for_backward) and the table's number of rows (a plain attribute of ctx). "
        "Plain indexed assignment keeps only one of the repeated rows: index_add_ along dim 0 adds them all. "
        "backward returns one gradient per input of forward: None for the ids.",
    ],
)


# -- 3. causal self-attention -----------------------------------------------------------------------------
def _causal_self_attention(x, in_weight, in_bias, out_weight, out_bias, num_heads):
    length, width = x.shape[1], x.shape[2]
    future = minitorch.ones(length, length, dtype=minitorch.bool).triu(1)  # True: may not attend
    sequence_first = x.transpose(0, 1)  # (length, batch, width), the functional form's layout
    output, _ = F.multi_head_attention_forward(
        sequence_first, sequence_first, sequence_first, width, num_heads, in_weight, in_bias, None, None, False,
        0.0, out_weight, out_bias, training=False, need_weights=False, attn_mask=future,
    )  # fmt: skip
    return output.transpose(0, 1)


def _attention_case(batch, length, width, num_heads, seed):
    return (
        randn(batch, length, width, seed=seed, dtype="float64"),
        randn(3 * width, width, seed=seed + 1, dtype="float64", scale=width**-0.5),
        randn(3 * width, seed=seed + 2, dtype="float64", scale=0.1),
        randn(width, width, seed=seed + 3, dtype="float64", scale=width**-0.5),
        randn(width, seed=seed + 4, dtype="float64", scale=0.1),
        num_heads,
    )


exercise(
    "ch15.causal_self_attention",
    function="causal_self_attention",
    withheld=(
        "minitorch.nn.functional.multi_head_attention_forward", "minitorch.nn.functional.scaled_dot_product_attention",
        "minitorch.nn.MultiheadAttention",
    ),
    reference=_causal_self_attention,
    public=[_attention_case(2, 5, 4, 1, seed=1520), _attention_case(1, 6, 8, 2, seed=1530),
            _attention_case(3, 4, 12, 3, seed=1540)],  # fmt: skip
    labels=[
        "one head of width 4: position t may look at positions 0 .. t only",
        "two heads of 4 features each: scores scaled by the head's width, not the model's",
        "three heads and a batch of 3: each head attends on its own slice of the features",
    ],
    rtol=1e-9,
    atol=1e-11,
    hints=[
        "Project x into queries, keys and values with in_weight (the three stacked as in nn.MultiheadAttention); "
        "cut each into num_heads slices of the features; in each head, every position takes a weighted average "
        "of the values of itself and the positions before it; put the heads back side by side and project with "
        "out_weight.",
        "Per head, with d = width / num_heads: scores = Q Kᵀ / √d (length × length), set to −∞ where the key "
        "comes after the query (j > i), softmax over the keys, times V. Heads: (batch, length, width) → "
        "(batch, num_heads, length, d) and back.",
        "F.linear with in_weight and in_bias, then .chunk(3, dim=-1), gives Q, K, V; reshape to "
        "(batch, length, heads, d) then transpose(1, 2); a (length, length) boolean table from "
        "minitorch.ones(...).triu(1) marks the future for masked_fill; F.softmax(..., dim=-1).",
    ],
)


# -- 4. sampling with temperature ---------------------------------------------------------------------------
def _sample_next(logits, temperature, uniform):
    cumulative = F.softmax(logits / temperature, dim=-1).cumsum(dim=-1)
    ids = minitorch.searchsorted(cumulative, uniform.unsqueeze(-1), right=True).squeeze(-1)
    return ids.clamp(max=logits.shape[-1] - 1)  # u above a cumulative sum that rounded below 1


def _uniform(count, seed):
    return np.random.default_rng(seed).random(count).astype(np.float32)


exercise(
    "ch15.sample_next",
    function="sample_next",
    reference=_sample_next,
    public=[
        (randn(4, 5, seed=1550), 1.0, _uniform(4, seed=1551)),
        (randn(6, 7, seed=1552), 0.5, _uniform(6, seed=1553)),
        (randn(5, 4, seed=1554), 2.0, _uniform(5, seed=1555)),
        (randn(3, 6, seed=1556) + np.float32(90.0), 0.5, _uniform(3, seed=1557)),
    ],
    labels=[
        "temperature 1: draw from softmax(logits) itself",
        "temperature 0.5: a sharper distribution (the likely ids more likely still)",
        "temperature 2: a flatter distribution",
        "logits near 90 at temperature 0.5: exp overflows unless the largest logit is subtracted first",
    ],
    hints=[
        "Divide the logits by the temperature, turn them into probabilities, and pick the id whose slice of "
        "[0, 1) contains u: lay the probabilities end to end, id 0 first, and see where u falls.",
        "p = softmax(logits / temperature); with the running sums c_i = p_0 + ... + p_i, the sample is the first "
        "id i with u < c_i, which is the number of running sums that are ≤ u.",
        "F.softmax (it subtracts the largest logit, so nothing overflows), .cumsum(dim=-1), compare with "
        "uniform.unsqueeze(-1) and count the True entries per row. If rounding leaves u above the last sum, "
        "keep the last id (clamp).",
    ],
)


# -- 5. the validation loss that training reaches ----------------------------------------------------------
def _training_target(train_ids, val_ids, vocab_size, seed):
    """Bounds, not answers: the validation loss must reach TARGET_LOSS; no prediction may see the future."""
    return TARGET_LOSS, 0.0


def _one_number_each(answer) -> str | None:
    """The answer is (validation loss, future influence): two numbers, as the chapter's evaluate returns."""
    if not isinstance(answer, (tuple, list)) or len(answer) != 2:
        return None  # the comparison has already said what is wrong
    for name, value in zip(("validation_loss", "future_influence"), answer):
        if isinstance(value, minitorch.Tensor) and value.requires_grad:
            return f"{name} still requires grad: evaluate under minitorch.no_grad() and return a number (.item())"
    return None


exercise(
    "ch15.validation_loss_after_training",
    function="validation_loss_after_training",
    reference=_training_target,
    public=[text_ids() + (0,)],
    labels=[
        f"seed 0, the run the chapter shows: the validation loss must reach {TARGET_LOSS} and the predictions "
        "must not change when later characters change"
    ],
    outputs=("validation_loss", "future_influence"),
    output_type="any",
    check_dtype=False,
    atol=1e-6,
    at_most=True,
    answer_check=_one_number_each,
    hints=[
        "Each step: draw random starts with the generator, cut a batch with get_batch, run the model, measure "
        "the cross-entropy between its logits and the targets at every position, and let the optimizer take "
        "one step on fresh gradients; the learning-rate schedule steps once per step too.",
        "The logits are (batch, block_size, vocab_size) and the targets (batch, block_size): F.cross_entropy "
        "wants one row per prediction, (N, vocab_size) against (N,). The starts go up to "
        "len(train_ids) - BLOCK_SIZE - 1, so that every target exists. Gradients accumulate in .grad until "
        "they are zeroed.",
        "minitorch.randint(low, high, (BATCH_SIZE,), generator=generator) (high is excluded); flatten logits and "
        "targets with reshape; then clear the old gradients, run backward, and step the optimizer and then the "
        "schedule, in that order.",
    ],
)
