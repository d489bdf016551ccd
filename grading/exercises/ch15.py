"""Chapter 15 (capstone: a character-level language model): cutting training windows from a text, an
embedding lookup as an autograd ``Function`` (its backward accumulates rows), causal multi-head
self-attention, sampling with temperature, and the validation loss that the learner's training loop reaches.

Expected values are computed by minitorch (``F.embedding`` and autograd, ``F.multi_head_attention_forward``
with a causal mask, ``softmax`` and ``searchsorted``), never written down; the public cases are inputs only.
The last exercise is judged, not compared: the learner's ``trained_parameters`` trains the chapter's model with
the learner's loop (on the grader's training text, from the grader's seed, for the chapter's fixed number of
steps) and returns its parameters; the judge (:func:`judge_on_text`, the same call in the instant check and in
the batch grader) loads them into the chapter's architecture, built here from the library's own pieces, and
computes the loss itself on **held-out text the learner's code never sees**: the entries G of *The Devil's
Dictionary* (``data/devils_dictionary_g.txt``, the instructor's side only; the notebook loads the entries A to
F). A constant, a count table or anything that is not the chapter's network cannot be submitted at all, and the
target ``TARGET_LOSS`` lies below what a trigram table counted on the training text reaches on that text (the
best of the no-network baselines: unigram, bigram, trigram, a constant), so only a trained network reaches it.

The learner's kit (``make learner-dist``) has no held-out text: it ships the same judge with the chapter's
validation split as its text (:func:`validation_data`, stored when the kit is built), and its check says that
it judged on that text and that the grade is measured on held-out text (``judging_data`` in the registry).

The texts are public domain (see ``notebooks/source/15_capstone/ABOUT_THE_TEXT.md`` and
``data/ABOUT_THE_HELD_OUT_TEXT.md``); the cases read them from disk and never download anything.
"""

import functools
from pathlib import Path

import numpy as np

import minitorch
import minitorch.nn as nn
import minitorch.nn.functional as F
import minitorch.optim as optim
from grading.registry import exercise, randn
from grading.withhold import DERIVATIVES

TEXT_NAME = "the_devils_dictionary.txt"
HELD_OUT = Path(__file__).resolve().parent / "data" / "devils_dictionary_g.txt"  # the instructor's side only
# The chapter's model and its training budget: the notebook's constants, which the judge rebuilds the model with.
BLOCK_SIZE, WIDTH, NUM_HEADS, BATCH_SIZE, STEPS, LEARNING_RATE = 24, 48, 2, 32, 1000, 2e-2
# Below the trigram table's 2.094 on the held-out text (the best no-network baseline); the reference's runs reach
# about 1.98 there (seeds 0 and 1), tests/grading/test_ch15_exercises.py measures both
TARGET_LOSS = 2.05
_COURSE = Path(__file__).resolve().parents[2] / "notebooks"


def chapter_text() -> str:
    """The chapter's text, from the instructor's edition (or the learner's, which holds the same file)."""
    for edition in ("source", "release"):
        path = _COURSE / edition / "15_capstone" / TEXT_NAME
        if path.is_file():
            return path.read_text(encoding="ascii")
    raise FileNotFoundError(f"{TEXT_NAME} is in neither notebooks/source/15_capstone nor notebooks/release/15_capstone")


@functools.cache
def _vocabulary() -> tuple[str, ...]:
    return tuple(sorted(set(chapter_text())))


def _encode(text: str) -> np.ndarray:
    lookup = {character: number for number, character in enumerate(_vocabulary())}
    unknown = sorted(set(text) - set(lookup))
    if unknown:
        raise ValueError(f"characters outside the chapter's vocabulary: {unknown!r}")
    return np.array([lookup[character] for character in text], dtype=np.int64)


