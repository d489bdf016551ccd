"""Chapter 15's checks (the capstone language model) reject the mistakes a learner plausibly makes, with feedback
that names them; a correct solution written another way passes; the references are what PyTorch does; the
trained model is judged on held-out text by the grader's own forward, which the reference clears and no shortcut
without a trained network reaches.

Each mistake of the training loop trains a model (several seconds each): the loss check is a real training run.
The checks every chapter shares (the solutions pass, the blank stubs report "not implemented yet") are in
test_chapter_exercises.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from grading import check, randn
from grading.exercises.ch15 import TARGET_LOSS, text_ids
from grading.registry import get
from tests.grading.chapter_notebooks import graded_cells, solutions
from tests.grading.withheld_support import run_with_withheld, withheld_names_missing
from tests.support import require_torch

CHAPTER = "15_capstone"


def _first_failure(capsys) -> str:
    return [line for line in capsys.readouterr().out.splitlines() if "FAILED" in line][0]


def _fails(name, function, capsys) -> str:
    with pytest.raises(AssertionError):
        check(name, function)
    return _first_failure(capsys)


# -- 1. training windows ----------------------------------------------------------------------------------
def _positions(starts, block_size):
    return starts.reshape(-1, 1) + minitorch.arange(block_size)


GET_BATCH_MISTAKES = {
    "targets not moved: the model would learn to copy its input": (
        lambda data, starts, block_size: (data[_positions(starts, block_size)],) * 2,
        "output 2 (targets): wrong values",
    ),
    "targets moved the wrong way (the previous character)": (
        lambda data, starts, block_size: (
            data[_positions(starts, block_size)], data[_positions(starts, block_size) - 1]),
        "output 2 (targets): wrong values",
    ),
    "windows one character too long": (
        lambda data, starts, block_size: (
            data[_positions(starts, block_size + 1)], data[_positions(starts, block_size + 1) + 1]),
        "raised IndexError",  # the last window runs past the end of the text
    ),
    "inputs and targets swapped": (
        lambda data, starts, block_size: (
            data[_positions(starts, block_size) + 1], data[_positions(starts, block_size)]),
        "output 1 (inputs): wrong values",
    ),
}  # fmt: skip


@pytest.mark.parametrize("mistake", sorted(GET_BATCH_MISTAKES))
def test_get_batch_mistakes_fail_with_feedback_naming_them(mistake, capsys):
    function, words = GET_BATCH_MISTAKES[mistake]
    assert words in _fails("ch15.get_batch", function, capsys)


def test_get_batch_written_differently_passes(capsys):
    """One gather of the longer windows (index_select on the flattened positions), then the two windows cut."""

    def get_batch(data, starts, block_size):
        positions = starts[:, None] + minitorch.arange(block_size + 1)
        windows = data.index_select(0, positions.reshape(-1)).reshape(len(starts), block_size + 1)
        return windows[:, :block_size].clone(), windows[:, 1:].clone()

    check("ch15.get_batch", get_batch)
    assert "all 3 public cases pass" in capsys.readouterr().out


def _loop_batch(data, starts, block_size):
    windows = minitorch.stack([data[start : start + block_size + 1] for start in starts.tolist()])
    return windows[:, :block_size].clone(), windows[:, 1:].clone()


def _while_batch(data, starts, block_size):
    rows, index = [], 0
    while index < len(starts):
        start = int(starts[index])
        rows.append(data[start : start + block_size + 1])
        index += 1
    windows = minitorch.stack(rows)
    return windows[:, :-1], windows[:, 1:]


def _map_batch(data, starts, block_size):
    windows = minitorch.stack(list(map(lambda start: data[start : start + block_size + 1], starts.tolist())))
    return windows[:, :-1], windows[:, 1:]


@pytest.mark.parametrize(
    "function, what",
    [(_loop_batch, "a list comprehension"), (_while_batch, "a while loop"), (_map_batch, "a call of map")],
)
def test_get_batch_with_a_python_loop_fails_though_its_values_are_right(function, what, capsys):
    """The text asks for no Python loop: the check reads the function's code (values alone cannot tell)."""
    for case in get("ch15.get_batch").public:
        reference = get("ch15.get_batch").reference(*(minitorch.tensor(a) if isinstance(a, np.ndarray) else a
                                                      for a in case))
        mine = function(*(minitorch.tensor(a) if isinstance(a, np.ndarray) else a for a in case))
        assert all(np.array_equal(r.numpy(), m.numpy()) for r, m in zip(reference, mine))
    failure = _fails("ch15.get_batch", function, capsys)
    assert f"has {what}" in failure and "no Python loop" in failure


