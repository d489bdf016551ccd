"""Chapter 9's exercise checks accept another correct positional encoding, attention and multi-head attention
written differently, and reject the typical mistakes: attention unscaled, masked after the softmax or normalized
over the queries, a float mask taken as bool, a causal mask aligned to the bottom right; a causal mask upside down,
strict or of floats, heads split or merged without the transpose, an encoding with sine and cosine swapped, without
the 2 in the exponent or in float64; multi-head attention with the masks' convention flipped, scaled by the
embedding's size, without its output projection, ignoring batch_first, returning every head's weights or with
other parameter names. The references are checked against PyTorch's function and module with copied weights.

The checks every chapter shares (the solutions pass, the blank stubs report "not implemented yet")
are in test_chapter_exercises.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch
import minitorch.nn as nn
import minitorch.nn.functional as F
from grading import check, randn
from grading.registry import get
from tests.grading.chapter_notebooks import graded_cells, solutions
from tests.grading.withheld_support import run_with_withheld, withheld_names_missing
from tests.support import require_torch

CHAPTER = "09_attention"


def positional_encoding_with_exp(length, d_model):
    """Another correct float32 solution (the PyTorch tutorial's): the frequencies as exp(-log(10000) 2i/d)."""
    positions = minitorch.arange(length).float().unsqueeze(1)
    frequencies = (minitorch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model)).exp()
    encoding = minitorch.zeros(length, d_model)
    encoding[:, 0::2] = (positions * frequencies).sin()
    encoding[:, 1::2] = (positions * frequencies).cos()
    return encoding


def test_another_correct_positional_encoding_passes(capsys):
    check("ch09.positional_encoding", positional_encoding_with_exp)
    assert "public cases pass" in capsys.readouterr().out


# -- typical mistakes -------------------------------------------------------------------------------
def _attention_with(*, scale=True, mask_after_softmax=False, softmax_dim=-1, float_as_bool=False,
                    causal_bottom_right=False):
    """Attention with one of the mistakes a learner makes switched on."""

    def attention(query, key, value, mask, is_causal):
        scores = query @ key.transpose(-2, -1)
        if scale:
            scores = scores / math.sqrt(query.shape[-1])
        length, source_length = scores.shape[-2], scores.shape[-1]
        if is_causal:
            offset = source_length - length if causal_bottom_right else 0
            mask = minitorch.arange(source_length).unsqueeze(0) <= minitorch.arange(length).unsqueeze(1) + offset
        if mask is not None and (mask.dtype == minitorch.bool or float_as_bool):
            blocked = mask.logical_not() if mask.dtype == minitorch.bool else mask == 0
            if mask_after_softmax:  # the blocked weights are zeroed, but the rest no longer sums to 1
                return (scores.softmax(dim=softmax_dim) * blocked.logical_not()) @ value
            scores = scores.masked_fill(blocked, float("-inf"))
        elif mask is not None:
            scores = scores + mask
        return scores.softmax(dim=softmax_dim) @ value

    return attention


unscaled_attention = _attention_with(scale=False)
mask_after_softmax = _attention_with(mask_after_softmax=True)
softmax_over_queries = _attention_with(softmax_dim=-2)
float_mask_as_bool = _attention_with(float_as_bool=True)
causal_bottom_right = _attention_with(causal_bottom_right=True)


def upper_triangle(size):
    positions = minitorch.arange(size)
    return positions.unsqueeze(1) <= positions.unsqueeze(0)


def strictly_below(size):
    positions = minitorch.arange(size)
    return positions.unsqueeze(1) > positions.unsqueeze(0)


def float_mask(size):
    positions = minitorch.arange(size)
    return (positions.unsqueeze(1) >= positions.unsqueeze(0)).float()


