"""Chapter 12 (multiple devices): scatter, gather, averaging replica gradients, a data-parallel Linear; the
ring all-reduce and DistributedSampler's partition (DistributedDataParallel).

References: minitorch's own ``chunk``, ``nn.parallel.gather``, ``nn.functional.linear`` (with its
gradients from autograd), so the expected values are what one device computes on the whole batch; the
sum that an all-reduce leaves on every rank; ``minitorch.utils.data.distributed.partition`` (the
partition of ``DistributedSampler``, PyTorch's, checked against PyTorch in tests/utils).
"""

import numpy as np

import minitorch
from grading.registry import exercise, randn


def _scatter_batch(x, num_chunks):
    return tuple(x.chunk(num_chunks, 0))


exercise(
    "ch12.scatter_batch",
    function="scatter_batch",
    reference=_scatter_batch,
    public=[
        (randn(6, 3, seed=1200), 3),
        (randn(5, 2, seed=1201), 3),
        (randn(4, 2, seed=1202), 3),
        (randn(9, 2, seed=1203), 4),
    ],
    hint="Every piece has ceil(rows / num_chunks) rows (integer division rounding up), except perhaps the "
    "last; the pieces start at 0, size, 2 * size, ... up to rows, so there may be fewer than num_chunks of them.",
)


def _gather_outputs(*outputs):
    return minitorch.nn.parallel.gather(list(outputs), "cpu")


exercise(
    "ch12.gather_outputs",
    function="gather_outputs",
    reference=_gather_outputs,
    public=[
        (randn(2, 4, seed=1204), randn(2, 4, seed=1205), randn(1, 4, seed=1206)),
        (randn(3, seed=1207), randn(2, seed=1208)),
        (randn(1, seed=1209).reshape(()), randn(1, seed=1210).reshape(()), randn(1, seed=1211).reshape(())),
    ],
    hint="minitorch.cat(list(outputs), dim=0); when every output has dim() == 0, first reshape each to shape (1,).",
)


def _average_gradients(replica_grads, chunk_sizes):
    weights = chunk_sizes.to(replica_grads.dtype) / chunk_sizes.sum()
    return (replica_grads * weights.reshape(-1, *([1] * (replica_grads.dim() - 1)))).sum(dim=0)


exercise(
    "ch12.average_gradients",
    function="average_gradients",
    reference=_average_gradients,
    public=[
        (randn(3, 4, 2, seed=1212), np.array([2, 2, 2], dtype=np.int64)),
        (randn(2, 5, seed=1213), np.array([3, 2], dtype=np.int64)),
        (randn(4, 3, 3, seed=1214), np.array([3, 3, 3, 1], dtype=np.int64)),
    ],
    hint="Weight replica k by chunk_sizes[k] / chunk_sizes.sum() (as floats of replica_grads' dtype), reshape the "
    "weights to (K, 1, 1, ...) so they broadcast over a gradient, multiply and sum over dim 0.",
)


def _replicated_linear(x, weight, bias, grad_output, num_replicas):
    weight, bias = weight.detach().requires_grad_(), bias.detach().requires_grad_()
    output = minitorch.nn.functional.linear(x, weight, bias)
    grad_weight, grad_bias = minitorch.autograd.grad(output, (weight, bias), grad_output)
    return output.detach(), grad_weight, grad_bias


exercise(
    "ch12.replicated_linear",
    function="replicated_linear",
    reference=_replicated_linear,
    public=[
        (randn(6, 4, seed=1215), randn(3, 4, seed=1216), randn(3, seed=1217), randn(6, 3, seed=1218), 2),
        (randn(5, 3, seed=1219), randn(2, 3, seed=1220), randn(2, seed=1221), randn(5, 2, seed=1222), 3),
    ],
    hint="Cut x and grad_output into the same pieces (exercise 1). Per piece: output x_k @ weight.T + bias, "
    "grad_weight_k = grad_output_k.T @ x_k, grad_bias_k = grad_output_k.sum(0). Concatenate the outputs, SUM the "
    "gradients over the pieces.",
)


def _ring_all_reduce(buffers):
    # What every rank holds after an all-reduce (SUM): the sum of all the ranks' buffers, on each of them.
    return buffers.sum(dim=0, keepdim=True).expand(buffers.shape[0], buffers.shape[1]).contiguous()


exercise(
    "ch12.ring_all_reduce",
    function="ring_all_reduce",
    reference=_ring_all_reduce,
    public=[
        (randn(2, 6, seed=1223),),
        (randn(3, 7, seed=1224),),
        (randn(4, 8, seed=1225),),
    ],
    hint="chunks = buffers.tensor_split(W, dim=1) gives each rank's W chunks (work on a clone). Reduce-scatter: in "
    "step s (0 .. W-2) rank k sends its chunk (k - s) % W to rank (k + 1) % W, which ADDS it to its own copy of that "
    "chunk; compute all the sends of a step from the values before the step. All-gather: in step s rank k sends chunk "
    "(k + 1 - s) % W to rank (k + 1) % W, which REPLACES its copy.",
)


def _rank_indices(indices, num_replicas, rank, drop_last):
    from minitorch.utils.data.distributed import partition

    return minitorch.tensor(partition(indices.tolist(), num_replicas, rank, drop_last), dtype=minitorch.int64)


exercise(
    "ch12.rank_indices",
    function="rank_indices",
    # the library's sampler that gives each rank its indices
    withheld=(
        "minitorch.utils.data.DistributedSampler",
    ),
    reference=_rank_indices,
    public=[
        (np.arange(10, dtype=np.int64), 4, 2, False),
        (np.random.default_rng(1226).permutation(10).astype(np.int64), 3, 0, False),
        (np.random.default_rng(1227).permutation(10).astype(np.int64), 4, 3, True),
        (np.arange(12, dtype=np.int64), 4, 1, True),
    ],
    hint="Without drop_last, pad the list to ceil(N / W) * W entries by repeating it from its beginning; with "
    "drop_last, cut it to floor(N / W) * W. Then rank r takes every W-th entry starting at position r: "
    "padded[r::W].",
)
