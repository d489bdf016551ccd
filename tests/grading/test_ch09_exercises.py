"""Chapter 9's exercise checks: the chapter's own solutions pass, a blank stub and typical mistakes fail.

The solutions are taken from the instructor's notebook (notebooks/source/09_attention), so a solution
edited there is tested here; the wrong answers are the mistakes a learner is likely to make.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import minitorch
from grading import check

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "source" / "09_attention" / "09_attention.ipynb"
EXERCISES = ["attention", "causal_mask", "split_heads", "merge_heads", "positional_encoding"]


def solutions() -> dict:
    """Run the notebook's imports and its solution cells; return the namespace they define."""
    cells = json.loads(NOTEBOOK.read_text())["cells"]
    namespace: dict = {}
    exec("import math\nimport numpy as np\nimport minitorch\n", namespace)
    for cell in cells:
        if cell["cell_type"] == "code" and cell.get("metadata", {}).get("nbgrader", {}).get("solution"):
            exec("".join(cell["source"]), namespace)
    return namespace


SOLUTIONS = solutions()


def blank(*arguments):
    raise NotImplementedError()


@pytest.mark.parametrize("name", EXERCISES)
def test_solution_passes(name, capsys):
    check(f"ch09.{name}", SOLUTIONS[name])
    assert "public cases pass" in capsys.readouterr().out


@pytest.mark.parametrize("name", EXERCISES)
def test_blank_reports_not_implemented(name, capsys):
    with pytest.raises(AssertionError):
        check(f"ch09.{name}", blank)
    assert "not implemented yet" in capsys.readouterr().out


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
def unscaled_attention(query, key, value, mask):
    scores = query @ key.transpose(-2, -1)
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), float("-inf"))
    return scores.softmax(dim=-1) @ value


def mask_after_softmax(query, key, value, mask):
    weights = (query @ key.transpose(-2, -1) / math.sqrt(query.shape[-1])).softmax(dim=-1)
    if mask is not None:
        weights = weights * mask  # the blocked weights are zeroed, but the rest no longer sums to 1
    return weights @ value


def softmax_over_queries(query, key, value, mask):
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), float("-inf"))
    return scores.softmax(dim=-2) @ value


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