def test_the_loop_reader_reads_the_last_definition_and_ignores_other_functions():
    from grading.checks import python_loop

    source = (
        "def helper(x):\n    return [i for i in x]\n\n"
        "def get_batch(data, starts, block_size):\n    for s in starts:\n        pass\n\n"
        "def get_batch(data, starts, block_size):\n    return data[starts]\n"
    )
    assert python_loop(source, "get_batch") is None
    assert "a for loop (line 2" in python_loop(source.rsplit("\n\ndef get_batch", 1)[0], "get_batch")
    assert python_loop("def get_batch(:", "get_batch") is None


def test_get_batch_reference_by_hand():
    inputs, targets = get("ch15.get_batch").reference(minitorch.arange(10) * 10, minitorch.tensor([0, 5]), 3)
    assert inputs.tolist() == [[0, 10, 20], [50, 60, 70]]
    assert targets.tolist() == [[10, 20, 30], [60, 70, 80]]


# -- 2. the embedding lookup's backward --------------------------------------------------------------------
def _embedding_with(backward):
    def embedding_forward_backward(weight, indices, grad_output):
        return weight[indices], backward(weight.shape[0], indices, grad_output)

    return embedding_forward_backward


def _assigned(rows, indices, grad_output):  # indexed assignment: a repeated id keeps one of its rows
    grad_weight = minitorch.zeros(rows, grad_output.shape[-1], dtype=grad_output.dtype)
    grad_weight[indices.reshape(-1)] = grad_output.reshape(-1, grad_output.shape[-1])
    return grad_weight


def _every_row(rows, indices, grad_output):  # the whole batch's gradient sent to every row of the table
    total = grad_output.reshape(-1, grad_output.shape[-1]).sum(dim=0)
    return total.expand(rows, grad_output.shape[-1]).clone()


def _not_flattened(rows, indices, grad_output):  # index_add_ on 2-d ids: the first case passes, the second raises
    grad_weight = minitorch.zeros(rows, grad_output.shape[-1], dtype=grad_output.dtype)
    return grad_weight.index_add_(0, indices, grad_output)


EMBEDDING_MISTAKES = {
    "indexed assignment: repeated ids keep one gradient": (_assigned, "public case 1 of 3 (id 1 looked up three times"),
    "the batch's gradient sent to every row": (_every_row, "output 2 (grad_weight): wrong values"),
    "ids not flattened for index_add_": (_not_flattened, "public case 2 of 3 (a batch of sequences (2-d ids)"),
}  # fmt: skip


@pytest.mark.parametrize("mistake", sorted(EMBEDDING_MISTAKES))
def test_embedding_mistakes_fail_with_feedback_naming_them(mistake, capsys):
    backward, words = EMBEDDING_MISTAKES[mistake]
    assert words in _fails("ch15.embedding_forward_backward", _embedding_with(backward), capsys)


def test_embedding_written_differently_passes(capsys):
    """Backward as a matrix product: the one-hot rows of the ids, transposed, times grad_output."""

    def one_hot_backward(rows, indices, grad_output):
        one_hot = F.one_hot(indices.reshape(-1), rows).to(grad_output.dtype)
        return one_hot.T @ grad_output.reshape(-1, grad_output.shape[-1])

    check("ch15.embedding_forward_backward", _embedding_with(one_hot_backward))
    assert "all 3 public cases pass" in capsys.readouterr().out


def test_embedding_function_passes_gradcheck_inside_autograd():
    lookup = solutions(CHAPTER)["EmbeddingLookup"]
    table = minitorch.randn(6, 3, dtype=minitorch.float64, requires_grad=True)
    ids = minitorch.tensor([[5, 1, 5], [0, 5, 5]])
    assert minitorch.autograd.gradcheck(lambda weight: lookup.apply(weight, ids), (table,))


