"""Chapter 1 (tensors): broadcasting, masks and indexing put to work.

The references compute with NumPy on the inputs' values (an independent route to the answer),
never with literal answers; the public cases are inputs only.
"""

import numpy as np

import minitorch
from grading.registry import exercise, randn


def _pairwise_distances(a, b):
    difference = a.numpy()[:, None, :] - b.numpy()[None, :, :]
    return minitorch.from_numpy(np.linalg.norm(difference, axis=-1))


exercise(
    "ch01.pairwise_distances",
    function="pairwise_distances",
    withheld=("minitorch.cdist", "minitorch.nn.functional.pairwise_distance"),
    reference=_pairwise_distances,
    public=[
        (randn(4, 2, seed=110), randn(3, 2, seed=111)),
        (np.array([[0.0, 0.0], [3.0, 4.0]], dtype=np.float32), np.array([[0.0, 0.0]], dtype=np.float32)),
        (randn(5, 7, seed=112), randn(6, 7, seed=113)),
    ],
    atol=1e-5,
    hints=[
        "Every row of a must meet every row of b: make the two meet in one broadcast operation instead of a loop.",
        "distance[i, j] = sqrt(sum over k of (a[i, k] - b[j, k])^2). Which shapes must a and b take so that a - b "
        "holds every a[i] - b[j] at once?",
        "Insert a size-1 dimension into a at position 1 and into b at position 0, subtract, then reduce the right "
        "dimension: the result must be (n, m).",
    ],
)


def _masked_mean(x, mask):
    values, keep = x.numpy(), mask.numpy()
    return (np.where(keep, values, 0).sum(axis=1) / keep.sum(axis=1)).astype(values.dtype)


def _mask_case(rows: int, columns: int, seed: int):
    """A random float32 matrix and a boolean mask with at least one True per row."""
    rng = np.random.default_rng(seed)
    mask = rng.random((rows, columns)) < 0.5
    mask[np.arange(rows), rng.integers(0, columns, rows)] = True
    return randn(rows, columns, seed=seed + 1000), mask


exercise(
    "ch01.masked_mean",
    function="masked_mean",
    reference=_masked_mean,
    public=[
        (
            np.array([[1.0, 2.0, 3.0, 4.0], [10.0, 20.0, 30.0, 40.0]], dtype=np.float32),
            np.array([[True, False, True, False], [False, False, False, True]]),
        ),
        _mask_case(5, 6, seed=120),
    ],
    hints=[
        "A mean over the kept entries only: the entries the mask drops must count for neither the sum nor the count.",
        "mean_i = (sum_j of x[i, j] * keep[i, j]) / (sum_j of keep[i, j]).",
        "Make the dropped entries contribute 0 to each row's sum, and count each row's kept entries the same way: the "
        "divisor is not the number of columns.",
    ],
)


def _standardize_columns(x):
    values = x.numpy()
    return ((values - values.mean(axis=0)) / values.std(axis=0, ddof=1)).astype(values.dtype)


exercise(
    "ch01.standardize_columns",
    function="standardize_columns",
    reference=_standardize_columns,
    public=[
        (randn(8, 3, seed=130, scale=5.0),),
        (np.array([[1.0, 100.0], [2.0, 300.0], [3.0, 200.0], [6.0, 400.0]], dtype=np.float32),),
    ],
    atol=1e-5,
    hints=[
        "Each column on its own: subtract that column's mean, divide by that column's standard deviation.",
        "z[i, j] = (x[i, j] - mean_j) / std_j, where mean_j and std_j run over the rows i; PyTorch's std divides by "
        "n - 1 by default.",
        "Reduce over the dimension that runs along a column, keep one number per column, and let broadcasting "
        "apply them to every row.",
    ],
)


def _one_hot(labels, num_classes):
    return minitorch.from_numpy(np.eye(num_classes, dtype=np.float32)[labels.numpy()])


