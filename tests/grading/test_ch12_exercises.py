"""Chapter 12's exercise checks accept ``chunk`` itself as scatter_batch and reject the typical
mistakes: chunks split evenly or floor-sized, outputs stacked, or concatenated even when they are 0-d, a
plain mean or sum of the replicas' gradients, a replicated Linear that averages its gradients, takes
the bias gradient as a mean or forgets the bias; a ring all-reduce that stops after the reduce-scatter,
averages instead of summing, or passes the wrong chunks in its all-gather; a rank's share taken as a
block, not padded, padded with the last index, or ignoring drop_last.

The checks every chapter shares (the solutions pass, the blank stubs report "not implemented yet")
are in test_chapter_exercises.py.
"""

from __future__ import annotations

import pytest

import minitorch
from grading import check


def test_chunk_itself_passes(capsys):
    check("ch12.scatter_batch", lambda x, num_chunks: x.chunk(num_chunks))
    assert "public cases pass" in capsys.readouterr().out


# -- typical mistakes -------------------------------------------------------------------------------
def split_evenly(x, num_chunks):
    """numpy.array_split's rule: always num_chunks pieces, sizes differing by at most one."""
    rows = x.shape[0]
    bounds = [index * rows // num_chunks for index in range(num_chunks + 1)]
    return tuple(x[start:stop] for start, stop in zip(bounds[:-1], bounds[1:]))


def floor_size(x, num_chunks):
    size = max(x.shape[0] // num_chunks, 1)
    return tuple(x[start:start + size] for start in range(0, x.shape[0], size))


def stack_instead_of_cat(*outputs):
    return minitorch.stack(list(outputs), dim=0)


def cat_only(*outputs):
    return minitorch.cat(list(outputs), dim=0)  # fails on 0-d outputs


def plain_mean(replica_grads, chunk_sizes):
    return replica_grads.mean(dim=0)


def plain_sum(replica_grads, chunk_sizes):
    return replica_grads.sum(dim=0)


def _pieces(x, grad_output, num_replicas):
    size = -(-x.shape[0] // num_replicas)
    return [(x[s:s + size], grad_output[s:s + size]) for s in range(0, x.shape[0], size)]


def averaged_gradients(x, weight, bias, grad_output, num_replicas):
    pieces = _pieces(x, grad_output, num_replicas)
    output = minitorch.cat([piece @ weight.T + bias for piece, _ in pieces])
    grad_weight = sum(grad.T @ piece for piece, grad in pieces) / len(pieces)
    grad_bias = sum(grad.sum(dim=0) for _, grad in pieces) / len(pieces)
    return output, grad_weight, grad_bias


def bias_gradient_as_mean(x, weight, bias, grad_output, num_replicas):
    pieces = _pieces(x, grad_output, num_replicas)
    output = minitorch.cat([piece @ weight.T + bias for piece, _ in pieces])
    grad_weight = sum(grad.T @ piece for piece, grad in pieces)
    grad_bias = sum(grad.mean(dim=0) for _, grad in pieces)  # the bias is added to every row: its gradient is a sum
    return output, grad_weight, grad_bias


def output_without_bias(x, weight, bias, grad_output, num_replicas):
    pieces = _pieces(x, grad_output, num_replicas)
    output = minitorch.cat([piece @ weight.T for piece, _ in pieces])
    return output, sum(grad.T @ piece for piece, grad in pieces), sum(grad.sum(dim=0) for _, grad in pieces)


def _ring_chunks(buffers):
    world = buffers.shape[0]
    return world, [list(row.tensor_split(world)) for row in buffers.clone()]


def _reduce_scatter(world, chunks):
    for step in range(world - 1):
        sent = [chunks[k][(k - step) % world].clone() for k in range(world)]
        for k in range(world):
            c = (k - step) % world
            chunks[(k + 1) % world][c] = chunks[(k + 1) % world][c] + sent[k]


def _all_gather(world, chunks):
    for step in range(world - 1):
        sent = [chunks[k][(k + 1 - step) % world].clone() for k in range(world)]
        for k in range(world):
            chunks[(k + 1) % world][(k + 1 - step) % world] = sent[k]


def reduce_scatter_only(buffers):
    world, chunks = _ring_chunks(buffers)
    _reduce_scatter(world, chunks)
    return minitorch.stack([minitorch.cat(row) for row in chunks])


def ring_average(buffers):
    world, chunks = _ring_chunks(buffers)
    _reduce_scatter(world, chunks)
    _all_gather(world, chunks)
    return minitorch.stack([minitorch.cat(row) for row in chunks]) / world


def all_gather_with_the_wrong_chunks(buffers):
    """The all-gather phase sends chunk (k - s) % W, as the reduce-scatter did: not the complete chunk it holds."""
    world, chunks = _ring_chunks(buffers)
    _reduce_scatter(world, chunks)
    for step in range(world - 1):
        sent = [chunks[k][(k - step) % world].clone() for k in range(world)]
        for k in range(world):
            chunks[(k + 1) % world][(k - step) % world] = sent[k]
    return minitorch.stack([minitorch.cat(row) for row in chunks])


def block_share(indices, num_replicas, rank, drop_last):
    size = -(-indices.shape[0] // num_replicas)
    return indices[rank * size:(rank + 1) * size]


def no_padding(indices, num_replicas, rank, drop_last):
    return indices[rank::num_replicas]


def padded_with_last(indices, num_replicas, rank, drop_last):
    count = indices.shape[0]
    total = -(-count // num_replicas) * num_replicas
    padded = minitorch.cat([indices, indices[-1:].repeat(total - count)])
    return padded[rank::num_replicas]


def drop_last_ignored(indices, num_replicas, rank, drop_last):
    count = indices.shape[0]
    total = -(-count // num_replicas) * num_replicas
    return indices.repeat(2)[:total][rank::num_replicas]


@pytest.mark.parametrize(
    "name, wrong",
    [
        ("scatter_batch", split_evenly),
        ("scatter_batch", floor_size),
        ("gather_outputs", stack_instead_of_cat),
        ("gather_outputs", cat_only),
        ("average_gradients", plain_mean),
        ("average_gradients", plain_sum),
        ("replicated_linear", averaged_gradients),
        ("replicated_linear", bias_gradient_as_mean),
        ("replicated_linear", output_without_bias),
        ("ring_all_reduce", reduce_scatter_only),
        ("ring_all_reduce", ring_average),
        ("ring_all_reduce", all_gather_with_the_wrong_chunks),
        ("rank_indices", block_share),
        ("rank_indices", no_padding),
        ("rank_indices", padded_with_last),
        ("rank_indices", drop_last_ignored),
    ],
)
def test_typical_mistakes_fail(name, wrong, capsys):
    with pytest.raises(AssertionError):
        check(f"ch12.{name}", wrong)
    assert "FAILED" in capsys.readouterr().out