def text_ids() -> tuple[np.ndarray, np.ndarray, int]:
    """``(train_ids, val_ids, vocab_size)`` as the chapter makes them: one id per distinct character in sorted
    order, the first 90% of the text for training and the rest for validation."""
    ids = _encode(chapter_text())
    split = int(0.9 * len(ids))
    return ids[:split], ids[split:], len(_vocabulary())


def held_out_data() -> dict:
    """What the grader measures a trained model on: the held-out entries G (the instructor's side only: the
    repository and the instructor's part hold them, the learner's kit does not)."""
    return {"ids": _encode(HELD_OUT.read_text(encoding="ascii")), "what": "the held-out entries G"}


def validation_data() -> dict:
    """What the learner's kit measures a trained model on, having no held-out text: the chapter's validation split
    (public: the learner's code could have seen it), and the note its check prints with each verdict."""
    return {
        "ids": text_ids()[1],
        "what": "the chapter's validation text",
        "note": "judged here on the chapter's validation text, which the notebook holds: your grade is measured "
                "the same way on held-out text that only the grader holds",
    }  # fmt: skip


def judging_ids() -> tuple[np.ndarray, str]:
    """``(ids, what they are)``: the text the grader measures the trained model on (:func:`held_out_data`)."""
    data = held_out_data()
    return data["ids"], data["what"]


def _ids(count, vocabulary, seed):
    return np.random.default_rng(seed).integers(0, vocabulary, size=count).astype(np.int64)


# -- 1. training windows ---------------------------------------------------------------------------------
def _get_batch(data, starts, block_size):
    # one gather of every window's ids, (len(starts), block_size + 1), then the two windows cut from it
    offsets = minitorch.arange(block_size + 1, dtype=starts.dtype)
    windows = data.index_select(0, (starts.unsqueeze(1) + offsets).flatten()).view(-1, block_size + 1)
    return windows[:, :-1], windows[:, 1:]


exercise(
    "ch15.get_batch",
    function="get_batch",
    reference=_get_batch,
    no_python_loop=True,
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
        "With positions[b, t] = starts[b] + t, a (batch, block_size) table of indices: inputs[b, t] = "
        "data[positions[b, t]], and targets[b, t] is the id one place further along the text.",
        "A row of offsets 0 .. block_size - 1 (minitorch.arange) added to a column of starts (a reshape with one "
        "column) broadcasts to that whole table; a tensor of indices used to index data gathers every entry in one "
        "step. Work out which table of indices gives the targets.",
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
    # the library's lookup (functional, module and op), and every derivative minitorch knows: a backward that runs
    # autograd on weight[indices] reaches the indexing op's
    withheld=("minitorch.nn.functional.embedding", "minitorch.nn.Embedding", "minitorch.ops.nn_ops.Embedding",
              DERIVATIVES),
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
        "One F.linear call projects to the three at once and .chunk splits its last dimension into Q, K and V. "
        "To give each head its own axis, reshape the features into (heads, d) and move the heads before the "
        "positions. A boolean (length, length) table that is True above the diagonal (triu) says where a key is "
        "in the future; masked_fill writes -inf there before the softmax over the keys. Merge the heads back in "
        "the reverse order.",
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
        "F.softmax subtracts the largest logit, so nothing overflows; cumsum along the vocabulary gives the "
        "running sums. Compare every running sum of a row with that row's u (give uniform a trailing dimension "
        "so that it broadcasts) and count, per row, the sums the comparison picks. If rounding leaves u above "
        "the last sum, the count says vocab_size: keep it at the last id.",

    ],
)


