"""Chapter 7's exercise checks: the chapter's own solutions pass, a blank stub and typical mistakes fail.

The solutions are taken from the instructor's notebook (notebooks/source/07_convolutions_and_vision), so a
solution edited there is tested here; the wrong answers are the mistakes a learner is likely to make.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import minitorch.nn.functional as F
from grading import check

NOTEBOOK = (Path(__file__).resolve().parents[2] / "notebooks" / "source" / "07_convolutions_and_vision"
            / "07_convolutions_and_vision.ipynb")
NAMES = ["conv2d_im2col", "conv_output_size", "max_pool_2x2", "normalize"]


def solutions() -> dict:
    """Run the notebook's imports and its solution cells; return the namespace they define."""
    cells = json.loads(NOTEBOOK.read_text())["cells"]
    namespace: dict = {}
    exec("import numpy as np\nimport minitorch\nimport minitorch.nn as nn\nimport minitorch.nn.functional as F\n",
         namespace)
    for cell in cells:
        if cell["cell_type"] == "code" and cell.get("metadata", {}).get("nbgrader", {}).get("solution"):
            exec("".join(cell["source"]), namespace)
    return namespace


SOLUTIONS = solutions()


def blank(*arguments):
    raise NotImplementedError()


@pytest.mark.parametrize("name", NAMES)
def test_solution_passes(name, capsys):
    check(f"ch07.{name}", SOLUTIONS[name])
    assert "public cases pass" in capsys.readouterr().out


@pytest.mark.parametrize("name", NAMES)
def test_blank_reports_not_implemented(name, capsys):
    with pytest.raises(AssertionError):
        check(f"ch07.{name}", blank)
    assert "not implemented yet" in capsys.readouterr().out


def im2col_without_bias(x, weight, bias, stride, padding):
    batch, _, height, width = x.shape
    out_channels, _, kernel_height, kernel_width = weight.shape
    columns = F.unfold(x, kernel_size=(kernel_height, kernel_width), stride=stride, padding=padding)
    out = weight.reshape(out_channels, -1) @ columns
    return out.reshape(batch, out_channels, (height + 2 * padding - kernel_height) // stride + 1,
                       (width + 2 * padding - kernel_width) // stride + 1)


def im2col_ignoring_stride(x, weight, bias, stride, padding):
    # unfold with stride 1, then keep the number of outputs a stride of 1 gives
    batch, _, height, width = x.shape
    out_channels, _, kernel_height, kernel_width = weight.shape
    columns = F.unfold(x, kernel_size=(kernel_height, kernel_width), padding=padding)
    out = weight.reshape(out_channels, -1) @ columns + bias.reshape(1, out_channels, 1)
    return out.reshape(batch, out_channels, height + 2 * padding - kernel_height + 1,
                       width + 2 * padding - kernel_width + 1)


def size_without_dilation(size, kernel_size, stride, padding, dilation):
    return (size + 2 * padding - kernel_size) // stride + 1


def size_as_float(size, kernel_size, stride, padding, dilation):
    return (size + 2 * padding - dilation * (kernel_size - 1) - 1) / stride + 1


def size_padding_once(size, kernel_size, stride, padding, dilation):
    return (size + padding - dilation * (kernel_size - 1) - 1) // stride + 1


def pool_wrong_axes(x):
    batch, channels, height, width = x.shape
    x = x[:, :, : height // 2 * 2, : width // 2 * 2]
    # reshaping to (N, C, 2, H/2, 2, W/2) groups rows that are far apart, not neighbours
    return x.reshape(batch, channels, 2, height // 2, 2, width // 2).amax(dim=(2, 4))


def pool_average(x):
    return F.avg_pool2d(x, 2)


def normalize_over_last_axis(image, mean, std):
    return (image - mean) / std  # broadcasts over the width, not over the channels


def normalize_multiplying(image, mean, std):
    return (image - mean.reshape(-1, 1, 1)) * std.reshape(-1, 1, 1)


@pytest.mark.parametrize(
    "name, wrong",
    [
        ("conv2d_im2col", im2col_without_bias),
        ("conv2d_im2col", im2col_ignoring_stride),
        ("conv_output_size", size_without_dilation),
        ("conv_output_size", size_as_float),
        ("conv_output_size", size_padding_once),
        ("max_pool_2x2", pool_wrong_axes),
        ("max_pool_2x2", pool_average),
        ("normalize", normalize_over_last_axis),
        ("normalize", normalize_multiplying),
    ],
)
def test_typical_mistakes_fail(name, wrong, capsys):
    with pytest.raises(AssertionError):
        check(f"ch07.{name}", wrong)
    assert "FAILED" in capsys.readouterr().out


def test_output_size_reference_measures_a_real_convolution():
    from grading.registry import get

    reference = get("ch07.conv_output_size").reference
    assert reference(28, 5, 1, 2, 1) == 28  # LeNet's "same" 5x5 convolution
    assert reference(9, 3, 2, 2, 3) == (9 + 4 - 6 - 1) // 2 + 1
