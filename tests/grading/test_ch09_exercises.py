"""Chapter 9's exercise checks accept another correct positional encoding and reject the typical
mistakes: attention unscaled, masked after the softmax or normalized over the queries, a causal mask
upside down, strict or of floats, heads split or merged without the transpose, an encoding with sine
and cosine swapped, without the 2 in the exponent or in float64.

The checks every chapter shares (the solutions pass, the blank stubs report "not implemented yet")
are in test_chapter_exercises.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch
from grading import check


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