exercise(
    "ch01.one_hot",
    function="one_hot",
    withheld=("minitorch.nn.functional.one_hot",),
    reference=_one_hot,
    public=[
        (np.array([0, 2, 1, 2]), 3),
        (np.array([4, 0, 9, 9, 3, 7]), 10),
    ],
    hints=[
        "Row i has a single 1, in column labels[i]: that is a comparison of every label with every class number.",
        "out[i, c] = 1.0 if labels[i] == c else 0.0, for c in 0 .. num_classes - 1.",
        "Arrange the labels and the class numbers so that one == broadcasts to (n, num_classes), then turn the "
        "booleans into floats.",
    ],
)


# -- build it: a strided tensor on flat storage, its kernels ----------------------------------------------------
# The references run the same reports as the notebook (grading/library/tensor.py, learner-side) on minitorch's
# strided tensor: every stride, offset and value comes from a minitorch.Tensor viewing the same storage.
from grading.library import tensor as strided  # noqa: E402

Minitorch = strided.MinitorchStridedTensor


def _storage(size: int, seed: int) -> np.ndarray:
    return randn(size, seed=seed)


exercise(
    "ch01.strided_views",
    function="strided_views_report",
    withheld=(
        "minitorch.Tensor.stride", "minitorch.Tensor.is_contiguous", "minitorch.Tensor.permute",
        "minitorch.Tensor.transpose", "minitorch.Tensor.expand", "minitorch.Tensor.__getitem__",
        "minitorch.Tensor.data_ptr", "minitorch.from_numpy",
    ),
    reference=lambda *case: strided.views_report(Minitorch, *case),
    input_type="numpy",
    output_type="any",
    public=[
        (_storage(24, 140), np.array([2, 3, 4]), np.array([1, 0, 2]), np.array([[0, 3, 2], [1, 2, 1], [0, 4, 3]]),
         np.array([3, 2]), np.array([1, 6]), 2, np.array([4, 3, 2])),
        (_storage(30, 141), np.array([5, 6]), np.array([1, 0]), np.array([[1, 6, 2], [0, 5, 1]]),
         np.array([1, 4]), np.array([9, 2]), 3, np.array([2, 3, -1])),
        (_storage(40, 142), np.array([2, 1, 4, 5]), np.array([3, 1, 0, 2]),
         np.array([[1, 5, 1], [0, 1, 1], [0, 2, 1], [1, 4, 2]]),
         np.array([2, 1, 3]), np.array([3, 7, 1]), 1, np.array([2, 2, 4, 3])),
    ],
    labels=[
        "a 2x3x4 tensor: permute, then slices with steps, then a transpose; as_strided over the storage",
        "a 5x6 matrix: its transpose sliced; a size-1 dimension expanded (-1 keeps a size)",
        "four dimensions with a size-1 one: is_contiguous ignores size-1 dimensions; expand adds a dimension",
    ],
    outputs=strided.VIEWS_OUTPUTS,
    hints=[
        "A view never moves a number: it is the same storage read with another shape, other strides and another "
        "storage offset. Each method returns a new StridedTensor on self.storage; only those three change.",
        "position(index) = offset + sum over d of index[d] * strides[d]. Contiguous strides: the last is 1, each "
        "earlier one is the product of the sizes after it. Permuting dimensions permutes sizes and strides "
        "together; slice start:stop:step of dimension d moves the offset by start * strides[d], multiplies "
        "strides[d] by step and leaves len(range(start, stop, step)) entries; expand gives every stretched or new "
        "dimension the stride 0. Contiguous means each stride of a dimension of size above 1 is the contiguous one.",
        "positions(): np.indices(self.shape) gives one grid of indices per dimension; combine the grids with the "
        "strides as position() does, in one expression. index(position): undo the contiguous strides from the "
        "first dimension to the last (// and %). __getitem__ gets a tuple of slice objects: slice.indices(size) "
        "clamps start and stop as Python does. as_strided takes the new shape, strides and offset as they are.",
    ],
)  # fmt: skip

