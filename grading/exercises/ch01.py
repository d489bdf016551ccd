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
    reference=_pairwise_distances,
    public=[
        (randn(4, 2, seed=110), randn(3, 2, seed=111)),
        (np.array([[0.0, 0.0], [3.0, 4.0]], dtype=np.float32), np.array([[0.0, 0.0]], dtype=np.float32)),
        (randn(5, 7, seed=112), randn(6, 7, seed=113)),
    ],
    atol=1e-5,
    hint="Give a the shape (n, 1, d) and b the shape (1, m, d): their difference broadcasts to (n, m, d). "
    "Square, sum over the last dimension, then take the square root.",
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
    hint="Zero the entries you do not keep (minitorch.where(mask, x, 0) or x * mask), sum each row, and divide "
    "by how many entries each row keeps (mask.sum(dim=1)), not by the number of columns.",
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
    hint="Columns are dimension 0's direction: x.mean(dim=0) and x.std(dim=0) have one entry per column and "
    "broadcast back over the rows. PyTorch's std divides by n - 1 (its default); keep that default.",
)


def _one_hot(labels, num_classes):
    return minitorch.from_numpy(np.eye(num_classes, dtype=np.float32)[labels.numpy()])


exercise(
    "ch01.one_hot",
    function="one_hot",
    reference=_one_hot,
    public=[
        (np.array([0, 2, 1, 2]), 3),
        (np.array([4, 0, 9, 9, 3, 7]), 10),
    ],
    hint="Compare labels as a column (labels[:, None], shape (n, 1)) with minitorch.arange(num_classes) as a row: "
    "the comparison broadcasts to (n, num_classes). Then .float() turns True/False into 1.0/0.0.",
)