# -- 5. the trained model, measured by the judge on text the learner's code never sees ------------------------
class CharTransformer(nn.Module):
    """The chapter's model, its parameters named and ordered as the notebook's: the judge loads a learner's
    trained parameters into it. Its forward uses the library's own embedding and causal attention (the module
    ``nn.MultiheadAttention`` with the causal mask of ``nn.Transformer``), so nothing of the learner's code runs
    while the model is measured."""

    def __init__(self, vocab_size: int):
        super().__init__()
        self.token_vectors = nn.Parameter(minitorch.randn(vocab_size, WIDTH))
        self.position_vectors = nn.Parameter(0.1 * minitorch.randn(BLOCK_SIZE, WIDTH))
        self.attention_norm = nn.LayerNorm(WIDTH)
        self.attention = nn.MultiheadAttention(WIDTH, NUM_HEADS)
        self.mlp_norm = nn.LayerNorm(WIDTH)
        self.mlp = nn.Sequential(nn.Linear(WIDTH, 2 * WIDTH), nn.ReLU(), nn.Linear(2 * WIDTH, WIDTH))
        self.output_norm = nn.LayerNorm(WIDTH)
        self.head = nn.Linear(WIDTH, vocab_size)

    def forward(self, ids):
        x = F.embedding(ids, self.token_vectors) + self.position_vectors[: ids.shape[1]]
        # -inf above the diagonal: a position attends to itself and the positions before it
        causal = nn.Transformer.generate_square_subsequent_mask(ids.shape[1])
        normed = self.attention_norm(x).transpose(0, 1)  # (length, batch, width): the module's default layout
        attended, _ = self.attention(normed, normed, normed, attn_mask=causal, need_weights=False)
        x = x + attended.transpose(0, 1)
        x = x + self.mlp(self.mlp_norm(x))
        return self.head(self.output_norm(x))


def window_loss(logits_of, ids: np.ndarray) -> float:
    """The mean cross-entropy of next-character predictions over consecutive windows of ``ids`` (as the chapter's
    ``evaluate`` cuts them): ``logits_of`` maps a (windows, BLOCK_SIZE) int64 tensor to its logits."""
    count = (len(ids) - 1) // BLOCK_SIZE
    windows = minitorch.tensor(ids[: count * BLOCK_SIZE].reshape(count, BLOCK_SIZE))
    following = minitorch.tensor(ids[1 : count * BLOCK_SIZE + 1].reshape(count, BLOCK_SIZE))
    with minitorch.no_grad():
        logits = logits_of(windows)
        return float(F.cross_entropy(logits.flatten(0, 1), following.flatten()).item())


@functools.cache
def baselines() -> dict[str, float]:
    """The no-network baselines on the held-out text, counted on the chapter's training text
    (:func:`count_baselines`)."""
    train, _, vocab_size = text_ids()
    return count_baselines(train, judging_ids()[0], vocab_size)


def count_baselines(train: np.ndarray, judged: np.ndarray, vocab_size: int) -> dict[str, float]:
    """The no-network baselines on the ids ``judged``, counted on the ids ``train`` (add-0.1 smoothing, as the
    chapter's): a constant (the uniform guess: every constant prediction scores at least the unigram's
    cross-entropy, and uniform is the constant that needs no counting), unigram, bigram and trigram tables."""
    vocab_size = int(vocab_size)
    losses = {"constant (uniform)": float(np.log(vocab_size))}
    for order, name in ((1, "unigram"), (2, "bigram"), (3, "trigram")):
        counts = np.full((vocab_size,) * order, 0.1)
        np.add.at(counts, tuple(train[i : len(train) - order + 1 + i] for i in range(order)), 1)
        table = counts / counts.sum(axis=-1, keepdims=True)
        following = tuple(judged[i : len(judged) - order + 1 + i] for i in range(order))
        losses[name] = float(-np.log(table[following]).mean())
    return losses