exercise(
    "ch01.view_and_contiguous",
    function="view_and_contiguous_report",
    withheld=(
        "minitorch.Tensor.view", "minitorch.Tensor.reshape", "minitorch.Tensor.contiguous",
        "minitorch.Tensor.is_contiguous", "minitorch.Tensor.stride", "minitorch.from_numpy",
    ),
    reference=lambda *case: strided.view_report(Minitorch, *case),
    input_type="numpy",
    output_type="any",
    public=[
        (_storage(26, 150), np.array([2, 3, 4]), np.array([0, 1, 2]), 2, np.array([6, 4])),
        (_storage(15, 151), np.array([3, 4]), np.array([1, 0]), 3, np.array([12])),
        (_storage(30, 152), np.array([2, 3, 4]), np.array([1, 0, 2]), 5, np.array([3, 2, 2, 2])),
        (_storage(24, 153), np.array([2, 3, 4]), np.array([0, 2, 1]), 0, np.array([2, 12])),
    ],
    labels=[
        "a contiguous tensor at offset 2 viewed as 6x4: the view keeps the offset",
        "a transposed matrix cannot be flattened by view: PyTorch's RuntimeError, word for word",
        "a permuted tensor whose last dimension is still contiguous: splitting it is a valid view",
        "the last two dimensions swapped: merging them spans two contiguous subspaces (refused)",
    ],
    outputs=strided.VIEW_OUTPUTS,
    hints=[
        "view reuses the storage, so it must find strides that reach every element in the order the new shape "
        "reads them. That works when the old dimensions can be grouped into runs that are contiguous among "
        "themselves and each run is made of whole new dimensions. contiguous() copies the values, in index order, "
        "into a fresh storage, unless the tensor is contiguous already.",
        "Walk the old dimensions from the last: dimension d-1 continues the run of d when strides[d-1] equals "
        "strides[d] * shape[d] (a size-1 dimension never breaks a run). Within a run whose innermost stride is s, "
        "the new dimensions that cover it get strides s, s * (their last size), ... from the right. If the product "
        "of the new sizes covering a run is not the run's element count, raise RuntimeError with PyTorch's text.",
        "Keep three counters while walking from the right: the old run's element count, the new sizes' product "
        "and the new dimension you are at; close a run when it ends (or at dimension 0) and then check the two "
        "counts agree. contiguous(): positions() read in row-major order is exactly the copy's storage; the copy "
        "has offset 0 and contiguous strides.",
    ],
)  # fmt: skip

exercise(
    "ch01.broadcasting",
    function="broadcasting_report_of_mine",
    withheld=("minitorch.broadcast_shapes", "minitorch.broadcast_tensors", "minitorch.Tensor.expand"),
    reference=lambda a, b: strided.broadcasting_report(strided.minitorch_broadcast_shapes,
                                                       strided.minitorch_broadcast_index, a, b),
    input_type="numpy",
    output_type="any",
    public=[
        (np.array([3, 1, 4]), np.array([2, 4])),
        (np.array([5]), np.array([3, 1])),
        (np.array([2, 3]), np.array([4, 3])),
        (np.array([4, 1, 3]), np.array([1, 2, 1])),
    ],
    labels=[
        "shapes of different lengths: align them from the right",
        "a vector against a column: both are stretched",
        "3 and 4 cannot be matched: PyTorch's RuntimeError names both sizes and the dimension",
        "size 1 on both sides, in different dimensions",
    ],
    outputs=strided.BROADCAST_OUTPUTS,
    hints=[
        "Broadcasting compares shapes from the right: a missing dimension counts as size 1, and a size-1 dimension "
        "is stretched to the other size. Reading a stretched tensor at an index of the big shape means ignoring "
        "the dimensions it does not have and reading position 0 along its size-1 dimensions.",
        "Pad the shorter shape with 1s on the left; the result's size is the other size where one is 1, and an "
        "error where the sizes differ and neither is 1 (PyTorch counts the dimension in the padded shapes). "
        "broadcast_index: the small shape's dimension d is the big shape's dimension d + (len(big) - len(small)).",
        "broadcast_shapes: one loop over the padded pairs, building the list of sizes. broadcast_index: one "
        "tuple built by a comprehension over the small shape's dimensions, choosing 0 or the big index's entry.",
    ],
)  # fmt: skip

