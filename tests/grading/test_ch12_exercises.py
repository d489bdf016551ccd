"""Chapter 12's exercise checks accept ``chunk`` itself as scatter_batch and reject the typical
mistakes: chunks split evenly or floor-sized, outputs stacked, or concatenated even when they are 0-d, a
plain mean or sum of the replicas' gradients, a replicated Linear that averages its gradients, takes
the bias gradient as a mean or forgets the bias.

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
    ],
)
def test_typical_mistakes_fail(name, wrong, capsys):
    with pytest.raises(AssertionError):
        check(f"ch12.{name}", wrong)
    assert "FAILED" in capsys.readouterr().out