def judge_on_text(outputs: list, case: tuple, data: dict) -> str | None:
    """The learner's trained parameters (arrays, in the order of ``CharTransformer.state_dict()``) loaded into the
    chapter's model, measured on ``data["ids"]`` (the held-out text, or the learner's kit's validation text): None
    when the loss is at most ``TARGET_LOSS``, else why not."""
    train_ids, vocab_size, _ = case
    model = CharTransformer(vocab_size=int(vocab_size))
    names = list(model.state_dict())
    shapes = [tuple(value.shape) for value in model.state_dict().values()]
    got = [tuple(array.shape) for array in outputs]
    if got != shapes:
        return (
            f"expected the {len(shapes)} tensors of the chapter's CharTransformer, in the order of its state_dict() "
            f"(trained_parameters, already written, returns them), got {len(got)} whose shapes do not match: keep "
            "the model and its sizes (BLOCK_SIZE, WIDTH, NUM_HEADS) as the chapter gives them"
        )
    if not all(np.isfinite(array).all() for array in outputs):
        return "the trained parameters hold nan or inf: the training diverged (look at the loss during training)"
    model.load_state_dict({name: minitorch.tensor(array.astype(np.float32)) for name, array in zip(names, outputs)})
    model.eval()
    judged = np.asarray(data["ids"])
    loss = window_loss(model, judged)
    if not loss <= TARGET_LOSS:
        trigram = count_baselines(np.asarray(train_ids), judged, vocab_size)["trigram"]
        return (
            f"the trained model's loss on {data['what']}, measured by the judge, is {loss:.3f}: above the target "
            f"{TARGET_LOSS} (a trigram table counted on the training text reaches {trigram:.3f}; a model trained "
            "with a correct loop reaches about 1.98 on the held-out text)"
        )
    return None


def judge_trained_model(outputs: list, case: tuple) -> str | None:
    """The grader's verdict: :func:`judge_on_text` on the held-out text."""
    return judge_on_text(outputs, case, held_out_data())


def _train_reference(train_ids, vocab_size, seed):
    """A correct answer, written independently of the notebook: the chapter's model trained by the chapter's loop
    with the library's pieces, its parameters in state_dict order. The tests judge it; grading never calls it."""
    minitorch.manual_seed(int(seed))
    model = CharTransformer(int(vocab_size))
    generator = minitorch.Generator().manual_seed(int(seed))
    optimizer = optim.AdamW(model.parameters(), lr=LEARNING_RATE)
    schedule = optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1 - step / STEPS)
    for _ in range(STEPS):
        starts = minitorch.randint(0, len(train_ids) - BLOCK_SIZE, (BATCH_SIZE,), generator=generator)
        inputs, targets = _get_batch(train_ids, starts, BLOCK_SIZE)
        loss = F.cross_entropy(model(inputs).reshape(-1, vocab_size), targets.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        schedule.step()
    return tuple(value.detach() for value in model.state_dict().values())


exercise(
    "ch15.trained_model",
    function="trained_parameters",
    reference=_train_reference,
    # the call trains the model: 18 s on a quiet 2-core machine, past the grader's 30 s per call on a busy one
    seconds=120,
    judge=judge_on_text,
    judging_data=held_out_data,
    public_judging_data=validation_data,
    public=[(text_ids()[0], text_ids()[2], 0)],
    labels=[
        f"seed 0, the run the chapter shows: loaded into the chapter's model, the trained parameters must reach a "
        f"loss of {TARGET_LOSS} or less on text the training never saw"
    ],
    hints=[
        "Each step: draw random starts with the generator, cut a batch with get_batch, run the model, measure "
        "the cross-entropy between its logits and the targets at every position, and let the optimizer take "
        "one step on fresh gradients; the learning-rate schedule steps once per step too.",
        "The logits are (batch, block_size, vocab_size) and the targets (batch, block_size): F.cross_entropy "
        "wants one row per prediction, (N, vocab_size) against (N,). The starts go up to "
        "len(train_ids) - BLOCK_SIZE - 1, so that every target exists. Gradients accumulate in .grad until "
        "they are zeroed.",
        "minitorch.randint takes the lowest start, a bound that is excluded, the shape (BATCH_SIZE,) and "
        "generator=...; reshape turns the logits and the targets into rows; then clear the old gradients, run "
        "backward, and step the optimizer and then the schedule, in that order.",
    ],
)
