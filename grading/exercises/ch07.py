"""Chapter 7 (convolutional networks and vision): convolution by im2col, the output-size formula, 2x2 max
pooling by reshaping, and the Normalize transform.

Expected values are computed by minitorch itself (``F.conv2d``, ``F.conv1d``, ``F.max_pool2d`` and
``minitorch.vision.transforms.functional.normalize``), never written down; the public cases are inputs only.
"""

import numpy as np

import minitorch
import minitorch.nn.functional as F
from grading.registry import exercise, randn
from minitorch.vision.transforms import functional as TF

# the library's max pooling: the exercises write it and its backward (withheld while they are graded)
MAX_POOL = (
    "minitorch.nn.functional.max_pool2d", "minitorch.nn.functional.max_pool2d_with_indices",
    "minitorch.ops.pooling.MaxPool", "minitorch.nn.MaxPool2d",  # the op under them and the layer
)
# the library's convolution: the function, the op every convolution applies (conv1d and conv3d too) and the layer
CONV2D = ("minitorch.nn.functional.conv2d", "minitorch.ops.conv.Convolution", "minitorch.nn.Conv2d")

exercise(
    "ch07.conv2d_im2col",
    function="conv2d_im2col",
    withheld=CONV2D,
    reference=lambda x, weight, bias, stride, padding: F.conv2d(x, weight, bias, stride=stride, padding=padding),
    public=[
        (randn(2, 3, 6, 6, seed=700), randn(4, 3, 3, 3, seed=701), randn(4, seed=702), 1, 1),
        (randn(1, 1, 7, 5, seed=703), randn(2, 1, 3, 2, seed=704), randn(2, seed=705), 2, 0),
        (randn(3, 2, 4, 4, seed=706), randn(5, 2, 1, 1, seed=707), randn(5, seed=708), 1, 0),
    ],
    rtol=1e-4,
    atol=1e-5,
    hints=[
        "Cut every window the kernel visits out of the (padded) image and lay each out as a column: then the whole "
        "convolution is one matrix product between the flattened weight and those columns, plus the bias.",
        "F.unfold gives the columns, shape (N, C·kh·kw, L) with L = H_out·W_out windows; the weight flattened to "
        "(O, C·kh·kw) times the columns is (N, O, L); H_out = (H + 2·padding − kh) // stride + 1, likewise W_out.",
        "Give unfold the kernel's size, the stride and the padding; add the bias shaped (1, O, 1) so it broadcasts "
        "over the windows; reshape the result to (N, O, H_out, W_out).",
    ],
)


def _conv_output_size(size, kernel_size, stride, padding, dilation):
    """Measured, not computed: the length of a real 1-D convolution's output."""
    signal = minitorch.zeros(1, 1, size)
    kernel = minitorch.zeros(1, 1, kernel_size)
    return int(F.conv1d(signal, kernel, stride=stride, padding=padding, dilation=dilation).shape[-1])


exercise(
    "ch07.conv_output_size",
    function="conv_output_size",
    reference=_conv_output_size,
    public=[(28, 5, 1, 2, 1), (32, 3, 2, 1, 1), (10, 3, 1, 0, 2), (7, 2, 2, 0, 1)],
    output_type="any",
    hint="A kernel of size k with dilation d spans d*(k-1)+1 pixels. Count how many times that span fits in the "
    "padded input (size + 2*padding) when it moves by stride: (size + 2*padding - d*(k-1) - 1) // stride + 1. "
    "Use // (floor division): the answer is an int.",
)

exercise(
    "ch07.max_pool_2x2",
    function="max_pool_2x2",
    withheld=MAX_POOL,
    reference=lambda x: F.max_pool2d(x, 2),
    public=[
        (randn(2, 3, 4, 6, seed=710),),
        (np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4),),
        (randn(1, 2, 5, 7, seed=711),),
    ],
    hint="Crop to even sizes (x[..., :H // 2 * 2, :W // 2 * 2]), then reshape (N, C, H, W) to "
    "(N, C, H // 2, 2, W // 2, 2): the two size-2 axes are the rows and columns inside each window. "
    "x.amax(dim=(3, 5)) takes the largest of the four.",
)

exercise(
    "ch07.normalize",
    function="normalize",
    reference=lambda image, mean, std: TF.normalize(image, mean.tolist(), std.tolist()),
    public=[
        (
            randn(3, 4, 5, seed=720),
            np.array([0.1, 0.2, 0.3], dtype=np.float32),
            np.array([0.5, 2.0, 1.5], dtype=np.float32),
        ),
        (randn(1, 8, 8, seed=721), np.array([0.5], dtype=np.float32), np.array([0.5], dtype=np.float32)),
        (randn(2, 2, 3, 3, seed=722), np.array([-1.0, 1.0], dtype=np.float32), np.array([0.25, 4.0], dtype=np.float32)),
    ],
    hint="mean and std have one number per channel, shape (C,); the image is (..., C, H, W). Reshape them to "
    "(C, 1, 1) so they broadcast over the pixels of their channel: (image - mean[:, None, None]) / std[:, None, None].",
)