def test_the_embedding_reference_matches_torch():
    torch = require_torch()
    weight, indices, grad_output = get("ch15.embedding_forward_backward").public[1]
    rows, grad_weight = get("ch15.embedding_forward_backward").reference(
        minitorch.tensor(weight), minitorch.tensor(indices), minitorch.tensor(grad_output)
    )
    theirs = torch.tensor(weight, requires_grad=True)
    looked_up = torch.nn.functional.embedding(torch.tensor(indices), theirs)
    looked_up.backward(torch.tensor(grad_output))
    np.testing.assert_array_equal(rows.numpy(), looked_up.detach().numpy())
    np.testing.assert_allclose(grad_weight.numpy(), theirs.grad.numpy(), rtol=1e-12, atol=1e-14)


# -- 3. causal self-attention -----------------------------------------------------------------------------
def _attention_with(*, mask="causal", scale_by="head", split="transpose", project_out=True):
    def causal_self_attention(x, in_weight, in_bias, out_weight, out_bias, num_heads):
        batch, length, width = x.shape
        head_width = width // num_heads
        query, key, value = F.linear(x, in_weight, in_bias).chunk(3, dim=-1)

        def heads_of(features):
            if split == "transpose":
                return features.reshape(batch, length, num_heads, head_width).transpose(1, 2)
            return features.reshape(batch, num_heads, length, head_width)  # the features' order scrambled

        scores = heads_of(query) @ heads_of(key).transpose(-2, -1)
        scores = scores / math.sqrt(head_width if scale_by == "head" else width)
        ones = minitorch.ones(length, length, dtype=minitorch.bool)
        if mask == "causal":
            scores = scores.masked_fill(ones.triu(1), float("-inf"))
        elif mask == "past hidden":  # the mask turned around: the future visible, the past hidden
            scores = scores.masked_fill(ones.tril(-1), float("-inf"))
        weights = F.softmax(scores, dim=-1)
        merged = (weights @ heads_of(value)).transpose(1, 2).reshape(batch, length, width)
        return F.linear(merged, out_weight, out_bias) if project_out else merged

    return causal_self_attention


ATTENTION_MISTAKES = {
    "no causal mask": (_attention_with(mask="none"), "public case 1 of 3 (one head of width 4: position t may look"),
    "the mask turned around (future visible)": (_attention_with(mask="past hidden"), "public case 1 of 3"),
    "scores scaled by the model's width": (_attention_with(scale_by="model"), "public case 2 of 3 (two heads"),
    "heads cut by reshape alone": (_attention_with(split="reshape"), "public case 2 of 3 (two heads"),
    "no output projection": (_attention_with(project_out=False), "public case 1 of 3"),
}  # fmt: skip


@pytest.mark.parametrize("mistake", sorted(ATTENTION_MISTAKES))
def test_attention_mistakes_fail_with_feedback_naming_them(mistake, capsys):
    function, words = ATTENTION_MISTAKES[mistake]
    assert words in _fails("ch15.causal_self_attention", function, capsys)


def test_attention_written_differently_passes(capsys):
    """One head at a time with its own slices of the weights, an additive mask, the heads concatenated."""

    def causal_self_attention(x, in_weight, in_bias, out_weight, out_bias, num_heads):
        length, width = x.shape[1], x.shape[2]
        head_width = width // num_heads
        blocked = minitorch.full((length, length), float("-inf"), dtype=x.dtype).triu(1)
        outputs = []
        for head in range(num_heads):
            rows = [part * width + head * head_width for part in range(3)]
            q, k, v = (F.linear(x, in_weight[r : r + head_width], in_bias[r : r + head_width]) for r in rows)
            scores = q @ k.transpose(1, 2) * head_width**-0.5 + blocked
            outputs.append(scores.softmax(dim=-1) @ v)
        return minitorch.cat(outputs, dim=-1) @ out_weight.T + out_bias

    check("ch15.causal_self_attention", causal_self_attention)
    assert "all 3 public cases pass" in capsys.readouterr().out


