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
    labels=[
        "6 rows in 3 chunks of 2",
        "5 rows in 3 chunks: 2 + 2 + 1",
        "4 rows in 3 chunks: only 2 pieces of 2",
        "9 rows in 4 chunks: 3 + 3 + 3, only 3 pieces",
    ],
    hints=[
        "Cut the batch into consecutive pieces of equal size along dimension 0, as chunk does: all pieces full except "
        "perhaps the last.",
        "size = ⌈rows / num_chunks⌉; the pieces start at rows 0, size, 2·size, ... below rows, so there may be fewer "
        "than num_chunks of them (4 rows in 3 chunks: 2 + 2).",
        "Rounding up in integers: −(−a // b). A range with a step gives the start rows; slicing gives each piece. "
        "Return a tuple.",
    ],
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
    labels=[
        "three outputs of 2, 2 and 1 rows",
        "two 1-d outputs",
        "three 0-d outputs (a loss per replica): a vector of 3",
    ],
    hints=[
        "Gathering is the inverse of scatter: put the replicas' outputs back together along the batch dimension, in "
        "replica order.",
        "Concatenate along dim 0. Special case: when every output is 0-d (a loss per replica), there is no dimension "
        "to concatenate along, so the result is a vector with one entry per replica.",
        "minitorch.cat takes a list; test dim() of the outputs for the special case, and give each a dimension of "
        "size 1 there.",
    ],
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
    labels=[
        "3 replicas",
        "2 replicas",
        "4 replicas",
    ],
    hints=[
        "Each replica's gradient is of the mean loss over its own rows; the gradient of the mean over all rows weighs "
        "each replica by its share of the rows.",
        "g = Σ_k n_k g_k / N, with N = Σ_k n_k; the plain average only when all chunks have the same size.",
        "Turn chunk_sizes into weights in the gradients' dtype, give them trailing dimensions of size 1 so they "
        "broadcast over one gradient's shape, multiply and reduce over the replica axis.",
    ],
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
    labels=[
        "2 replicas of 3 rows",
        "5 rows on 3 replicas: pieces of 2, 2 and 1",
    ],
    hints=[
        "Data parallelism on one layer: cut the batch (and grad_output) into the pieces of exercise 1, let each "
        "replica compute its output and its own weight and bias gradients, then put the outputs back together and "
        "combine the gradients.",
        "The text gives each replica's formulas. Combine: outputs are concatenated along the batch; the replicas' "
        "gradients are summed (one loss over the whole batch, so a sum, not an average).",
        "One loop over the pieces (there are only num_replicas of them); collect the outputs in a list and accumulate "
        "the two gradients; compute them with the formulas, not with backward().",
    ],
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
    labels=[
        "2 ranks",
        "3 ranks, 7 entries: chunks of different sizes",
        "4 ranks",
    ],
    hints=[
        "Simulate the ring: every rank holds W chunks of its buffer; in each step every rank sends one chunk to the "
        "next rank. Work on copies, and compute all the sends of a step from the values before that step, because "
        "they happen at the same time.",
        "Two phases of W − 1 steps, exactly as the text lists them: reduce-scatter (the receiver adds what it gets to "
        "its copy of that chunk) and all-gather (the receiver replaces its copy). Which chunk rank k sends in step s "
        "is given in the text for each phase.",
        "Keep a list of lists, chunks[rank][c], from tensor_split of each rank's buffer; in each step first collect "
        "what every rank sends (cloned), then apply it at the receivers; at the end concatenate each rank's chunks "
        "and stack the ranks.",
    ],
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
    labels=[
        "10 indices, 4 ranks, rank 2: padded to 12 from the beginning",
        "3 ranks, rank 0: padded to 12",
        "drop_last=True: cut to 8",
        "12 indices on 4 ranks with drop_last: nothing to cut",
    ],
    hints=[
        "Every rank must get the same number of samples, so first make the list's length a multiple of the number of "
        "ranks, then deal the entries out like cards.",
        "Without drop_last: pad to ⌈N / W⌉ · W entries by repeating the list from its beginning; with drop_last: cut "
        "to ⌊N / W⌋ · W entries. Rank r gets the entries at positions r, r + W, r + 2W, ...",
        "Repeating a tensor (repeat, or cat of copies) then slicing to the length pads it; slicing with a start and a "
        "step deals it out.",
    ],
)


# -- build it: DDP's gradient buckets, with hooks, across real processes ------------------------------------------
# The report (grading/library/ddp.py, shared with the notebook) starts the ranks with minitorch's launcher and runs
# a DDP class on each. The reference is what minitorch's nn.parallel.DistributedDataParallel reports, computed in
# one process (its bucket assignment; one process's gradient on the global batch): the tests run minitorch's DDP
# itself on 2 and 3 real processes and find exactly that, and compare the buckets with PyTorch's.
from grading.library.ddp import DDP_OUTPUTS, one_process_report  # noqa: E402

# minitorch's DDP and its buckets, withheld while ch12.ddp_buckets is graded (in every rank too)
DDP_PIECES = (
    "minitorch.nn.parallel.DistributedDataParallel",
    "minitorch.nn.parallel.distributed._Bucket",
    "minitorch.nn.parallel.distributed._compute_bucket_assignment_by_size",
)

exercise(
    "ch12.ddp_buckets",
    function="ddp_report_of_mine",
    withheld=DDP_PIECES,
    reference=one_process_report,
    input_type="numpy",
    output_type="any",
    check_dtype=False,
    public=[
        (np.array([5, 16, 16, 3]), 2, 0.5, 3, 1230),
        (np.array([6, 520, 520, 3]), 3, 0.0, 2, 1231),
    ],
    labels=[
        "2 ranks, buckets of at least 512 bytes: a 5-16-16-3 network makes 2 buckets",
        "3 ranks, PyTorch's default caps: a first bucket of 1 MiB (the 520 x 520 weight closes it), then 25 MiB",
    ],
    outputs=DDP_OUTPUTS,
    rtol=1e-5,
    atol=1e-6,
    hints=[
        "Three parts. At construction, group the parameters into buckets, walking them from the last registered to "
        "the first (backward produces the last layer's gradients first), and register a hook on every parameter. "
        "During backward, each hook marks its parameter ready; a bucket whose parameters are all ready is reduced, "
        "but only in bucket order (every rank must issue its collectives in the same order). In forward, refuse to "
        "start while the previous backward left a bucket unreduced.",
        "A bucket takes parameters until its byte count (numel · element_size summed) reaches the cap: the parameter "
        "that reaches it still joins, then the next bucket starts. Caps: bucket_cap_mb · 2²⁰ bytes for every bucket; "
        "with bucket_cap_mb=None, 2²⁰ bytes for the first and 25 · 2²⁰ for the others. Reducing a bucket: g = "
        "(g₀ + g₁ + ... + g_{W−1}) / W for every gradient in it, with ONE all_reduce (a sum) of one flat tensor.",
        "Keep self.buckets (lists of parameters), a dict from id(parameter) to its bucket's index, a count of "
        "gradients still missing per bucket, and the index of the next bucket to launch. The hook "
        "(register_post_accumulate_grad_hook calls it with the parameter) updates the count, then launches "
        "buckets while the next one is complete; cat of the reshaped gradients makes the flat tensor, and after "
        "dist.all_reduce each piece goes back with copy_. When the last bucket has gone, reset for the next "
        "backward; forward raises the RuntimeError while some parameter is marked ready but not everything went.",
    ],
)
