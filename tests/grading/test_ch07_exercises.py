"""Chapter 7's exercise checks reject the typical mistakes: im2col without the bias or the stride, an
output size without the dilation, as a float or padded once, pooling the wrong axes or averaging,
normalizing over the width or multiplying by the spread.

The checks every chapter shares (the solutions pass, the blank stubs report "not implemented yet")
are in test_chapter_exercises.py.
"""

from __future__ import annotations

import pytest

import minitorch
import minitorch.nn.functional as F
from grading import check


def im2col_without_bias(x, weight, bias, stride, padding):
    batch, _, height, width = x.shape
    out_channels, _, kernel_height, kernel_width = weight.shape
    columns = F.unfold(x, kernel_size=(kernel_height, kernel_width), stride=stride, padding=padding)
    out = weight.reshape(out_channels, -1) @ columns
    return out.reshape(
        batch,
        out_channels,
        (height + 2 * padding - kernel_height) // stride + 1,
        (width + 2 * padding - kernel_width) // stride + 1,
    )


def im2col_ignoring_stride(x, weight, bias, stride, padding):
    # unfold with stride 1, then keep the number of outputs a stride of 1 gives
    batch, _, height, width = x.shape
    out_channels, _, kernel_height, kernel_width = weight.shape
    columns = F.unfold(x, kernel_size=(kernel_height, kernel_width), padding=padding)
    out = weight.reshape(out_channels, -1) @ columns + bias.reshape(1, out_channels, 1)
    return out.reshape(
        batch, out_channels, height + 2 * padding - kernel_height + 1, width + 2 * padding - kernel_width + 1
    )


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


# -- build it: convolution's backward (col2im) and max pooling's backward ----------------------------------
from tests.grading.chapter_notebooks import solutions  # noqa: E402

SOLUTIONS = solutions("07_convolutions_and_vision")


def _conv_backward_with(*, fold=True, batch_sum=True, transpose_weight=True):
    def conv2d_forward_backward(x, weight, bias, grad_output, stride, padding):
        height, width = x.shape[2:]
        out_channels = weight.shape[0]
        columns = F.unfold(x, kernel_size=tuple(weight.shape[2:]), stride=stride, padding=padding)
        y = (weight.reshape(out_channels, -1) @ columns + bias.reshape(1, -1, 1)).reshape(grad_output.shape)
        grad_flat = grad_output.reshape(grad_output.shape[0], out_channels, -1)
        grad_weight = grad_flat @ columns.transpose(1, 2)
        grad_weight = (grad_weight.sum(dim=0) if batch_sum else grad_weight[0]).reshape(weight.shape)
        flat_weight = weight.reshape(out_channels, -1)
        grad_columns = (flat_weight.T if transpose_weight else flat_weight.reshape(-1, out_channels)) @ grad_flat
        if fold:
            grad_x = F.fold(
                grad_columns,
                output_size=(height, width),
                kernel_size=tuple(weight.shape[2:]),
                stride=stride,
                padding=padding,
            )
        else:  # "col2im" that keeps one window per pixel instead of summing them: writes, never adds
            grad_x = minitorch.zeros_like(x)
            counts = F.fold(
                minitorch.ones_like(grad_columns),
                output_size=(height, width),
                kernel_size=tuple(weight.shape[2:]),
                stride=stride,
                padding=padding,
            )
            grad_x = F.fold(
                grad_columns,
                output_size=(height, width),
                kernel_size=tuple(weight.shape[2:]),
                stride=stride,
                padding=padding,
            ) / counts.clamp(min=1)
        return y, grad_x, grad_weight, grad_flat.sum(dim=(0, 2))

    return conv2d_forward_backward


CONV_MISTAKES = {
    "col2im averages the windows instead of summing": (_conv_backward_with(fold=False), "output 2 (grad_x)"),
    "weight gradient of the first sample only": (_conv_backward_with(batch_sum=False), "sums over the batch"),
    "the weight reshaped instead of transposed": (_conv_backward_with(transpose_weight=False), "output 2 (grad_x)"),
}