# -- build it: convolution's backward (col2im) and max pooling's backward ---------------------------------
def _conv2d_forward_backward(x, weight, bias, grad_output, stride, padding):
    """y = F.conv2d(...) and the gradients of sum(y * grad_output), by minitorch's autograd."""
    x, weight, bias = (tensor.detach().requires_grad_() for tensor in (x, weight, bias))
    y = F.conv2d(x, weight, bias, stride=stride, padding=padding)
    y.backward(grad_output)
    return y.detach(), x.grad, weight.grad, bias.grad


exercise(
    "ch07.conv2d_forward_backward",
    function="conv2d_forward_backward",
    withheld=CONV2D,
    reference=_conv2d_forward_backward,
    public=[
        (
            randn(1, 1, 4, 4, seed=740, dtype="float64"),
            randn(1, 1, 2, 2, seed=741, dtype="float64"),
            randn(1, seed=742, dtype="float64"),
            randn(1, 1, 3, 3, seed=743, dtype="float64"),
            1,
            0,
        ),
        (
            randn(2, 3, 5, 5, seed=744, dtype="float64"),
            randn(4, 3, 3, 3, seed=745, dtype="float64"),
            randn(4, seed=746, dtype="float64"),
            randn(2, 4, 5, 5, seed=747, dtype="float64"),
            1,
            1,
        ),
        (
            randn(1, 2, 7, 6, seed=748, dtype="float64"),
            randn(3, 2, 3, 2, seed=749, dtype="float64"),
            randn(3, seed=750, dtype="float64"),
            randn(1, 3, 3, 3, seed=751, dtype="float64"),
            2,
            0,
        ),
    ],
    labels=[
        "one channel, no padding: each input pixel is in up to 4 windows, its gradient sums them",
        "a batch of 2, 3 channels in, 4 out, padding 1: the weight's gradient sums over the batch too",
        "stride 2, a 3 x 2 kernel: windows that skip pixels (their gradient is 0)",
    ],
    outputs=("y", "grad_x", "grad_weight", "grad_bias"),
    rtol=1e-9,
    atol=1e-10,
    hints=[
        "Forward is one matrix product between the flattened weight (O, C·kh·kw) and the columns of windows "
        "(N, C·kh·kw, L). Backward is that product's backward: each factor's gradient is grad_output times the "
        "other factor (transposed), then the columns' gradient goes back to the image: col2im, the inverse "
        "bookkeeping of im2col, where a pixel in several windows sums their gradients.",
        "With G = grad_output reshaped to (N, O, L) and X the saved columns: grad_weight = Σ_n G_n X_nᵀ "
        "(reshaped to the weight's shape), grad_bias = G summed over the batch and L, grad_columns = Wᵀ G, "
        "and grad_x = fold(grad_columns), the inverse of unfold with the same kernel, stride and padding.",
        "F.fold(columns, output_size=(H, W), kernel_size=..., stride=..., padding=...) is col2im. Save the "
        "columns, the weight and x's height and width in forward (ctx.save_for_backward for tensors, plain "
        "attributes of ctx for numbers).",
    ],
)


def _max_pool_2x2_backward(x, grad_output):
    """The gradient of sum(F.max_pool2d(x, 2) * grad_output) with respect to x, by minitorch's autograd."""
    x = x.detach().requires_grad_()
    F.max_pool2d(x, 2).backward(grad_output)
    return x.grad


def _no_ties(*shape, seed):
    """Distinct values (a shuffled range, scaled): a window's maximum is unique, as in real activations."""
    count = int(np.prod(shape))
    values = np.random.default_rng(seed).permutation(count).astype(np.float32) / count - 0.5
    return values.reshape(shape)


exercise(
    "ch07.max_pool_2x2_backward",
    function="max_pool_2x2_backward",
    withheld=MAX_POOL,
    reference=_max_pool_2x2_backward,
    public=[
        (_no_ties(1, 1, 4, 4, seed=760), np.ones((1, 1, 2, 2), dtype=np.float32)),
        (_no_ties(2, 3, 4, 6, seed=761), randn(2, 3, 2, 3, seed=762)),
        (_no_ties(1, 2, 5, 3, seed=763), randn(1, 2, 2, 1, seed=764)),
    ],
    labels=[
        "grad_output all ones: each window's maximum gets 1, the other three pixels 0",
        "any grad_output: the maximum gets the window's own gradient",
        "odd height and width: the cropped row and column get 0",
    ],
    hints=[
        "Only the pixel that won each window influenced the output, so only it gets a gradient: the window's "
        "grad_output. The other pixels, and those cropped away, get 0.",
        "Expose the windows as in exercise 3 (crop, reshape to (N, C, H/2, 2, W/2, 2)); a mask of the pixels equal "
        "to their window's maximum, times grad_output broadcast over each window, is the gradient of the cropped "
        "part.",
        "amax(dim=(3, 5), keepdim=True) keeps the window axes for the comparison; reshape the product back to the "
        "cropped shape and write it into a tensor of zeros of x's shape.",
    ],
)
