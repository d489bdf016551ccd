"""Chapter 14's exercise checks reject the typical mistakes (an export without a dynamic batch axis, the scores of
minitorch instead of a file's, a missing ReLU; confidences that are raw scores, a softmax over the wrong axis or
without subtracting the maximum; a running total with cumsum, which does not export, or with the lower triangle).

The checks every chapter shares (the solutions pass, the blank stubs report "not implemented yet")
are in test_chapter_exercises.py.
"""

from __future__ import annotations

import io

import numpy as np
import pytest

import minitorch
import minitorch.nn as nn
from grading import check
from tests.grading.chapter_notebooks import solutions
from tests.support import require

SOLUTIONS = solutions("14_deployment")


def _model(w1, b1, w2, b2, relu=True):
    layers = [nn.Linear(w1.shape[1], w1.shape[0])] + ([nn.ReLU()] if relu else []) + [nn.Linear(w2.shape[1], 10)]
    model = nn.Sequential(*layers).eval()
    last = len(layers) - 1
    model.load_state_dict({"0.weight": minitorch.from_numpy(w1), "0.bias": minitorch.from_numpy(b1),
                           f"{last}.weight": minitorch.from_numpy(w2), f"{last}.bias": minitorch.from_numpy(b2)})
    return model


def _run(model, example, x, **options):
    ort = require("onnxruntime", "the chapter's exercises run exported files in ONNX Runtime")
    buffer = io.BytesIO()
    minitorch.onnx.export(model, (minitorch.from_numpy(example),), buffer, input_names=["x"], **options)
    return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]


def without_dynamic_axes(images, w1, b1, w2, b2):
    return _run(_model(w1, b1, w2, b2), images[:1], images)  # the file accepts a batch of one only


def without_relu(images, w1, b1, w2, b2):
    return _run(_model(w1, b1, w2, b2, relu=False), images[:1], images, dynamic_axes={"x": {0: "batch"}})


def raw_scores_as_confidence(scores):
    return scores.argmax(axis=1).astype(np.int64), scores.max(axis=1).astype(np.float32)


def softmax_over_the_batch(scores):
    shifted = scores - scores.max(axis=0, keepdims=True)
    probabilities = np.exp(shifted) / np.exp(shifted).sum(axis=0, keepdims=True)
    return probabilities.argmax(axis=1).astype(np.int64), probabilities.max(axis=1).astype(np.float32)


def softmax_without_the_maximum(scores):
    probabilities = np.exp(scores) / np.exp(scores).sum(axis=1, keepdims=True)  # overflows to inf / inf = nan
    return probabilities.argmax(axis=1).astype(np.int64), probabilities.max(axis=1).astype(np.float32)


class _Cumsum(nn.Module):
    def forward(self, x):
        return x.cumsum(dim=1)


class _LowerTriangle(nn.Module):
    def forward(self, x):
        return x @ minitorch.ones(x.shape[1], x.shape[1]).tril()


def running_total_with_cumsum(x):
    return _run(_Cumsum(), x, x)  # raises UnsupportedOperatorError


def running_total_with_the_lower_triangle(x):
    return _run(_LowerTriangle(), x, x)


@pytest.mark.parametrize(
    "name, wrong",
    [
        ("exported_scores", without_dynamic_axes),
        ("exported_scores", without_relu),
        ("postprocess", raw_scores_as_confidence),
        ("postprocess", softmax_over_the_batch),
        ("postprocess", softmax_without_the_maximum),
        ("exported_running_total", running_total_with_cumsum),
        ("exported_running_total", running_total_with_the_lower_triangle),
    ],
)
def test_typical_mistakes_fail(name, wrong, capsys):
    with pytest.raises(AssertionError):
        check(f"ch14.{name}", wrong)
    assert "FAILED" in capsys.readouterr().out


def test_the_solutions_really_run_in_onnx_runtime():
    # the reference is minitorch's forward: the solution must be an exported file run by ONNX Runtime
    require("onnxruntime", "the chapter's exercises run exported files in ONNX Runtime")
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    np.testing.assert_allclose(SOLUTIONS["exported_running_total"](x), np.cumsum(x, axis=1), rtol=1e-5, atol=1e-6)