KERNEL_WITHHELD = (
    "minitorch.Tensor.expand", "minitorch.broadcast_tensors", "minitorch.Tensor.copy_", "minitorch.Tensor.sum",
    "minitorch.Tensor.amax", "minitorch.Tensor.contiguous",
)


def _kernels_reference(*case, vectorised=False):
    kernels = (strided.minitorch_map, strided.minitorch_zip, strided.minitorch_reduce)
    return strided.kernels_report(Minitorch, *kernels, *case, vectorised=vectorised)


KERNEL_CASES = [
    (randn(30, seed=160), np.array([2, 3, 4]), np.array([2, 0, 1]), 3, randn(4, seed=161), np.array([4, 1, 1]), 1),
    (randn(12, seed=162), np.array([3, 3]), np.array([1, 0]), 2, randn(3, seed=163), np.array([3]), 0),
    (randn(20, seed=164), np.array([2, 2, 3]), np.array([0, 2, 1]), 0, randn(6, seed=165), np.array([2, 3, 1]), 2),
]
KERNEL_LABELS = [
    "a permuted 2x3x4 tensor at offset 3; b is a column broadcast over the rest; reduce over dimension 1",
    "a transposed 3x3 matrix; b is a row; reduce over dimension 0",
    "b has as many dimensions as a, with a size-1 one; reduce over the last dimension",
]

exercise(
    "ch01.kernels_loop",
    function="kernels_loop_report",
    withheld=KERNEL_WITHHELD,
    reference=_kernels_reference,
    input_type="numpy",
    output_type="any",
    public=KERNEL_CASES,
    labels=KERNEL_LABELS,
    outputs=strided.KERNEL_OUTPUTS,
    hints=[
        "A kernel visits every element of out once, by its ordinal 0, 1, 2, ... in row-major order. For each it "
        "needs the index (the ordinal unravelled over out's shape), then each input's position: the input's own "
        "index under broadcasting, then offset plus index times strides. Write into out's storage at out's "
        "position, never at the ordinal: out may be a strided view itself.",
        "index from ordinal: the last index is ordinal % shape[-1], then divide by shape[-1] and go on to the "
        "left. reduce: out has size 1 along dim and already holds the start value; for each out element, loop k "
        "over a.shape[dim] with the index's dim set to k and fold with out = fn(out, a[...]).",
        "Write three small helpers first (the index of an ordinal, the position of an index in a tensor, and your "
        "broadcast_index), then each kernel is one loop over ordinals of a few lines; reduce has an inner loop "
        "over the reduced dimension.",
    ],
)

exercise(
    "ch01.kernels_vectorised",
    function="kernels_vectorised_report",
    withheld=KERNEL_WITHHELD,
    reference=lambda *case: _kernels_reference(*case, vectorised=True),
    input_type="numpy",
    output_type="any",
    public=KERNEL_CASES,
    labels=KERNEL_LABELS,
    outputs=strided.VECTORISED_KERNEL_OUTPUTS,
    hints=[
        "The loops of the last exercise compute a position for every index. NumPy can compute all the positions "
        "at once as an array of out's shape (index arrays), and then storage[positions] reads every input value "
        "in one step and storage[positions] = values writes every output in one step.",
        "np.indices(shape) gives one grid per dimension of the big shape. An input's positions are its offset "
        "plus, for each of its own dimensions of size above 1, the big shape's grid of the matching dimension "
        "times that stride (size-1 and missing dimensions contribute nothing: broadcasting).",
        "One helper, positions of a tensor read at every index of a shape, serves all three kernels. reduce: "
        "read a's values at its own positions (an array of a's shape), fold them along dim with fn.reduce(..., "
        "axis=dim, keepdims=True), combine with out's current values by fn, and write at out's positions.",
    ],
)


def _matmul_reference(*case):
    return strided.matmul_report(Minitorch, strided.minitorch_matmul, *case)