def split_by_view_only(x, num_heads):
    batch, length, embed = x.shape
    return x.view(batch, num_heads, length, embed // num_heads)


def merge_without_transpose(x):
    batch, num_heads, length, head_dim = x.shape
    return x.reshape(batch, length, num_heads * head_dim)


def _encoding(length, d_model, exponent, first, second, dtype=np.float32):
    positions = np.arange(length)[:, None]
    frequencies = 10000.0 ** (-exponent(np.arange(d_model // 2), d_model))
    encoding = np.empty((length, d_model))
    encoding[:, 0::2] = first(positions * frequencies)
    encoding[:, 1::2] = second(positions * frequencies)
    return minitorch.tensor(encoding.astype(dtype))


def sin_cos_swapped(length, d_model):
    return _encoding(length, d_model, lambda i, d: 2 * i / d, np.cos, np.sin)


def exponent_without_two(length, d_model):
    return _encoding(length, d_model, lambda i, d: i / d, np.sin, np.cos)


def float64_encoding(length, d_model):
    return _encoding(length, d_model, lambda i, d: 2 * i / d, np.sin, np.cos, dtype=np.float64)


@pytest.mark.parametrize(
    "name, wrong",
    [
        ("attention", unscaled_attention),
        ("attention", mask_after_softmax),
        ("attention", softmax_over_queries),
        ("attention", float_mask_as_bool),
        ("attention", causal_bottom_right),
        ("causal_mask", upper_triangle),
        ("causal_mask", strictly_below),
        ("causal_mask", float_mask),
        ("split_heads", split_by_view_only),
        ("merge_heads", merge_without_transpose),
        ("positional_encoding", sin_cos_swapped),
        ("positional_encoding", exponent_without_two),
        ("positional_encoding", float64_encoding),
    ],
)
def test_typical_mistakes_fail(name, wrong, capsys):
    with pytest.raises(AssertionError):
        check(f"ch09.{name}", wrong)
    assert "FAILED" in capsys.readouterr().out


def test_the_attention_mistakes_fail_on_the_case_that_names_them(capsys):
    for wrong, label in [(float_mask_as_bool, "a float mask: added"), (causal_bottom_right, "the top-left triangle")]:
        with pytest.raises(AssertionError):
            check("ch09.attention", wrong)
        assert label in [line for line in capsys.readouterr().out.splitlines() if "FAILED" in line][0]


def test_attention_written_differently_passes(capsys):
    """Another correct solution: every mask turned into one additive float mask (0 or -inf) first, the scale put on
    the queries, and the causal pattern from tril."""

    def attention(query, key, value, mask, is_causal):
        length, source_length = query.shape[-2], key.shape[-2]
        additive = minitorch.zeros(length, source_length)
        if is_causal:
            allowed = minitorch.ones(length, source_length, dtype=minitorch.bool).tril()
            additive = additive.masked_fill(allowed.logical_not(), float("-inf"))
        if mask is not None and mask.is_floating_point():
            additive = additive + mask
        elif mask is not None:
            additive = additive + minitorch.zeros(mask.shape).masked_fill(mask.logical_not(), float("-inf"))
        weights = F.softmax((query / math.sqrt(query.shape[-1])) @ key.transpose(-2, -1) + additive, dim=-1)
        return weights @ value

    check("ch09.attention", attention)
    assert "all 6 public cases pass" in capsys.readouterr().out


def test_the_attention_reference_is_torchs_scaled_dot_product_attention():
    torch = require_torch()
    for query, key, value, mask, is_causal in get("ch09.attention").public:
        arguments = (query, key, value, mask, is_causal)
        ours = get("ch09.attention").reference(*(minitorch.tensor(a) if isinstance(a, np.ndarray) else a
                                                 for a in arguments))
        theirs = torch.nn.functional.scaled_dot_product_attention(
            *(torch.tensor(a) for a in (query, key, value)),
            attn_mask=None if mask is None else torch.tensor(mask), is_causal=is_causal)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6)


# -- build it: multi-head attention as a module ------------------------------------------------------------------
def _with_notebook_wrapper(module_class):
    """The notebook's ``multihead_attention`` wrapper (given to the learner) around ``module_class``."""
    namespace = dict(solutions(CHAPTER), MyMultiheadAttention=module_class)
    solution_cell = graded_cells(CHAPTER, "source", "solution")["multihead_attention"]
    exec("def multihead_attention" + solution_cell.split("def multihead_attention", 1)[1], namespace)
    return namespace["multihead_attention"]


def _multihead_with(*, flip_masks=False, scale_by_embed=False, no_out_proj=False, ignore_batch_first=False,
                    weights_per_head=False, split_without_transpose=False):
    """A learner's MyMultiheadAttention with one mistake switched on, inside the notebook's wrapper."""

    class MyMultiheadAttention(nn.Module):
        def __init__(self, embed_dim, num_heads, batch_first=False):
            super().__init__()
            self.num_heads, self.batch_first = num_heads, batch_first
            self.in_proj_weight = nn.Parameter(minitorch.empty(3 * embed_dim, embed_dim))
            self.in_proj_bias = nn.Parameter(minitorch.zeros(3 * embed_dim))
            self.out_proj = nn.Linear(embed_dim, embed_dim)

        def forward(self, query, key, value, key_padding_mask=None, attn_mask=None):
            transpose = not self.batch_first and not ignore_batch_first
            if transpose:
                query, key, value = (t.transpose(0, 1) for t in (query, key, value))
            batch, length, embed = query.shape
            heads, head_dim = self.num_heads, embed // self.num_heads

            def split(t):
                if split_without_transpose:
                    return t.reshape(batch, heads, t.shape[1], head_dim)
                return t.reshape(batch, t.shape[1], heads, head_dim).transpose(1, 2)

            projections = zip((query, key, value), self.in_proj_weight.chunk(3), self.in_proj_bias.chunk(3))
            q, k, v = (split(F.linear(t, weight, bias)) for t, weight, bias in projections)
            scores = q @ k.transpose(-2, -1) / math.sqrt(embed if scale_by_embed else head_dim)
            padding = None if key_padding_mask is None else key_padding_mask[:, None, None, :]
            for blocked in (attn_mask, padding):
                if blocked is not None and blocked.dtype == minitorch.bool:
                    scores = scores.masked_fill(blocked.logical_not() if flip_masks else blocked, float("-inf"))
                elif blocked is not None:
                    scores = scores + blocked
            weights = scores.softmax(dim=-1)
            merged = (weights @ v).transpose(1, 2).reshape(batch, length, embed)
            output = merged if no_out_proj else self.out_proj(merged)
            if transpose:
                output = output.transpose(0, 1)
            return output, weights if weights_per_head else weights.mean(dim=1)

    return _with_notebook_wrapper(MyMultiheadAttention)


MULTIHEAD_MISTAKES = {
    # (the wrong solution, words its first FAILED line must contain)
    "bool masks with True = attend (exercise 1's convention)": (
        _multihead_with(flip_masks=True), "key_padding_mask (True = ignore)"),
    "scores scaled by 1/sqrt(embed_dim)": (_multihead_with(scale_by_embed=True), "1/sqrt(head_dim)"),
    "no output projection": (_multihead_with(no_out_proj=True), "public case 1 of 4"),
    "batch_first ignored": (_multihead_with(ignore_batch_first=True), "batch_first=False inputs"),
    "every head's weights returned": (_multihead_with(weights_per_head=True), "output 2 (averaged attention weights)"),
    "heads split without the transpose": (_multihead_with(split_without_transpose=True), "public case 1 of 4"),
}  # fmt: skip


@pytest.mark.parametrize("mistake", sorted(MULTIHEAD_MISTAKES))
def test_multihead_mistakes_fail_with_feedback_naming_them(mistake, capsys):
    function, words = MULTIHEAD_MISTAKES[mistake]
    with pytest.raises(AssertionError):
        check("ch09.multihead_attention", function)
    assert words in [line for line in capsys.readouterr().out.splitlines() if "FAILED" in line][0]


def test_a_module_with_other_parameter_names_fails_saying_which_keys(capsys):
    class NamedDifferently(nn.Module):
        def __init__(self, embed_dim, num_heads, batch_first=False):
            super().__init__()
            self.qkv = nn.Linear(embed_dim, 3 * embed_dim)
            self.out_proj = nn.Linear(embed_dim, embed_dim)

    with pytest.raises(AssertionError):
        check("ch09.multihead_attention", _with_notebook_wrapper(NamedDifferently))
    assert "in_proj_weight" in capsys.readouterr().out


def test_multihead_attention_written_differently_passes(capsys):
    """Another correct module: the masks merged into one float mask, and the heads folded into the batch dimension
    of (length, batch, embed) inputs, as PyTorch's functional form does, instead of a 4-d split."""

    class MyMultiheadAttention(nn.Module):
        def __init__(self, embed_dim, num_heads, batch_first=False):
            super().__init__()
            self.num_heads, self.batch_first = num_heads, batch_first
            self.in_proj_weight = nn.Parameter(minitorch.empty(3 * embed_dim, embed_dim))
            self.in_proj_bias = nn.Parameter(minitorch.empty(3 * embed_dim))
            self.out_proj = nn.Linear(embed_dim, embed_dim)

        def forward(self, query, key, value, key_padding_mask=None, attn_mask=None):
            if self.batch_first:
                query, key, value = (t.transpose(0, 1) for t in (query, key, value))
            length, batch, embed = query.shape
            source_length, heads = key.shape[0], self.num_heads
            head_dim = embed // heads
            weight, bias = self.in_proj_weight, self.in_proj_bias
            q = query @ weight[:embed].T + bias[:embed]
            k = key @ weight[embed : 2 * embed].T + bias[embed : 2 * embed]
            v = value @ weight[2 * embed :].T + bias[2 * embed :]
            # (length, batch, embed) -> (batch * heads, length, head_dim)
            q, k, v = (t.reshape(t.shape[0], batch * heads, head_dim).transpose(0, 1) for t in (q, k, v))
            additive = minitorch.zeros(batch, heads, length, source_length)
            if attn_mask is not None and attn_mask.dtype == minitorch.bool:
                additive = additive.masked_fill(attn_mask, float("-inf"))
            elif attn_mask is not None:
                additive = additive + attn_mask
            if key_padding_mask is not None:
                additive = additive.masked_fill(key_padding_mask.reshape(batch, 1, 1, source_length), float("-inf"))
            scores = q @ k.transpose(1, 2) * head_dim**-0.5 + additive.reshape(batch * heads, length, source_length)
            weights = F.softmax(scores, dim=-1)
            attended = (weights @ v).transpose(0, 1).reshape(length, batch, embed)
            output = F.linear(attended, self.out_proj.weight, self.out_proj.bias)
            if self.batch_first:
                output = output.transpose(0, 1)
            return output, weights.reshape(batch, heads, length, source_length).sum(dim=1) / heads

    check("ch09.multihead_attention", _with_notebook_wrapper(MyMultiheadAttention))
    assert "all 4 public cases pass" in capsys.readouterr().out


def test_the_multihead_reference_is_torchs_module_with_copied_weights():
    torch = require_torch()
    for case in get("ch09.multihead_attention").public:
        query, key, value, in_w, in_b, out_w, out_b, heads, batch_first, padding, mask = case
        ours = get("ch09.multihead_attention").reference(
            *(minitorch.tensor(a) if isinstance(a, np.ndarray) else a for a in case))
        module = torch.nn.MultiheadAttention(query.shape[-1], heads, batch_first=batch_first)
        module.load_state_dict({"in_proj_weight": torch.tensor(in_w), "in_proj_bias": torch.tensor(in_b),
                                "out_proj.weight": torch.tensor(out_w), "out_proj.bias": torch.tensor(out_b)})
        with torch.no_grad():
            theirs = module(*(torch.tensor(a) for a in (query, key, value)),
                            key_padding_mask=None if padding is None else torch.tensor(padding),
                            attn_mask=None if mask is None else torch.tensor(mask))
        for mine, reference in zip(ours, theirs):
            np.testing.assert_allclose(mine.numpy(), reference.numpy(), rtol=1e-5, atol=1e-6)


def test_the_solution_module_loads_torchs_state_dict_and_agrees():
    """The instructor's module takes a PyTorch module's state_dict as it is (the names are PyTorch's)."""
    torch = require_torch()
    torch.manual_seed(0)
    theirs = torch.nn.MultiheadAttention(8, 4, batch_first=True)
    mine = solutions(CHAPTER)["MyMultiheadAttention"](8, 4, batch_first=True)
    mine.load_state_dict({name: minitorch.tensor(tensor.numpy()) for name, tensor in theirs.state_dict().items()})
    x = randn(3, 6, 8, seed=99)
    padding = np.arange(6)[None, :] >= np.array([6, 4, 5])[:, None]
    with torch.no_grad():
        expected = theirs(*(torch.tensor(x),) * 3, key_padding_mask=torch.tensor(padding))
    with minitorch.no_grad():
        got = mine(*(minitorch.tensor(x),) * 3, key_padding_mask=minitorch.tensor(padding))
    for have, want in zip(got, expected):
        np.testing.assert_allclose(have.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)


# -- the withheld pieces: the grader switches them off, the references it uses outside still work ---------------
def _withheld_run(name: str, cheat: str) -> str:
    return run_with_withheld(name, CHAPTER, cheat)


def test_every_withheld_piece_exists():
    """_withhold skips a name it cannot find: a misspelt piece would silently stay available."""
    assert withheld_names_missing("ch" + CHAPTER[:2]) == []


@pytest.mark.parametrize(
    "name, cheat",
    [
        ("ch09.attention", "def cheat(q, k, v, mask, is_causal):\n"
                           "    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=is_causal)"),
        (
            "ch09.multihead_attention",
            "def cheat(q, k, v, in_w, in_b, out_w, out_b, heads, batch_first, padding, mask):\n"
            "    module = nn.MultiheadAttention(q.shape[-1], heads, batch_first=batch_first)\n"
            "    module.load_state_dict({'in_proj_weight': in_w, 'in_proj_bias': in_b, 'out_proj.weight': out_w,\n"
            "                            'out_proj.bias': out_b})\n"
            "    return module(q, k, v, key_padding_mask=padding, attn_mask=mask)",
        ),
    ],
)
def test_the_solutions_pass_and_shortcuts_raise_with_the_pieces_withheld(name, cheat):
    assert "is not available while this exercise is graded" in _withheld_run(name, cheat)
