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
    labels=[
        "padding 1, 3 channels in, 4 out",
        "stride 2 and a 3 x 2 kernel: windows that skip pixels",
        "a 1 x 1 kernel",
    ],
    hints=[
        "Cut every window the kernel visits out of the (padded) image and lay each one out as a column: then the "
        "whole convolution is one matrix product between the flattened weight and those columns, plus the bias.",
        "Columns of shape (N, C·kh·kw, L), with L = H_out·W_out windows; the weight flattened to (O, C·kh·kw); their "
        "product is (N, O, L). H_out = ⌊(H + 2·padding − kh) / stride⌋ + 1, likewise W_out.",
        "F.unfold makes the columns from the kernel size, stride and padding; shape the bias so it broadcasts over "
        "the windows; reshape the product to (N, O, H_out, W_out).",
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
    labels=[
        "padding 2 keeps the size of a 5-tap kernel's input",
        "stride 2: round down",
        "dilation 2: 3 taps span 5 pixels",
        "a last window that would stick out is not counted",
    ],
    hints=[
        "Count the positions a window can take: it starts at the first pixel of the padded input and moves by stride "
        "until it would stick out.",
        "A kernel of k taps with dilation d spans d·(k − 1) + 1 pixels; the padded input has size + 2·padding. The "
        "number of positions is the room left after the first position, divided by the stride and rounded down, plus "
        "one for the first position.",
        "Use integer (floor) division so the answer is an int, and check your formula on a case you can count by hand "
        "(size 5, kernel 3, stride 1, no padding: 3 positions).",
    ],
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
    labels=[
        "even sizes, a batch of 2 with 3 channels",
        "one 4 x 4 image",
        "odd height and width: the last row and column are dropped",
    ],
    hints=[
        "Each output pixel is the largest of a 2 × 2 window, and the windows do not overlap: if every window's four "
        "pixels had their own axes, one reduction would do it. A row or column left over at an odd edge is dropped, "
        "as F.max_pool2d does.",
        "An image of H × W (both even after cropping) is the same numbers as an array of (H/2) × 2 × (W/2) × 2: "
        "window (i, j) holds the entries [i, a, j, b] for a, b in {0, 1}.",
        "Crop with slicing, reshape (no copy of values needed), then reduce with amax over the two axes of size 2.",
    ],
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
        "Forward is im2col: one matrix product between the flattened weight (O, C·kh·kw) and the columns of windows "
        "(N, C·kh·kw, L), plus the bias. So backward is that product's backward, then the columns' gradient goes back "
        "to the image: col2im, where a pixel that sits in several windows collects the gradients of all of them.",
        "Per sample n: Y_n = W X_n + b, with X_n the columns. Differentiate with respect to W, X_n and b as you did "
        "for a matrix product in earlier chapters (derive each on paper: which factor, transposed, multiplies G_n = "
        "grad_output_n reshaped to (O, L)). The weight and the bias are shared by all samples and windows: their "
        "gradients sum over both. The columns' gradient goes through fold.",
        "F.fold(columns, output_size=(H, W), kernel_size=..., stride=..., padding=...) is col2im. In forward, save "
        "the columns and the weight with ctx.save_for_backward and the numbers (height, width, stride, padding) as "
        "attributes of ctx; in backward, reshape the weight's gradient to the weight's shape.",
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
        "For window (i, j): the gradient at a pixel of the window is grad_output[i, j] if that pixel equals the "
        "window's maximum, else 0.",
        "Expose the windows as in exercise 3; compare with the windows' maxima kept with keepdim=True, so the "
        "comparison broadcasts; reshape back to the cropped shape and place it into a tensor of zeros of x's shape.",
    ],
)


# -- exercise 6: the Normalize transform (after the two backward exercises, as the chapter numbers them) ----
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
    labels=[
        "3 channels",
        "one channel",
        "a batch of images (2, 2, 3, 3): mean and std go with the channel axis, not the first one",
    ],
    hints=[
        "Normalize works channel by channel: each channel has its own mean and standard deviation, applied to every "
        "pixel of that channel.",
        "out[c, h, w] = (image[c, h, w] − mean[c]) / std[c]; mean and std have shape (C,), the image (..., C, H, W).",
        "Give mean and std the shape (C, 1, 1) (reshape, view, or indexing with None) so broadcasting lines them up "
        "with the channel axis, whatever the leading dimensions are.",
    ],
)