@pytest.mark.parametrize("mistake", sorted(CONV_MISTAKES))
def test_conv_backward_mistakes_fail_with_feedback_naming_them(mistake, capsys):
    function, words = CONV_MISTAKES[mistake]
    with pytest.raises(AssertionError):
        check("ch07.conv2d_forward_backward", function)
    assert words in [line for line in capsys.readouterr().out.splitlines() if "FAILED" in line][0]


def test_conv_backward_written_differently_passes_and_gradchecks(capsys):
    check("ch07.conv2d_forward_backward", _conv_backward_with())  # functional, no Function class
    assert "all 3 public cases pass" in capsys.readouterr().out
    sample = minitorch.randn(2, 2, 5, 4, dtype=minitorch.float64, requires_grad=True)
    kernel = minitorch.randn(3, 2, 2, 3, dtype=minitorch.float64, requires_grad=True)
    offset = minitorch.randn(3, dtype=minitorch.float64, requires_grad=True)
    apply = SOLUTIONS["Conv2dIm2col"].apply
    assert minitorch.autograd.gradcheck(lambda a, w, b: apply(a, w, b, 2, 1), (sample, kernel, offset))


def _pool_backward_uncropped(x, grad_output):
    """Assumes even sizes: the reshape into windows without cropping first."""
    batch, channels, height, width = x.shape
    windows = x.reshape(batch, channels, height // 2, 2, width // 2, 2)
    winners = (windows == windows.amax(dim=(3, 5), keepdim=True)).to(x.dtype)
    return (winners * grad_output.reshape(batch, channels, height // 2, 1, width // 2, 1)).reshape(x.shape)


def _pool_backward_everywhere(x, grad_output):
    """Every pixel of the window gets the window's gradient (the backward of a sum, not of a max)."""
    batch, channels, height, width = x.shape
    spread = grad_output.reshape(batch, channels, height // 2, 1, width // 2, 1).expand(
        batch, channels, height // 2, 2, width // 2, 2
    )
    grad_x = minitorch.zeros_like(x)
    grad_x[:, :, : height // 2 * 2, : width // 2 * 2] = spread.reshape(batch, channels, height // 2 * 2, width // 2 * 2)
    return grad_x


def _pool_backward_ones(x, grad_output):
    """The maximum gets 1 instead of the window's gradient."""
    return SOLUTIONS["max_pool_2x2_backward"](x, minitorch.ones_like(grad_output))


POOL_MISTAKES = {
    "every pixel of the window gets the gradient": (_pool_backward_everywhere, "each window's maximum gets 1"),
    "the maximum gets 1, not the window's gradient": (
        _pool_backward_ones,
        "the maximum gets the window's own gradient",
    ),
    "forgets the cropped row and column": (_pool_backward_uncropped, "odd height and width"),
}


@pytest.mark.parametrize("mistake", sorted(POOL_MISTAKES))
def test_pool_backward_mistakes_fail_on_the_case_that_names_them(mistake, capsys):
    function, words = POOL_MISTAKES[mistake]
    with pytest.raises(AssertionError):
        check("ch07.max_pool_2x2_backward", function)
    assert words in [line for line in capsys.readouterr().out.splitlines() if "FAILED" in line][0]


def test_pool_backward_written_differently_passes(capsys):
    def by_argmax(x, grad_output):
        """Correct, written differently: route through the argmax of each flattened window with scatter."""
        batch, channels, height, width = x.shape
        h, w = height // 2, width // 2
        windows = x[:, :, : 2 * h, : 2 * w].reshape(batch, channels, h, 2, w, 2).permute(0, 1, 2, 4, 3, 5)
        flat = windows.reshape(batch, channels, h, w, 4)
        grad_windows = minitorch.zeros_like(flat).scatter(4, flat.argmax(dim=4, keepdim=True), grad_output.unsqueeze(4))
        grad = (
            grad_windows.reshape(batch, channels, h, w, 2, 2)
            .permute(0, 1, 2, 4, 3, 5)
            .reshape(batch, channels, 2 * h, 2 * w)
        )
        return F.pad(grad, (0, width - 2 * w, 0, height - 2 * h))

    check("ch07.max_pool_2x2_backward", by_argmax)
    assert "all 3 public cases pass" in capsys.readouterr().out
