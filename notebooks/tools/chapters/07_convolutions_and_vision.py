"""Chapter 7: convolutional networks and vision (im2col, Conv2d, pooling, padding, BatchNorm2d, a CNN on digits,
transforms, datasets, models)."""

from author import code, md, solution, tests, write

cells = [
    md(r"""
    # 7. Convolutional networks and vision

    A digit is still a 7 when it moves two pixels to the left. An `nn.Linear` layer does not know that: it has a
    separate weight for every pixel, so a shifted digit is a brand-new input. A **convolution** slides one small set
    of weights (a *kernel*) over the image and asks the same question at every position. Fewer weights, and what is
    learned in one corner works in every corner.

    By the end of this chapter you will be able to:

    * compute a convolution as **im2col**: cut the image into windows (`F.unfold`), then do one matrix product, and
      check it against `F.conv2d`; you will write it yourself, and its backward (col2im) as a custom `Function`,
      and max pooling's backward;
    * predict the output shape of `nn.Conv2d` from its `stride`, `padding`, `dilation` and `groups`;
    * use pooling (`nn.MaxPool2d`, `nn.AvgPool2d`), the padding modes of `F.pad`, `nn.BatchNorm2d`, and know what
      `nn.PixelShuffle` and `nn.ChannelShuffle` are for;
    * train a small CNN on handwritten digits in a few seconds and look at what its filters learned;
    * prepare images with `minitorch.vision.transforms` and find the bundled datasets and models in
      `minitorch.vision.datasets` and `minitorch.vision.models`.

    As always, the names are PyTorch's (`torchvision` becomes `minitorch.vision`), so the code runs unchanged there.
    """),
    code("""
    import inspect

    import matplotlib.pyplot as plt
    import numpy as np

    import minitorch
    import minitorch.nn as nn
    import minitorch.nn.functional as F
    import minitorch.optim as optim
    from grading import check, hint, randn, summary  # noqa: F401 (hint("<exercise>") shows hints, step by step)
    from minitorch.utils.data import DataLoader
    from minitorch.vision import datasets, models, transforms

    minitorch.manual_seed(0)

    # Handwritten digits that ship with scikit-learn, enlarged to 28x28 (the size of MNIST) for the pictures.
    pictures = datasets.Digits(train=False, image_size=28)
    digit = pictures.data[0].float() / 255          # one 28x28 image, values in [0, 1]
    print(pictures)
    plt.figure(figsize=(2, 2))
    plt.imshow(digit.numpy(), cmap="gray_r")
    plt.title(f"label {int(pictures.targets[0])}")
    plt.axis("off")
    plt.show()
    """),
    md(r"""
    ## 1. What a convolution computes

    A 2-D convolution layer has a weight of shape `(out_channels, in_channels, kh, kw)`: for every output channel,
    one small `kh × kw` kernel per input channel. Output channel $o$ at position $(i, j)$ is the kernel laid on the
    window of the input that starts at row $i \cdot s$, column $j \cdot s$ ($s$ is the stride), multiplied pixel by
    pixel and summed, plus a bias:

    $$y[o, i, j] = b[o] + \sum_{c} \sum_{u=0}^{kh-1} \sum_{v=0}^{kw-1} w[o, c, u, v]\; x[c,\; i s + u,\; j s + v].$$

    (Mathematicians would call this a *cross-correlation*: the kernel is not flipped. Deep learning libraries all
    compute this and call it convolution; since the kernel is learned, the flip would not matter.)

    Hand-made kernels show what one output channel does. A kernel that is $-1$ on the left and $+1$ on the right
    answers "does brightness increase to the right here?": it finds vertical edges.
    """),
    code("""
    kernels = minitorch.tensor([
        [[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]],   # vertical edges (the Sobel filter)
        [[-1.0, -2.0, -1.0], [0.0, 0.0, 0.0], [1.0, 2.0, 1.0]],   # horizontal edges
        [[1 / 9] * 3] * 3,                                         # blur: the average of the window
    ]).unsqueeze(1)                                                # (3 output channels, 1 input channel, 3, 3)
    image = digit.reshape(1, 1, 28, 28)                            # (batch N, channels C, height H, width W)
    responses = F.conv2d(image, kernels, padding=1)
    print("input", tuple(image.shape), "-> output", tuple(responses.shape))

    figure, axes = plt.subplots(1, 4, figsize=(10, 2.6))
    axes[0].imshow(digit.numpy(), cmap="gray_r")
    axes[0].set_title("input")
    for axis, response, name in zip(axes[1:], responses[0], ["vertical edges", "horizontal edges", "blur"]):
        limit = response.abs().max().item()                 # a symmetric color scale: white is 0
        if name == "blur":
            axis.imshow(response.numpy(), cmap="gray_r")
        else:
            axis.imshow(response.numpy(), cmap="RdBu_r", vmin=-limit, vmax=limit)
        axis.set_title(name)
    for axis in axes:
        axis.axis("off")
    plt.show()
    """),
    md(r"""
    Red where the kernel's pattern is found, blue where its opposite is. A trained network learns its kernels instead
    of being handed them (section 8 shows what it learns).

    ## 2. Convolution as im2col: windows, then one matrix product

    Computing the sum above with Python loops over positions would be hopelessly slow. A classic way to turn it into
    fast code is **im2col** ("image to columns"), which Caffe made popular and minitorch uses (PyTorch's default CPU
    convolution instead hands the work to oneDNN, whose kernels mostly convolve directly, without im2col's copy):

    1. cut out every window the kernel will visit and lay each one out as a column of `C·kh·kw` numbers;
    2. flatten the weight to a matrix with one row per output channel, `(O, C·kh·kw)`;
    3. one matrix product of the two gives every output channel at every position at once.

    `F.unfold` does step 1. On a 4×4 image with a 3×3 kernel there are 2×2 = 4 windows, so the column matrix is 9×4:
    """),
    code("""
    small = minitorch.arange(16.0).reshape(1, 1, 4, 4)
    print(small[0, 0])
    columns = F.unfold(small, kernel_size=3)        # (N, C*kh*kw, number of windows L)
    print("columns", tuple(columns.shape))
    print(columns[0])
    """),
    md(r"""
    Read it column by column: the first column is the top-left window `0 1 2 / 4 5 6 / 8 9 10`, the second is the
    window one step to the right, and so on. Every output number is now a dot product of a flattened kernel with a
    column, so the whole convolution is `weight.reshape(O, -1) @ columns`, reshaped to `(N, O, H_out, W_out)`:
    """),
    code("""
    x = minitorch.randn(2, 3, 6, 6)                  # 2 images, 3 channels, 6x6
    weight, bias = minitorch.randn(4, 3, 3, 3), minitorch.randn(4)
    columns = F.unfold(x, kernel_size=3, padding=1)   # (2, 27, 36): 36 windows of 27 numbers per image
    out = weight.reshape(4, -1) @ columns + bias.reshape(1, 4, 1)  # (4, 27) @ (2, 27, 36) -> (2, 4, 36)
    out = out.reshape(2, 4, 6, 6)
    print("im2col result", tuple(out.shape), "| same as F.conv2d:",
          minitorch.allclose(out, F.conv2d(x, weight, bias, padding=1), atol=1e-5))
    """),
    md(r"""
    This is exactly how minitorch computes `F.conv2d`. Open **`minitorch/ops/conv.py`**: its docstring explains the
    layout, and `im2col` is a few lines. The windows are found without copying anything, with NumPy's `as_strided`
    (a *view* whose strides say "one step right in the window moves one pixel, one step to the next window moves
    `stride` pixels"); only laying them out as columns copies, once. The batch is moved last so those copies are long
    contiguous runs, which NumPy moves fastest. The backward pass is the same machinery in reverse (`col2im` adds
    each column's gradient back onto the pixels it came from), and both live side by side in that file.
    """),
    code("""
    from minitorch.ops import conv as conv_ops

    print(inspect.getsource(conv_ops.im2col))
    """),
    md(r"""
    The price of im2col is memory: each pixel is copied into up to `kh·kw` columns (9 times for a 3×3 kernel). In
    exchange, the arithmetic is one large matrix product, the operation that BLAS libraries and GPUs run fastest.
    (PyTorch on a GPU picks among several algorithms, im2col-like ones among them.)

    ### Exercise 1: convolution by im2col

    Write `conv2d_im2col(x, weight, bias, stride, padding)` for `x` of shape `(N, C, H, W)`, `weight` of shape
    `(O, C, kh, kw)` and `bias` of shape `(O,)`, with the same integer `stride` and `padding` on both sides. Use
    `F.unfold` and one matrix product (not `F.conv2d`). You will need the output size: along the height it is
    `(H + 2*padding - kh) // stride + 1`, and likewise along the width.
    """),
    solution('''
    def conv2d_im2col(x, weight, bias, stride, padding):
        """F.conv2d(x, weight, bias, stride=stride, padding=padding), computed as unfold + one matrix product."""
        ### BEGIN SOLUTION
        batch, _, height, width = x.shape
        out_channels, _, kernel_height, kernel_width = weight.shape
        out_height = (height + 2 * padding - kernel_height) // stride + 1
        out_width = (width + 2 * padding - kernel_width) // stride + 1
        columns = F.unfold(x, kernel_size=(kernel_height, kernel_width), stride=stride, padding=padding)
        out = weight.reshape(out_channels, -1) @ columns + bias.reshape(1, out_channels, 1)
        return out.reshape(batch, out_channels, out_height, out_width)
        ### END SOLUTION
    ''', "ch07-conv2d-im2col"),
    tests("""
    check("ch07.conv2d_im2col", conv2d_im2col)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch07.conv2d_im2col", conv2d_im2col, [
        (randn(2, 2, 9, 8, seed=7101), randn(3, 2, 3, 3, seed=7102), randn(3, seed=7103), 2, 1),
        (randn(1, 4, 5, 5, seed=7104), randn(2, 4, 5, 5, seed=7105), randn(2, seed=7106), 1, 2),
        (randn(3, 1, 6, 4, seed=7107), randn(6, 1, 2, 4, seed=7108), randn(6, seed=7109), 1, 0),
    ])
    ### END HIDDEN TESTS
    """, "ch07-conv2d-im2col-tests", points=3),
    md(r"""
    ## 3. `nn.Conv2d` and its options

    `nn.Conv2d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
    padding_mode="zeros")` holds the weight and bias as parameters and calls `F.conv2d` (the module is in
    `minitorch/nn/modules/conv.py`, the function in `minitorch/nn/functional/convolution.py`). Its weight has only
    `out × in × kh × kw` numbers, whatever the image size. The options:

    * **stride** `s`: the kernel jumps `s` pixels between positions, so the output is about `s` times smaller in
      each direction (a cheap way to shrink the image);
    * **padding** `p`: `p` rows and columns of zeros around the input, so the kernel also sits on the border;
      `padding="same"` picks `p` to keep the size (stride 1 only);
    * **dilation** `d`: the kernel's taps are `d` pixels apart, so a 3×3 kernel with `d = 2` sees a 5×5 area with
      9 weights (a larger *receptive field* for free);
    * **groups** `g`: the channels are split into `g` groups convolved separately, so each output channel only
      looks at `in/g` input channels and the weight is `g` times smaller. `groups=in_channels` is a *depthwise*
      convolution (one kernel per channel), used by MobileNet-style networks.

    Put together, the output size along one dimension of size $n$ is

    $$n_{\text{out}} = \left\lfloor \frac{n + 2p - d\,(k - 1) - 1}{s} \right\rfloor + 1 .$$

    Where the windows land is easier to see than to read. Each picture is a 7×7 input (gray: padding); the red
    dots are the pixels that output position (0, 0) reads, the blue rings those of its right neighbour (0, 1).
    """),
    code("""
    def draw_windows(stride=1, padding=0, dilation=1, kernel_size=3, size=7, axis=None):
        \"\"\"The input grid, with the kernel taps of output positions (0, 0) and (0, 1).\"\"\"
        axis = axis or plt.gca()
        full = size + 2 * padding
        grid = np.ones((full, full)) * 0.85
        grid[padding:padding + size, padding:padding + size] = 1.0
        axis.imshow(grid, cmap="gray", vmin=0, vmax=1)
        axis.set_xticks(np.arange(-0.5, full, 1), minor=True)
        axis.set_yticks(np.arange(-0.5, full, 1), minor=True)
        axis.grid(which="minor", color="silver", linewidth=0.5)
        axis.tick_params(which="minor", length=0)
        taps = np.arange(kernel_size) * dilation
        rows, cols = np.meshgrid(taps, taps, indexing="ij")
        axis.scatter(cols.ravel(), rows.ravel(), s=50, color="tab:red", label="output (0, 0)")        # first window
        if cols.max() + stride < full:                                                               # the next one
            axis.scatter(cols.ravel() + stride, rows.ravel(), s=140, facecolors="none", edgecolors="tab:blue",
                         linewidths=1.5, label="output (0, 1)")
        out = (size + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1
        axis.set_title(f"s={stride} p={padding} d={dilation}\\noutput {out}x{out}", fontsize=9)
        axis.set_xticks([])
        axis.set_yticks([])

    settings = [(1, 0, 1), (2, 0, 1), (1, 1, 1), (1, 0, 2), (2, 1, 2)]
    figure, axes = plt.subplots(1, len(settings), figsize=(13, 3))
    for axis, (stride, padding, dilation) in zip(axes, settings):
        draw_windows(stride, padding, dilation, axis=axis)
    plt.show()
    """),
    md(r"""
    To play with the settings, move the sliders (they need a running kernel; the pictures above show the same
    thing statically).
    """),
    code("""
    try:
        import ipywidgets

        def explore(stride=1, padding=0, dilation=1):
            figure, axis = plt.subplots(figsize=(3.2, 3.2))
            draw_windows(stride, padding, dilation, axis=axis)
            plt.show()

        display(ipywidgets.interactive(explore, stride=(1, 3), padding=(0, 2), dilation=(1, 3)))
    except ImportError:
        print("ipywidgets is not installed: the static pictures above show the same windows.")
    """),
    md(r"""
    The real layer agrees with the formula, and `groups` divides the number of weights:
    """),
    code("""
    x = minitorch.randn(1, 8, 28, 28)
    for options in [dict(), dict(stride=2), dict(padding=1), dict(padding="same"), dict(dilation=2, padding=2),
                    dict(groups=2), dict(groups=8)]:
        layer = nn.Conv2d(8, 16, kernel_size=3, **options)
        print(f"{str(options):28s} output {str(tuple(layer(x).shape)):16s} weight {str(tuple(layer.weight.shape)):15s}"
              f" {layer.weight.numel():5d} weights")
    """),
    md(r"""
    ### Exercise 2: the output size

    Write `conv_output_size(size, kernel_size, stride, padding, dilation)`: the number of output positions along
    one dimension of length `size`, as a Python `int`. (The check compares it with the length of a real
    convolution's output.)
    """),
    solution('''
    def conv_output_size(size, kernel_size, stride, padding, dilation):
        """How many positions a kernel takes along one dimension: an int."""
        ### BEGIN SOLUTION
        span = dilation * (kernel_size - 1) + 1          # how many input pixels one window covers
        return (size + 2 * padding - span) // stride + 1
        ### END SOLUTION
    ''', "ch07-conv-output-size"),
    tests("""
    check("ch07.conv_output_size", conv_output_size)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch07.conv_output_size", conv_output_size, [
        (224, 7, 2, 3, 1), (13, 3, 3, 0, 1), (9, 3, 2, 2, 3), (5, 5, 1, 0, 1), (64, 4, 4, 1, 2),
    ])
    ### END HIDDEN TESTS
    """, "ch07-conv-output-size-tests", points=1),
    md(r"""
    ## 4. Padding modes

    Zero padding darkens the border: a kernel sitting half outside the image sees black there. `F.pad` offers other
    ways to invent the missing pixels, and `nn.Conv2d(..., padding_mode=...)` uses them:

    * `"constant"` (zeros, or `value=`): what `padding_mode="zeros"` does;
    * `"reflect"`: mirror the image *without* repeating the edge pixel;
    * `"replicate"`: repeat the edge pixel;
    * `"circular"`: wrap around, as if the image tiled the plane.

    `F.pad`'s `pad` argument lists (before, after) pairs starting from the **last** dimension:
    `(left, right, top, bottom)` for an image.
    """),
    code("""
    tile = minitorch.arange(1.0, 17.0).reshape(1, 1, 4, 4)
    figure, axes = plt.subplots(1, 4, figsize=(12, 3.2))
    for axis, mode in zip(axes, ["constant", "reflect", "replicate", "circular"]):
        padded = F.pad(tile, (2, 2, 2, 2), mode=mode)[0, 0].numpy()
        axis.imshow(padded, cmap="viridis")
        axis.add_patch(plt.Rectangle((1.5, 1.5), 4, 4, fill=False, edgecolor="white", linewidth=2))
        for (row, col), value in np.ndenumerate(padded):
            axis.text(col, row, int(value), ha="center", va="center", fontsize=7, color="white")
        axis.set_title(f'mode="{mode}"')
        axis.axis("off")
    plt.show()
    print(nn.Conv2d(1, 4, 3, padding=1, padding_mode="reflect"))
    """),
    md(r"""
    ## 5. Pooling: summarise each neighbourhood

    A pooling layer has no weights. It slides a window (by default, stride = window size, so windows do not overlap)
    and keeps one number per window: the largest (`nn.MaxPool2d`) or the mean (`nn.AvgPool2d`). A 2×2 pool halves
    height and width and keeps the channels. Max pooling says "this feature was found somewhere in this patch",
    which makes the network less sensitive to small shifts and cheaper in the layers that follow.
    """),
    code("""
    image = digit.reshape(1, 1, 28, 28)
    pooled = {"input 28x28": image, "MaxPool2d(2)": nn.MaxPool2d(2)(image), "AvgPool2d(2)": nn.AvgPool2d(2)(image),
              "MaxPool2d(4)": nn.MaxPool2d(4)(image)}
    figure, axes = plt.subplots(1, 4, figsize=(10, 2.6))
    for axis, (name, result) in zip(axes, pooled.items()):
        axis.imshow(result[0, 0].numpy(), cmap="gray_r")
        axis.axis("off")
        axis.set_title(f"{name}\\n{tuple(result.shape[2:])}")
    plt.show()
    """),
    md(r"""
    What does backward do with a maximum? Only the winner of each window influenced the output, so only it gets a
    gradient; the other three pixels of the window get 0. Autograd shows it (the op's forward and backward are
    `MaxPool` in `minitorch/ops/pooling.py`):
    """),
    code("""
    x = minitorch.tensor([[[[1.0, 5.0, 2.0, 0.0],
                            [3.0, 2.0, 1.0, 4.0],
                            [0.0, 1.0, 9.0, 2.0],
                            [7.0, 1.0, 3.0, 8.0]]]], requires_grad=True)
    y = F.max_pool2d(x, 2)
    y.sum().backward()
    print("max_pool2d:", y[0, 0].tolist())
    print("gradient, 1 where each window's maximum was:\\n", x.grad[0, 0])
    """),
    md(r"""
    ### Exercise 3: 2×2 max pooling by reshaping

    For non-overlapping windows there is no need for windows at all: a reshape exposes them. Write
    `max_pool_2x2(x)` for `x` of shape `(N, C, H, W)` returning the same as `F.max_pool2d(x, 2)`. If `H` or `W` is
    odd, the last row or column is dropped (it has no complete window), as `nn.MaxPool2d(2)` does.

    Hint: crop, reshape to `(N, C, H // 2, 2, W // 2, 2)`, and take the maximum over the two axes of size 2
    (`x.amax(dim=(3, 5))`).
    """),
    solution('''
    def max_pool_2x2(x):
        """F.max_pool2d(x, 2) for x of shape (N, C, H, W), written with a reshape and a maximum."""
        ### BEGIN SOLUTION
        batch, channels, height, width = x.shape
        x = x[:, :, : height // 2 * 2, : width // 2 * 2]
        windows = x.reshape(batch, channels, height // 2, 2, width // 2, 2)
        return windows.amax(dim=(3, 5))
        ### END SOLUTION
    ''', "ch07-max-pool-2x2"),
    tests("""
    check("ch07.max_pool_2x2", max_pool_2x2)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch07.max_pool_2x2", max_pool_2x2, [
        (randn(3, 1, 8, 2, seed=7301),),
        (randn(1, 4, 3, 3, seed=7302),),
        (-np.abs(randn(2, 2, 6, 4, seed=7303)),),
    ])
    ### END HIDDEN TESTS
    """, "ch07-max-pool-2x2-tests", points=2),
    md(r"""
    ### Build it: the backward of convolution and of max pooling

    Autograd has been differentiating your convolutions and poolings. Write those backward passes yourself.

    ### Exercise 4: convolution as a `Function`, with col2im in backward

    Complete `Conv2dIm2col`, a `minitorch.autograd.Function`: `forward(ctx, x, weight, bias, stride, padding)`
    computes the convolution as in exercise 1 (windows with `F.unfold`, one matrix product) and saves what backward
    needs; `backward(ctx, grad_output)` returns the gradients for `x`, `weight` and `bias` (and `None` for the two
    integers). Backward is the matrix product's backward, then the way back from columns to the image: **col2im**,
    where a pixel that sat in several windows sums their gradients. `F.fold` is col2im (the inverse bookkeeping of
    `F.unfold`). No autograd inside backward.

    `conv2d_forward_backward(x, weight, bias, grad_output, stride, padding)` (already written) calls your forward and
    backward directly and returns `(y, grad_x, grad_weight, grad_bias)`; the check compares with `F.conv2d` and
    autograd. `hint("ch07.conv2d_forward_backward")` gives hints step by step.
    """),
    solution('''
    class Conv2dIm2col(minitorch.autograd.Function):
        """y = conv2d(x, weight, bias) by unfold and one matrix product; backward by the product's rule and fold."""

        @staticmethod
        def forward(ctx, x, weight, bias, stride, padding):
            ### BEGIN SOLUTION
            batch, _, height, width = x.shape
            out_channels, _, kernel_height, kernel_width = weight.shape
            out_height = (height + 2 * padding - kernel_height) // stride + 1
            out_width = (width + 2 * padding - kernel_width) // stride + 1
            columns = F.unfold(x, kernel_size=(kernel_height, kernel_width), stride=stride, padding=padding)
            ctx.save_for_backward(columns, weight)
            ctx.geometry = (height, width, stride, padding)
            out = weight.reshape(out_channels, -1) @ columns + bias.reshape(1, out_channels, 1)
            return out.reshape(batch, out_channels, out_height, out_width)
            ### END SOLUTION

        @staticmethod
        def backward(ctx, grad_output):
            ### BEGIN SOLUTION
            columns, weight = ctx.saved_tensors
            height, width, stride, padding = ctx.geometry
            out_channels = weight.shape[0]
            grad_flat = grad_output.reshape(grad_output.shape[0], out_channels, -1)
            grad_weight = (grad_flat @ columns.transpose(1, 2)).sum(dim=0).reshape(weight.shape)
            grad_bias = grad_flat.sum(dim=(0, 2))
            grad_columns = weight.reshape(out_channels, -1).T @ grad_flat
            grad_x = F.fold(grad_columns, output_size=(height, width), kernel_size=tuple(weight.shape[2:]),
                            stride=stride, padding=padding)
            return grad_x, grad_weight, grad_bias, None, None
            ### END SOLUTION


    class DirectContext:
        """Stands in for ctx, so that forward and backward can be called without the engine."""

        def save_for_backward(self, *tensors):
            self.saved_tensors = tensors


    def conv2d_forward_backward(x, weight, bias, grad_output, stride, padding):
        """(y, grad_x, grad_weight, grad_bias) from Conv2dIm2col's forward and backward, called directly."""
        ctx = DirectContext()
        y = Conv2dIm2col.forward(ctx, x, weight, bias, stride, padding)
        grad_x, grad_weight, grad_bias, _, _ = Conv2dIm2col.backward(ctx, grad_output)
        return y, grad_x, grad_weight, grad_bias
    ''', "ch07-conv2d-backward"),
    tests("""
    check("ch07.conv2d_forward_backward", conv2d_forward_backward)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch07.conv2d_forward_backward", conv2d_forward_backward, [
        (randn(2, 2, 6, 5, seed=7400, dtype="float64"), randn(3, 2, 3, 3, seed=7401, dtype="float64"),
         randn(3, seed=7402, dtype="float64"), randn(2, 3, 3, 3, seed=7403, dtype="float64"), 2, 1),
        (randn(1, 1, 5, 5, seed=7404, dtype="float64"), randn(2, 1, 5, 5, seed=7405, dtype="float64"),
         randn(2, seed=7406, dtype="float64"), randn(1, 2, 1, 1, seed=7407, dtype="float64"), 1, 0),
    ])
    ### END HIDDEN TESTS
    """, "ch07-conv2d-backward-tests", points=3),
    code("""
    try:
        sample = minitorch.randn(1, 2, 5, 5, dtype=minitorch.float64, requires_grad=True)
        kernel = minitorch.randn(3, 2, 3, 3, dtype=minitorch.float64, requires_grad=True)
        offset = minitorch.randn(3, dtype=minitorch.float64, requires_grad=True)
        convolve = lambda a, w, b: Conv2dIm2col.apply(a, w, b, 1, 1)  # noqa: E731
        passes = minitorch.autograd.gradcheck(convolve, (sample, kernel, offset))
        print("Conv2dIm2col passes gradcheck:", passes)
    except NotImplementedError:
        print("Complete Conv2dIm2col above first, then run this cell again.")
    """),
    md(r"""
    ### Exercise 5: max pooling's backward

    Write `max_pool_2x2_backward(x, grad_output)`: the gradient with respect to `x` (shape `(N, C, H, W)`) of the
    loss whose gradient with respect to `F.max_pool2d(x, 2)` is `grad_output` (shape `(N, C, H // 2, W // 2)`).
    Each window passed on only its largest pixel, so only that pixel receives the window's gradient; every other
    pixel, and the row or column cropped when `H` or `W` is odd, receives 0. No loops over pixels and no autograd:
    reshape as in exercise 3. (The checks' inputs have no ties within a window.)
    """),
    solution('''
    def max_pool_2x2_backward(x, grad_output):
        """d(loss)/dx for y = F.max_pool2d(x, 2) and grad_output = d(loss)/dy."""
        ### BEGIN SOLUTION
        batch, channels, height, width = x.shape
        cropped_height, cropped_width = height // 2 * 2, width // 2 * 2
        windows = x[:, :, :cropped_height, :cropped_width].reshape(batch, channels, height // 2, 2, width // 2, 2)
        winners = (windows == windows.amax(dim=(3, 5), keepdim=True)).to(x.dtype)
        spread = winners * grad_output.reshape(batch, channels, height // 2, 1, width // 2, 1)
        grad_x = minitorch.zeros_like(x)
        grad_x[:, :, :cropped_height, :cropped_width] = spread.reshape(batch, channels, cropped_height, cropped_width)
        return grad_x
        ### END SOLUTION
    ''', "ch07-max-pool-backward"),
    tests("""
    check("ch07.max_pool_2x2_backward", max_pool_2x2_backward)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    rng = np.random.default_rng(7500)
    check_hidden("ch07.max_pool_2x2_backward", max_pool_2x2_backward, [
        ((rng.permutation(96).astype(np.float32) / 96).reshape(2, 2, 4, 6), randn(2, 2, 2, 3, seed=7501)),
        ((rng.permutation(63).astype(np.float32) - 30).reshape(1, 3, 7, 3), randn(1, 3, 3, 1, seed=7502)),
    ])
    ### END HIDDEN TESTS
    """, "ch07-max-pool-backward-tests", points=2),
    md(r"""
    ## 6. `nn.BatchNorm2d`: normalise each channel

    Deep networks train faster when the inputs of each layer keep a steady scale. `nn.BatchNorm2d(C)` normalises
    every channel with the mean and variance of that channel over the batch and all pixels (the axes `N, H, W`),
    then applies a learned scale $\gamma$ (`weight`) and shift $\beta$ (`bias`) per channel:

    $$y = \gamma \, \frac{x - \operatorname{mean}}{\sqrt{\operatorname{var} + \epsilon}} + \beta .$$

    In `train()` mode it uses the current batch's statistics and updates running averages of them (the buffers
    `running_mean`, `running_var`); in `eval()` mode it uses the running averages, so one image gets the same answer
    whatever batch it is in. Forgetting `model.eval()` before testing is a classic bug. Read
    `minitorch/nn/modules/batchnorm.py` (and `F.batch_norm` in `minitorch/nn/functional/normalization.py`).
    """),
    code("""
    x = minitorch.randn(16, 3, 5, 5) * minitorch.tensor([1.0, 5.0, 0.1]).reshape(1, 3, 1, 1) + 3.0
    norm = nn.BatchNorm2d(3)
    y = norm(x)                                            # train mode: the batch's own statistics
    mean = x.mean(dim=(0, 2, 3), keepdim=True)
    variance = x.var(dim=(0, 2, 3), keepdim=True, unbiased=False)
    by_hand = (x - mean) / minitorch.sqrt(variance + norm.eps)
    print("same as by hand:", minitorch.allclose(y, by_hand, atol=1e-5))
    print("largest |mean| of a channel after:", f"{y.mean(dim=(0, 2, 3)).abs().max().item():.1e}",
          "| std of each channel:", y.std(dim=(0, 2, 3)).detach().numpy().round(3))
    print("running_mean after one batch (momentum 0.1):", norm.running_mean.numpy().round(3))
    norm.eval()
    print("eval mode uses the running averages, so the output differs:", not minitorch.allclose(norm(x), y))
    """),
    md(r"""
    ## 7. Two reshuffling layers: `nn.PixelShuffle` and `nn.ChannelShuffle`

    Neither has weights; both only move numbers around.

    * **`nn.PixelShuffle(r)`** turns `(N, C·r², H, W)` into `(N, C, H·r, W·r)`: each group of `r²` channels becomes an
      `r × r` block of pixels. A convolution that outputs `r²` times more channels followed by a pixel shuffle is a
      learned upsampling ("sub-pixel convolution"), used in super-resolution. `nn.PixelUnshuffle` undoes it.
    * **`nn.ChannelShuffle(g)`** interleaves the channels of `g` groups, so that the next grouped convolution mixes
      information across groups (ShuffleNet).
    """),
    code("""
    channels = minitorch.arange(1.0, 5.0).reshape(1, 4, 1, 1).expand(1, 4, 2, 2)   # channel k is filled with k+1
    print("PixelShuffle(2): (1, 4, 2, 2) ->", tuple(nn.PixelShuffle(2)(channels).shape))
    print(nn.PixelShuffle(2)(channels)[0, 0])

    order = minitorch.arange(6.0).reshape(1, 6, 1, 1)
    print("ChannelShuffle(2) on channels 0..5:", nn.ChannelShuffle(2)(order).flatten().tolist())
    print("ChannelShuffle(3) on channels 0..5:", nn.ChannelShuffle(3)(order).flatten().tolist())
    """),
    md(r"""
    ## 8. A small CNN on handwritten digits

    Time to put the pieces together. `minitorch.vision.datasets.Digits` is scikit-learn's 1,797 handwritten digits
    (8×8 pixels), split once and for all into 1,437 training and 360 test images; nothing is downloaded. Each item is
    a PIL image and its label, and a `transform` turns the image into a tensor (section 9 looks at transforms closely).

    The network: two blocks of *convolution → batch norm → ReLU → 2×2 max pool*, which turn the 1×8×8 image into
    32 feature maps of 2×2, then a linear layer to the 10 classes. Each kernel is reused at every position, so the
    convolutions need only a few thousand weights whatever the image size.
    """),
    code("""
    train_transform = transforms.Compose([
        transforms.RandomCrop(8, padding=1),        # shift by up to one pixel: a new variant every epoch
        transforms.ToTensor(),                      # PIL uint8 (H, W) -> float tensor (1, H, W) in [0, 1]
        transforms.Normalize((0.5,), (0.5,)),       # -> [-1, 1]
    ])
    test_transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,))])
    train_set = datasets.Digits(train=True, transform=train_transform)
    test_set = datasets.Digits(train=False, transform=test_transform)
    train_loader = DataLoader(train_set, batch_size=100, shuffle=True)
    test_loader = DataLoader(test_set, batch_size=360)

    minitorch.manual_seed(0)
    cnn = nn.Sequential(
        nn.Conv2d(1, 16, kernel_size=3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),   # -> 16 x 4 x 4
        nn.Conv2d(16, 32, kernel_size=3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),  # -> 32 x 2 x 2
        nn.Flatten(), nn.Linear(32 * 2 * 2, 10),
    )
    print(cnn)
    print("parameters:", sum(p.numel() for p in cnn.parameters()))
    """),
    code("""
    def evaluate(model, loader):
        model.eval()                                  # batch norm: use the running statistics
        correct = total = 0
        with minitorch.no_grad():
            for images, labels in loader:
                correct += (model(images).argmax(dim=1) == labels).sum().item()
                total += len(labels)
        return correct / total

    optimizer = optim.Adam(cnn.parameters(), lr=0.004)
    losses, accuracies = [], []
    for epoch in range(4):
        cnn.train()
        for images, labels in train_loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(cnn(images), labels)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        accuracies.append(evaluate(cnn, test_loader))
        print(f"epoch {epoch + 1}: last batch loss {losses[-1]:.3f}, test accuracy {accuracies[-1]:.1%}")

    figure, (loss_axis, accuracy_axis) = plt.subplots(1, 2, figsize=(10, 3))
    loss_axis.plot(losses)
    loss_axis.set_yscale("log")
    loss_axis.set_xlabel("step")
    loss_axis.set_ylabel("cross-entropy")
    accuracy_axis.plot(range(1, len(accuracies) + 1), accuracies, marker="o")
    accuracy_axis.set_xlabel("epoch")
    accuracy_axis.set_ylabel("test accuracy")
    plt.tight_layout()
    plt.show()
    """),
    md(r"""
    A few epochs, a few seconds, and over 90% of the 360 unseen test digits are right. What did it learn? The
    first layer's 16 kernels are 3×3 images, and the feature maps are what each of them finds in one digit:
    """),
    code("""
    first = cnn[0].weight.detach()                               # (16, 1, 3, 3)
    image, label = test_set[0]
    with minitorch.no_grad():
        cnn.eval()
        maps = cnn[2](cnn[1](cnn[0](image.unsqueeze(0))))[0]     # after conv, batch norm, ReLU: (16, 8, 8)

    figure, axes = plt.subplots(2, 16, figsize=(14, 2.2))
    for k in range(16):
        largest = first[k].abs().max().item()                  # a symmetric color scale: white is 0
        axes[0, k].imshow(first[k, 0].numpy(), cmap="RdBu_r", vmin=-largest, vmax=largest)
        axes[1, k].imshow(maps[k].numpy(), cmap="gray_r")
        axes[0, k].axis("off")
        axes[1, k].axis("off")
    axes[0, 0].set_title("kernels", loc="left", fontsize=9)
    axes[1, 0].set_title(f"feature maps of a {label}", loc="left", fontsize=9)
    plt.show()
    """),
    md(r"""
    ## 9. `minitorch.vision.transforms`: preparing images

    A transform is a callable from an image to an image (or a tensor); `transforms.Compose([...])` chains them. Two
    kinds matter:

    * **conversion and normalisation**, applied to every image, in training *and* testing: `ToTensor` (PIL image to
      a float tensor `(C, H, W)` in $[0, 1]$), `Normalize(mean, std)` (per channel, $(x - \text{mean}) / \text{std}$),
      `Resize`, `CenterCrop`;
    * **random augmentation**, applied in training only: `RandomCrop` (with `padding`, a small shift),
      `RandomRotation`, `RandomAffine`, `RandomHorizontalFlip`, `ColorJitter`, `RandomErasing`... Each epoch sees a
      slightly different version of every image, which works like a larger data set.

    Augmentations must keep the label true. Below, each row applies one transform six times to the same 28×28 digit.
    Look at the horizontal flip: a mirrored 2 or 7 is no longer a proper digit, so that augmentation, standard for
    photos of cats, is wrong for digits.
    """),
    code("""
    minitorch.manual_seed(1)
    first_two = (pictures.targets == 2).nonzero().flatten()[0].item()
    original, label = pictures[first_two]                               # a PIL image, mode "L", of a 2
    augmentations = {
        "RandomCrop(28, padding=3)": transforms.RandomCrop(28, padding=3),
        "RandomRotation(20)": transforms.RandomRotation(20),
        "RandomAffine(10, translate, scale)": transforms.RandomAffine(10, translate=(0.1, 0.1), scale=(0.8, 1.1)),
        "RandomHorizontalFlip()": transforms.RandomHorizontalFlip(),
        "RandomErasing (on a tensor)": transforms.Compose([transforms.ToTensor(), transforms.RandomErasing(p=1.0)]),
    }
    figure, axes = plt.subplots(len(augmentations), 7, figsize=(10, 1.6 * len(augmentations)))
    for row, (name, augment) in zip(axes, augmentations.items()):
        row[0].imshow(np.asarray(original), cmap="gray_r")
        row[0].set_title("original", fontsize=8)
        for axis in row[1:]:
            result = augment(original)
            pixels = result[0].numpy() if isinstance(result, minitorch.Tensor) else np.asarray(result)
            axis.imshow(pixels, cmap="gray_r")
        row[1].set_title(name, fontsize=8, loc="left")
        for axis in row:
            axis.axis("off")
    plt.tight_layout()
    plt.show()
    """),
    md(r"""
    The deterministic part, step by step: `ToTensor` divides the `uint8` pixels by 255 and puts the channel first;
    `Normalize((0.5,), (0.5,))` maps $[0, 1]$ to $[-1, 1]$. (For color photos one uses the data set's per-channel
    means and standard deviations, e.g. ImageNet's `(0.485, 0.456, 0.406)` and `(0.229, 0.224, 0.225)`.)
    """),
    code("""
    as_tensor = transforms.ToTensor()(original)
    normalized = transforms.Normalize((0.5,), (0.5,))(as_tensor)
    pixels = np.asarray(original)
    print("PIL image:", original.mode, original.size, pixels.dtype, "| values", pixels.min(), "to", pixels.max())
    for name, result in [("ToTensor: ", as_tensor), ("Normalize:", normalized)]:
        low, high = result.min().item(), result.max().item()
        print(name, tuple(result.shape), result.dtype, f"| values {low:.2f} to {high:.2f}")
    """),
    md(r"""
    ### Exercise 6: the Normalize transform

    Write `normalize(image, mean, std)` computing what `transforms.Normalize(mean, std)` does, for a float `image`
    of shape `(C, H, W)` or `(N, C, H, W)` and `mean`, `std` given as tensors of shape `(C,)`:
    `output[..., c, :, :] = (image[..., c, :, :] - mean[c]) / std[c]`. No loop over channels: reshape `mean` and
    `std` so they broadcast.
    """),
    solution('''
    def normalize(image, mean, std):
        """(image - mean[c]) / std[c] in every channel c; image is (..., C, H, W), mean and std are (C,)."""
        ### BEGIN SOLUTION
        return (image - mean.reshape(-1, 1, 1)) / std.reshape(-1, 1, 1)
        ### END SOLUTION
    ''', "ch07-normalize"),
    tests("""
    check("ch07.normalize", normalize)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch07.normalize", normalize, [
        (randn(4, 4, 4, seed=7401), np.array([0.0, 1.0, 2.0, 3.0], dtype=np.float32),
         np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)),
        (randn(3, 3, 2, 5, seed=7402), np.array([0.485, 0.456, 0.406], dtype=np.float32),
         np.array([0.229, 0.224, 0.225], dtype=np.float32)),
    ])
    ### END HIDDEN TESTS
    """, "ch07-normalize-tests", points=2),
    md(r"""
    ## 10. `minitorch.vision.datasets` and `minitorch.vision.models`

    The datasets follow `torchvision.datasets`: each is a `Dataset` of `(image, target)` pairs with `transform` and
    `target_transform` arguments, so a `DataLoader` batches them.

    * `Digits`: bundled with scikit-learn, no download; `image_size=8, 16 or 28`.
    * `MNIST`, `FashionMNIST`, `CIFAR10`: the classic sets, fetched with `download=True` (not used in this course,
      which never downloads).
    * `ImageFolder`: your own images, one folder per class.
    * `FakeData`: random images of any size, for testing a pipeline.
    """),
    code("""
    fake = datasets.FakeData(size=4, image_size=(3, 16, 16), num_classes=5, transform=transforms.ToTensor())
    image, target = fake[0]
    print("FakeData item:", tuple(image.shape), image.dtype, "target", target)
    digits = datasets.Digits(train=True)
    print("Digits: .data", tuple(digits.data.shape), digits.data.dtype, "| .targets", tuple(digits.targets.shape),
          "| classes", digits.classes)
    """),
    md(r"""
    The models follow `torchvision.models`: a function per architecture returns an `nn.Module`, built from the layers
    of this chapter. `lenet5` (the layer sizes of LeCun's 1998 LeNet-5, modernised as most re-implementations do:
    ReLU instead of scaled tanh, max-pooling instead of trainable sub-sampling, full connections between the
    convolution layers and a plain linear classifier instead of RBF units), `resnet8/20/32` (residual
    networks: blocks that add their input to their output so very deep stacks still train), `vgg8` and `mlp`.
    Read them in `minitorch/vision/models/`: each file is one short architecture.
    """),
    code("""
    print(models.list_models())
    for name in ["mlp", "lenet5", "resnet8", "resnet20", "vgg8"]:
        model = models.get_model(name, num_classes=10) if name != "mlp" else models.get_model(name)
        print(f"{name:9s} {sum(p.numel() for p in model.parameters()):>9,} parameters")
    print(models.lenet5())
    """),
    md(r"""
    Three of them come with **pretrained weights**, trained on these digits and shipped with the kit:
    `models.lenet5(weights="DEFAULT")` loads them (after checking the file's hash). Chapter 10 starts from there:
    evaluating them, freezing them and teaching them a new task.

    ## Summary

    * A convolution slides shared kernels over the image; `F.conv2d` computes it as **im2col**: `F.unfold` lays every
      window out as a column, and one matrix product with the flattened weight gives all outputs
      (`minitorch/ops/conv.py`).
    * `nn.Conv2d`'s output size is $\lfloor (n + 2p - d(k-1) - 1)/s \rfloor + 1$; `groups` splits the channels and
      divides the weights.
    * `F.pad` pads with constants, reflections, replicas or wrap-around; pooling (`nn.MaxPool2d`, `nn.AvgPool2d`)
      summarises neighbourhoods and routes max-pool gradients to the winners only.
    * `nn.BatchNorm2d` normalises each channel over batch and pixels, with running statistics for `eval()`;
      `nn.PixelShuffle` trades channels for resolution and `nn.ChannelShuffle` mixes groups.
    * A small CNN (conv → batch norm → ReLU → pool, twice, then a linear layer) learns digits in seconds.
    * `minitorch.vision.transforms` converts, normalises and augments images (augmentations must keep the label
      true); `minitorch.vision.datasets` and `minitorch.vision.models` mirror torchvision.
    """),
    code("""
    summary("ch07")
    """),
]

write("07_convolutions_and_vision", cells)
