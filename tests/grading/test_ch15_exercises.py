"""Chapter 15's checks (the capstone language model) reject the mistakes a learner plausibly makes, with feedback
that names them; a correct solution written another way passes; the references are what PyTorch does; and the
validation loss the reference reaches clears the stated target with a margin.

Each mistake of the training loop trains a model (a few seconds each): the loss check is a real training run.
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
    """One slice per start, stacked, then the two windows cut from the longer one."""

    def get_batch(data, starts, block_size):
        windows = minitorch.stack([data[start : start + block_size + 1] for start in starts.tolist()])
        return windows[:, :block_size].clone(), windows[:, 1:].clone()

    check("ch15.get_batch", get_batch)
    assert "all 3 public cases pass" in capsys.readouterr().out


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


# -- 5. the training loop, graded on the validation loss it reaches -------------------------------------------
def _training(replace: tuple[str, str] | None = None, **names):
    """validation_loss_after_training, from the solution cell with one line replaced and names swapped in."""
    source = graded_cells(CHAPTER, "source", "solution")["ch15-training"]
    if replace is not None:
        assert replace[0] in source, replace[0]
        source = source.replace(replace[0], replace[1])
    namespace = dict(solutions(CHAPTER))
    exec(source, namespace)
    namespace.update(names)
    return namespace["validation_loss_after_training"]


LOSS_LINE = "loss = F.cross_entropy(logits.reshape(-1, vocab_size), targets.reshape(-1))"
TRAINING_MISTAKES = {
    "gradients never zeroed": (("optimizer.zero_grad()\n", "\n"), {}, "output 1 (validation_loss)"),
    "the loss of the last position only": (
        (LOSS_LINE, "loss = F.cross_entropy(logits[:, -1], targets[:, -1])"), {}, "output 1 (validation_loss)"),
    "the inputs as targets": (
        ("inputs, targets = get_batch(train_ids, starts, BLOCK_SIZE)",
         "inputs, _ = get_batch(train_ids, starts, BLOCK_SIZE); targets = inputs"), {}, "output 1 (validation_loss)"),
    "logits not flattened for cross_entropy": (
        (LOSS_LINE, "loss = F.cross_entropy(logits, targets)"), {}, "raised RuntimeError: Expected target size"),
    "attention that sees the future": (
        None, {"causal_self_attention": _attention_with(mask="none")}, "output 2 (future_influence)"),
}  # fmt: skip


@pytest.mark.parametrize("mistake", sorted(TRAINING_MISTAKES))
def test_training_mistakes_fail_with_feedback_naming_them(mistake, capsys):
    replace, names, words = TRAINING_MISTAKES[mistake]
    failure = _fails("ch15.validation_loss_after_training", _training(replace, **names), capsys)
    assert words in failure
    if "output" in words:
        assert "above the target" in failure


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
    check("ch15.validation_loss_after_training", function)
    assert "all 1 public cases pass" in capsys.readouterr().out


def test_the_reference_reaches_the_target_with_a_margin_and_sees_no_future():
    train_ids, val_ids, vocab_size = (minitorch.tensor(a) if isinstance(a, np.ndarray) else a for a in text_ids())
    loss, future_influence = solutions(CHAPTER)["validation_loss_after_training"](train_ids, val_ids, vocab_size, 0)
    assert loss < TARGET_LOSS - 0.1, f"the reference reaches {loss:.3f}: too close to the target {TARGET_LOSS}"
    assert future_influence == 0.0


def test_the_target_is_below_the_bigram_baseline():
    train_ids, val_ids, vocab_size = text_ids()
    counts = np.full((vocab_size, vocab_size), 0.1)
    np.add.at(counts, (train_ids[:-1], train_ids[1:]), 1)
    bigram_loss = -np.log((counts / counts.sum(axis=1, keepdims=True))[val_ids[:-1], val_ids[1:]]).mean()
    assert TARGET_LOSS < bigram_loss - 0.1


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
