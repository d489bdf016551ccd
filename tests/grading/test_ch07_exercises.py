"""Chapter 7's exercise checks reject the typical mistakes: im2col without the bias or the stride, an
output size without the dilation, as a float or padded once, pooling the wrong axes or averaging,
normalizing over the width or multiplying by the spread.

The checks every chapter shares (the solutions pass, the blank stubs report "not implemented yet")
are in test_chapter_exercises.py.
"""

from __future__ import annotations

import pytest

import minitorch.nn.functional as F
from grading import check


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