exercise(
    "ch01.block_matmul",
    function="block_matmul_report",
    withheld=("minitorch.matmul", "minitorch.mm", "minitorch.Tensor.matmul", "minitorch.Tensor.__matmul__",
              "minitorch.Tensor.mm"),
    reference=_matmul_reference,
    input_type="numpy",
    output_type="any",
    public=[
        (randn(16, seed=170), np.array([4, 4]), 0, randn(16, seed=171), np.array([4, 4]), 2),
        (randn(35, seed=172), np.array([7, 5]), 1, randn(42, seed=173), np.array([7, 6]), 3),
        (randn(12, seed=174), np.array([3, 4]), 0, randn(20, seed=175), np.array([4, 5]), 8),
    ],
    labels=[
        "4x4 by 4x4 in 2x2 blocks",
        "a transposed 5x7 (a strided view) by 7x6 in 3x3 blocks: the sizes are not multiples of the block",
        "a block larger than the matrices: one block",
    ],
    outputs=strided.MATMUL_OUTPUTS,
    hints=[
        "C = A B splits into blocks: the (I, J) block of C is the sum over K of A's (I, K) block times B's (K, J) "
        "block. A block is small enough to stay in a cache (a GPU's shared memory), which is why real kernels "
        "work this way.",
        "C[i0:i1, j0:j1] += A[i0:i1, k0:k1] @ B[k0:k1, j0:j1] for every i0, j0, k0 in steps of the block size, "
        "each block cut short at the matrix's edge. Read A's and B's blocks through their strides and offsets "
        "(A may be a transposed view); C is a new contiguous tensor of shape (n, m), made with type(a).",
        "Compute each input's positions as a 2-D index array once; a block of values is storage[positions[rows, "
        "columns]] with slices for rows and columns. Three nested loops over block starts; the product of two "
        "small blocks may use @ on those NumPy arrays. Accumulate into C's storage seen as an (n, m) array.",
    ],
)


# -- a GPU kernel: the learner's CuPy ElementwiseKernel, on the GPU or on the stand-in ------------------------------
from grading.library import elementwise  # noqa: E402


def _gpu_kernel_reference(*case):
    return elementwise.kernel_report(elementwise.minitorch_bias_gelu, elementwise.standin(), *case)


exercise(
    "ch01.gpu_kernel",
    function="gpu_kernel_report",
    withheld=("minitorch.nn.functional.gelu",),
    reference=_gpu_kernel_reference,
    input_type="numpy",
    output_type="any",
    public=[
        (randn(4, 6, seed=190), 0, randn(6, seed=191), 0),
        (randn(5, 3, seed=192, dtype="float64"), 1, randn(5, seed=193, dtype="float64"), 0),
        (randn(2, 3, 4, seed=194), 0, randn(4, seed=195), 1),
    ],
    labels=[
        "x (4, 6) float32 and a bias of 6: the bias broadcast along every row",
        "a transposed (non-contiguous) float64 x: the kernel reads by index, not memory order, and a float64 input "
        "gives a float64 result (a type placeholder, not a fixed type)",
        "the output array passed in: the kernel writes into it and returns it",
    ],
    outputs=elementwise.GPU_KERNEL_OUTPUTS,
    hints=[
        "An ElementwiseKernel is the body of a loop over the output's elements: CuPy broadcasts the inputs, makes the "
        "output, and runs your body once per element i, where each parameter name stands for that element of its "
        "array. Declare the parameters with a type placeholder such as T, so that one kernel serves float32 and "
        "float64; a fixed type refuses the other.",
        "The parameters are a string of 'type name' pairs: the inputs x and bias, the output y. The body is C: "
        "first v = x + bias, then gelu_tanh(v) = 0.5 v (1 + tanh(sqrt(2/pi) (v + 0.044715 v^3))); sqrt(2/pi) is "
        "about 0.7978845608.",
        "cupy.ElementwiseKernel(in_params, out_params, body, name) with in_params like 'T a, T c', out_params like "
        "'T z', and a body of C statements separated by ';' (a local variable is declared with its type: 'T v = "
        "...'). Index nothing: a parameter is already its element.",
    ],
)