def test_the_attention_reference_matches_torch_multihead_attention():
    torch = require_torch()
    x, in_weight, in_bias, out_weight, out_bias, num_heads = get("ch15.causal_self_attention").public[2]
    ours = get("ch15.causal_self_attention").reference(
        *(minitorch.tensor(a) for a in (x, in_weight, in_bias, out_weight, out_bias)), num_heads
    )
    module = torch.nn.MultiheadAttention(x.shape[2], num_heads, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        module.in_proj_weight.copy_(torch.tensor(in_weight))
        module.in_proj_bias.copy_(torch.tensor(in_bias))
        module.out_proj.weight.copy_(torch.tensor(out_weight))
        module.out_proj.bias.copy_(torch.tensor(out_bias))
    length = x.shape[1]
    mask = torch.nn.Transformer.generate_square_subsequent_mask(length, dtype=torch.float64)
    theirs, _ = module(*(torch.tensor(x),) * 3, attn_mask=mask, need_weights=False)
    np.testing.assert_allclose(ours.numpy(), theirs.detach().numpy(), rtol=1e-10, atol=1e-12)


# -- 4. sampling with temperature -------------------------------------------------------------------------
def _sample_with(*, scale="divide", stable=True, comparison="at most"):
    def sample_next(logits, temperature, uniform):
        scaled = logits / temperature if scale == "divide" else logits * temperature
        exponentials = (scaled - scaled.amax(dim=-1, keepdim=True)).exp() if stable else scaled.exp()
        running_sums = (exponentials / exponentials.sum(dim=-1, keepdim=True)).cumsum(dim=-1)
        if comparison == "at most":
            drawn = (running_sums <= uniform.unsqueeze(-1)).sum(dim=-1)
        else:  # counting the sums above u: the ids in reverse order
            drawn = (running_sums > uniform.unsqueeze(-1)).sum(dim=-1)
        return drawn.clamp(max=logits.shape[-1] - 1)

    return sample_next


SAMPLE_MISTAKES = {
    "logits multiplied by the temperature": (_sample_with(scale="multiply"), "public case 2 of 4 (temperature 0.5"),
    "exp without subtracting the largest logit": (_sample_with(stable=False), "public case 4 of 4 (logits near 90"),
    "the sums above u counted": (_sample_with(comparison="above"), "public case 1 of 4 (temperature 1"),
    "always the most likely id": (lambda logits, temperature, uniform: logits.argmax(dim=-1), "public case 1 of 4"),
}  # fmt: skip


@pytest.mark.parametrize("mistake", sorted(SAMPLE_MISTAKES))
def test_sampling_mistakes_fail_with_feedback_naming_them(mistake, capsys):
    function, words = SAMPLE_MISTAKES[mistake]
    assert words in _fails("ch15.sample_next", function, capsys)


def test_sampling_written_differently_passes(capsys):
    """The first id whose running sum exceeds u, found with argmax on the comparison (the first True)."""

    def sample_next(logits, temperature, uniform):
        running_sums = (logits / temperature).softmax(dim=-1).cumsum(dim=-1)
        above = running_sums > uniform.reshape(-1, 1)
        above[:, -1] = True  # u above a sum that rounded below 1: the last id
        return above.int().argmax(dim=-1)

    check("ch15.sample_next", sample_next)
    assert "all 4 public cases pass" in capsys.readouterr().out


def test_the_sampling_reference_draws_with_the_softmax_frequencies():
    """Many uniform numbers through the reference give the softmax's probabilities (inverse transform)."""
    logits = minitorch.tensor(randn(1, 5, seed=7)).expand(40000, 5)
    uniform = minitorch.tensor(np.random.default_rng(8).random(40000).astype(np.float32))
    drawn = get("ch15.sample_next").reference(logits, 0.7, uniform)
    frequencies = np.bincount(drawn.numpy(), minlength=5) / 40000
    np.testing.assert_allclose(frequencies, F.softmax(logits[0] / 0.7, dim=-1).numpy(), atol=0.01)


# -- 5. the training loop, graded on the trained model's loss on held-out text --------------------------------
def _training(replace: tuple[str, str] | None = None, **names):
    """trained_parameters, from the solution cell with one line replaced and names swapped in."""
    source = graded_cells(CHAPTER, "source", "solution")["ch15-training"]
    if replace is not None:
        assert replace[0] in source, replace[0]
        source = source.replace(replace[0], replace[1])
    namespace = dict(solutions(CHAPTER))
    exec(source, namespace)
    namespace.update(names)
    return namespace["trained_parameters"]


LOSS_LINE = "loss = F.cross_entropy(logits.reshape(-1, vocab_size), targets.reshape(-1))"
ABOVE = "above the target"
TRAINING_MISTAKES = {
    "gradients never zeroed": (("optimizer.zero_grad()\n", "\n"), {}, ABOVE),
    "the loss of the last position only": (
        (LOSS_LINE, "loss = F.cross_entropy(logits[:, -1], targets[:, -1])"), {}, ABOVE),
    "the inputs as targets": (
        ("inputs, targets = get_batch(train_ids, starts, BLOCK_SIZE)",
         "inputs, _ = get_batch(train_ids, starts, BLOCK_SIZE); targets = inputs"), {}, ABOVE),
    "logits not flattened for cross_entropy": (
        (LOSS_LINE, "loss = F.cross_entropy(logits, targets)"), {}, "raised RuntimeError: Expected target size"),
    # trained to read the next character, the model fails where the grader's (causal) model cannot see it
    "attention that sees the future": (None, {"causal_self_attention": _attention_with(mask="none")}, ABOVE),
}  # fmt: skip


@pytest.mark.parametrize("mistake", sorted(TRAINING_MISTAKES))
def test_training_mistakes_fail_with_feedback_naming_them(mistake, capsys):
    replace, names, words = TRAINING_MISTAKES[mistake]
    failure = _fails("ch15.trained_model", _training(replace, **names), capsys)
    assert words in failure
    if words == ABOVE:
        assert "measured by the judge" in failure and "held-out entries G" in failure


def test_training_written_differently_passes(capsys):
    """Gradients cleared through the model, the (N, C, length) form of cross_entropy, the starts drawn with
    Tensor.random_ from the same generator."""
    loop = graded_cells(CHAPTER, "source", "solution")["ch15-training"]
    solution = loop.split("### BEGIN SOLUTION\n", 1)[1].split("### END SOLUTION", 1)[0]
    indent = " " * 4
    other = "\n".join(indent + line for line in [
        "for step in range(steps):",
        "    model.zero_grad()",
        "    starts = minitorch.empty(BATCH_SIZE, dtype=minitorch.int64)",
        "    starts.random_(0, len(train_ids) - BLOCK_SIZE, generator=generator)",
        "    windows, following = get_batch(train_ids, starts, BLOCK_SIZE)",
        "    F.cross_entropy(model(windows).transpose(1, 2), following).backward()",
        "    optimizer.step()",
        "    schedule.step()",
    ]) + "\n"  # fmt: skip
    function = _training((solution, other))
    check("ch15.trained_model", function)
    assert "all 1 public cases pass" in capsys.readouterr().out


def _judge(function, seed=0):
    """The judge's sentence on what ``function`` returns for the public case's text and ``seed`` (None: passes)."""
    from grading.checks import judged
    from grading.compare import UnsupportedOutput, output_arrays

    exercise = get("ch15.trained_model")
    case = exercise.public[0][:2] + (seed,)
    try:
        _, arrays = output_arrays(function(minitorch.tensor(case[0]), case[1], seed))
    except UnsupportedOutput as error:
        return str(error)
    return judged(exercise, arrays, case)


def test_the_reference_and_the_notebook_reach_the_target_on_held_out_text_for_two_seeds():
    """Judged as the grader judges: the grader's own reference and the notebook's solution, seeds 0 and 1."""
    notebook = solutions(CHAPTER)["trained_parameters"]
    assert _judge(get("ch15.trained_model").reference) is None
    assert _judge(notebook, seed=0) is None and _judge(notebook, seed=1) is None


def _bigram_table(ids: np.ndarray, vocab_size: int) -> np.ndarray:
    counts = np.full((vocab_size, vocab_size), 0.1)
    np.add.at(counts, (ids[:-1], ids[1:]), 1)
    return np.log(counts / counts.sum(axis=1, keepdims=True))


def _model_parameters(vocab_size: int, **values) -> tuple:
    """The chapter's model's parameters with some replaced: attention and MLP outputs zeroed, so that the logits
    are the head applied to each character's own (normalised) vector: a table of one character's context."""
    from grading.exercises.ch15 import CharTransformer

    minitorch.manual_seed(0)
    state = CharTransformer(vocab_size).state_dict()
    for name in ("attention.out_proj.weight", "attention.out_proj.bias", "mlp.2.weight", "mlp.2.bias"):
        state[name] = minitorch.zeros_like(state[name])
    state.update({name: minitorch.tensor(np.asarray(value, dtype=np.float32)) for name, value in values.items()})
    return tuple(state.values())


def _table_in_the_model(table: np.ndarray, vocab_size: int) -> tuple:
    """A bigram table written into the model's weights as well as 48 features allow: each character's vector is
    row i of the table's best rank-48 factor (standardised, so that the layer norm keeps it), the head the other."""
    centred = table - table.mean(axis=1, keepdims=True)
    left, values, right = np.linalg.svd(centred)
    rank = 48
    vectors = left[:, :rank] * values[:rank]
    mean, std = vectors.mean(axis=1, keepdims=True), vectors.std(axis=1, keepdims=True) + 1e-6
    standardised = (vectors - mean) / std
    head = np.linalg.lstsq(standardised, centred, rcond=None)[0].T  # (vocab, 48)
    return _model_parameters(
        vocab_size, token_vectors=standardised, position_vectors=np.zeros((24, 48)), **{"head.weight": head,
        "head.bias": np.zeros(vocab_size)},
    )  # fmt: skip


def test_shortcuts_without_a_trained_network_score_nothing():
    """A constant, a table fitted on the validation ids the notebook holds, and a trigram table counted on the
    training text: returned as such, or written into the chapter's model, none reaches the target."""
    train, val, vocab_size = text_ids()

    def constant(train_ids, vocab_size, seed):
        return minitorch.tensor(2.0), minitorch.tensor(0.0)  # the old interface's "loss" and "future influence"

    def trigram_table(train_ids, vocab_size, seed):
        counts = np.full((vocab_size,) * 3, 0.1)
        ids = train_ids.numpy()
        np.add.at(counts, (ids[:-2], ids[1:-1], ids[2:]), 1)
        return minitorch.tensor(np.log(counts / counts.sum(axis=2, keepdims=True)))

    def constant_model(train_ids, vocab_size, seed):  # the same prediction everywhere: the unigram's frequencies
        unigram = np.log(np.bincount(val, minlength=vocab_size) + 0.1)
        return _model_parameters(vocab_size, **{"head.weight": np.zeros((vocab_size, 48)), "head.bias": unigram})

    def validation_table_in_the_model(train_ids, vocab_size, seed):
        return _table_in_the_model(_bigram_table(val, vocab_size), vocab_size)

    for shortcut, words in [
        (constant, "expected the 18 tensors"), (trigram_table, "expected the 18 tensors"),
        (constant_model, ABOVE), (validation_table_in_the_model, ABOVE),
    ]:  # fmt: skip
        verdict = _judge(shortcut)
        assert verdict is not None and words in verdict, (shortcut.__name__, verdict)


def test_the_target_is_below_every_no_network_baseline_on_the_held_out_text():
    from grading.exercises.ch15 import baselines, judging_ids

    assert judging_ids()[1] == "the held-out entries G"
    losses = baselines()
    assert set(losses) == {"constant (uniform)", "unigram", "bigram", "trigram"}
    assert TARGET_LOSS < min(losses.values()) - 0.03, losses
    # the trigram by hand, counted on the training text and measured on the held-out ids
    train, _, vocab_size = text_ids()
    held, _ = judging_ids()
    counts = np.full((vocab_size,) * 3, 0.1)
    np.add.at(counts, (train[:-2], train[1:-1], train[2:]), 1)
    trigram = -np.log((counts / counts.sum(axis=2, keepdims=True))[held[:-2], held[1:-1], held[2:]]).mean()
    assert math.isclose(losses["trigram"], trigram)


def test_the_held_out_text_is_not_in_the_learners_edition():
    """The entries G are the judge's alone: not in the chapter's text, nor anywhere in the learner's folder."""
    from grading.exercises.ch15 import _COURSE, HELD_OUT

    held = HELD_OUT.read_text(encoding="ascii")
    assert held.startswith("GALLOWS, n.") and len(held) > 10_000
    for path in (_COURSE / "release" / CHAPTER).iterdir():
        if path.is_file():
            assert held[:2000] not in path.read_text(encoding="utf-8", errors="replace"), path


def test_the_notebooks_target_is_the_graders():
    import json

    from grading.exercises.ch15 import _COURSE

    notebook = json.loads((_COURSE / "source" / CHAPTER / f"{CHAPTER}.ipynb").read_text())
    text = "".join("".join(cell["source"]) for cell in notebook["cells"])
    assert f"TARGET_LOSS = {TARGET_LOSS}\n" in text


# -- the at-most comparison the loss check uses ----------------------------------------------------------------
def test_at_most_passes_at_or_below_the_bound_and_fails_above_it_or_on_nan():
    from grading.compare import compare

    def at_most(loss, influence):
        bound = [np.asarray(2.0), np.asarray(0.0)]
        return compare(bound, [np.asarray(loss), np.asarray(influence)], rtol=0, atol=1e-6, check_dtype=False,
                       at_most=True)  # fmt: skip

    assert at_most(1.5, 0.0) is None and at_most(2.0, 1e-7) is None
    above = at_most(2.5, 0.0)
    assert above.kind == "above" and above.detail == "output 1: 2.5 is above the target 2"
    assert above.safe_detail == "output 1: above the target"
    nan = at_most(1.0, np.nan)
    assert nan.kind == "above" and "output 2" in nan.detail


# -- the withheld pieces: the grader switches the library's embedding and attention off while they are graded ------
def test_every_withheld_piece_exists():
    assert withheld_names_missing("ch15") == []


@pytest.mark.parametrize(
    "name, cheat",
    [
        (
            "ch15.embedding_forward_backward",
            "def cheat(weight, indices, grad_output):\n"
            "    weight = weight.detach().requires_grad_()\n"
            "    output = F.embedding(indices, weight)\n"
            "    output.backward(grad_output)\n"
            "    return output.detach(), weight.grad",
        ),
        (  # a backward that lets autograd differentiate the lookup: the indexing op's derivative is minitorch's
            "ch15.embedding_forward_backward",
            "def cheat(weight, indices, grad_output):\n"
            "    weight = weight.detach().requires_grad_()\n"
            "    rows = weight[indices]\n"
            "    rows.backward(grad_output)\n"
            "    return rows.detach(), weight.grad",
        ),
        (
            "ch15.causal_self_attention",
            "def cheat(x, in_weight, in_bias, out_weight, out_bias, num_heads):\n"
            "    q, k, v = F.linear(x, in_weight, in_bias).chunk(3, dim=-1)\n"
            "    return F.scaled_dot_product_attention(q, k, v, is_causal=True)",
        ),
    ],
)
def test_the_solutions_pass_and_shortcuts_raise_with_the_pieces_withheld(name, cheat):
    assert "is not available while this exercise is graded" in run_with_withheld(name, "15_capstone", cheat)


# -- the same verdicts through minitorch-grade: fixture notebooks graded in the sandbox -----------------------------
CHEAP_MODEL = '''

def trained_model(train_ids, vocab_size, seed):  # no training: the shortcut below is all there is
    minitorch.manual_seed(seed)
    return CharTransformer(vocab_size)
'''
SHORTCUTS = {
    "constant": CHEAP_MODEL + '''
def trained_parameters(train_ids, vocab_size, seed):
    return minitorch.tensor(2.0), minitorch.tensor(0.0)
''',
    "trigram_on_the_training_text": CHEAP_MODEL + '''
def trained_parameters(train_ids, vocab_size, seed):
    ids = train_ids.numpy()
    counts = np.full((vocab_size,) * 3, 0.1)
    np.add.at(counts, (ids[:-2], ids[1:-1], ids[2:]), 1)
    return minitorch.tensor(np.log(counts / counts.sum(axis=2, keepdims=True)))
''',
    # the sandbox has no copy of the chapter's text: the shortcut carries the validation text in its own cell
    "validation_table_in_the_model": CHEAP_MODEL + '''
def trained_parameters(train_ids, vocab_size, seed):
    val_array = np.array([VOCABULARY.index(character) for character in VALIDATION_TEXT])
    counts = np.full((vocab_size, vocab_size), 0.1)
    np.add.at(counts, (val_array[:-1], val_array[1:]), 1)  # fitted on the validation text
    table = np.log(counts / counts.sum(axis=1, keepdims=True))
    centred = table - table.mean(axis=1, keepdims=True)
    left, values, _ = np.linalg.svd(centred)
    vectors = left[:, :WIDTH] * values[:WIDTH]
    vectors = (vectors - vectors.mean(axis=1, keepdims=True)) / (vectors.std(axis=1, keepdims=True) + 1e-6)
    head = np.linalg.lstsq(vectors, centred, rcond=None)[0].T
    model = CharTransformer(vocab_size)
    state = model.state_dict()
    for name in ("attention.out_proj.weight", "attention.out_proj.bias", "mlp.2.weight", "mlp.2.bias",
                 "position_vectors", "head.bias"):
        state[name] = minitorch.zeros_like(state[name])
    state["token_vectors"] = minitorch.tensor(vectors.astype(np.float32))
    state["head.weight"] = minitorch.tensor(head.astype(np.float32))
    return tuple(state.values())
''',
}


# The reference trains the capstone in one graded call: 18 s on a quiet 2-core machine, where a call may take 30 s.
# Beside another test worker it once ran past that limit; the exercise now allows 120 s (Exercise.seconds), and
# make test grades this batch alone, after the parallel part, so that its verdicts never hang on another's load
@pytest.mark.serial
def test_minitorch_grade_scores_the_shortcuts_0_and_the_reference_full(tmp_path):
    """The chapter's source notebook (the reference) and three copies whose training cell ends with a shortcut,
    graded by minitorch-grade: the shortcuts lose exactly the trained model's part, the reference scores full."""
    import csv
    import json
    import shutil

    from grading.cli import main
    from grading.exercises.ch15 import _COURSE, chapter_text
    from grading.notebook import read_assignment
    from tests.grading.conftest import require_bwrap

    require_bwrap()
    source = _COURSE / "source" / CHAPTER / f"{CHAPTER}.ipynb"
    folder = tmp_path / "submitted"
    folder.mkdir()
    shutil.copy(source, folder / "reference.ipynb")
    document = json.loads(source.read_text())
    text = chapter_text()
    texts = f"VOCABULARY = {''.join(sorted(set(text)))!r}\nVALIDATION_TEXT = {text[int(0.9 * len(text)):]!r}\n"
    for name, shortcut in SHORTCUTS.items():
        shortcut = "\n" + texts + shortcut
        copy = json.loads(json.dumps(document))
        for cell in copy["cells"]:
            if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "ch15-training":
                cell["source"] = "".join(cell["source"]) + shortcut
        (folder / f"{name}.ipynb").write_text(json.dumps(copy))
    out = tmp_path / "out"
    assert main([str(folder), "--source", str(source), "--out", str(out), "--jobs", "2", "--quiet"]) == 0
    with open(out / "grades.csv", newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    maximum = read_assignment(source).max_points
    assert float(rows["reference"]["total"]) == maximum, (out / "feedback" / "reference.md").read_text()
    for name in SHORTCUTS:
        feedback = (out / "feedback" / f"{name}.md").read_text()
        assert float(rows[name]["ch15.trained_model"]) == 0, feedback
        assert float(rows[name]["total"]) == maximum - 3, feedback  # every other part still full
    assert "expected the 18 tensors" in (out / "feedback" / "constant.md").read_text()
    assert "expected the 18 tensors" in (out / "feedback" / "trigram_on_the_training_text.md").read_text()
    validation = (out / "feedback" / "validation_table_in_the_model.md").read_text()
    assert "above the target 2.05" in validation and "held-out entries G" in validation
