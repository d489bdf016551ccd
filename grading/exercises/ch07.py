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

exercise(
    "ch07.conv2d_im2col",
    function="conv2d_im2col",
    reference=lambda x, weight, bias, stride, padding: F.conv2d(x, weight, bias, stride=stride, padding=padding),
    public=[
        (randn(2, 3, 6, 6, seed=700), randn(4, 3, 3, 3, seed=701), randn(4, seed=702), 1, 1),
        (randn(1, 1, 7, 5, seed=703), randn(2, 1, 3, 2, seed=704), randn(2, seed=705), 2, 0),
        (randn(3, 2, 4, 4, seed=706), randn(5, 2, 1, 1, seed=707), randn(5, seed=708), 1, 0),
    ],
    rtol=1e-4,
    atol=1e-5,
    hint="columns = F.unfold(x, kernel_size=(kh, kw), stride=stride, padding=padding) has shape (N, C*kh*kw, L); "
    "weight.reshape(O, -1) @ columns gives (N, O, L); add bias.reshape(1, O, 1), then reshape to (N, O, H_out, W_out) "
    "with H_out = (H + 2*padding - kh) // stride + 1.",
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
        (randn(3, 4, 5, seed=720), np.array([0.1, 0.2, 0.3], dtype=np.float32),
         np.array([0.5, 2.0, 1.5], dtype=np.float32)),
        (randn(1, 8, 8, seed=721), np.array([0.5], dtype=np.float32), np.array([0.5], dtype=np.float32)),
        (randn(2, 2, 3, 3, seed=722), np.array([-1.0, 1.0], dtype=np.float32), np.array([0.25, 4.0], dtype=np.float32)),
    ],
    hint="mean and std have one number per channel, shape (C,); the image is (..., C, H, W). Reshape them to "
    "(C, 1, 1) so they broadcast over the pixels of their channel: (image - mean[:, None, None]) / std[:, None, None].",
)
