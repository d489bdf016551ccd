"""Single APIs the corpus of public PyTorch code met, against PyTorch: ``empty_strided``, ``frombuffer``,
``mvlgamma``, ``is_anomaly_enabled``, ``Tensor.is_pinned`` and ``Tensor.resize_``."""

from __future__ import annotations

import array

import numpy as np
import pytest

import minitorch
from tests.support import require_torch


@pytest.fixture
def torch():
    return require_torch()


@pytest.mark.parametrize("size, stride", [((2, 3), (1, 2)), ((2, 3), (3, 1)), ((4,), (3,)), ((0, 3), (3, 1)),
                                          ((2, 2, 2), (0, 1, 2))])
def test_empty_strided_has_the_asked_strides(torch, size, stride):
    theirs = torch.empty_strided(size, stride)
    ours = minitorch.empty_strided(size, stride, dtype=minitorch.float64)
    assert ours.stride() == theirs.stride() and tuple(ours.shape) == tuple(theirs.shape)
    assert ours.is_contiguous() == theirs.is_contiguous()
    assert minitorch.empty_strided(size, stride).dtype == minitorch.float32
    ours.fill_(2.5)
    assert ours.tolist() == theirs.fill_(2.5).double().tolist()


@pytest.mark.parametrize("typecode, dtype_name, count, offset", [("i", "int32", -1, 0), ("b", "int32", -1, 0),
                                                                 ("d", "float64", 2, 8), ("B", "uint8", 3, 1)])
def test_frombuffer_reads_and_shares_the_buffer(torch, typecode, dtype_name, count, offset):
    values = [1, 2, 3, 4, 5, 6, 7, 8] if typecode != "b" else [-1, 0, 0, 0, 1, 0, 0, 0]
    theirs_buffer, ours_buffer = array.array(typecode, values), array.array(typecode, values)
    theirs = torch.frombuffer(theirs_buffer, dtype=getattr(torch, dtype_name), count=count, offset=offset)
    ours = minitorch.frombuffer(ours_buffer, dtype=getattr(minitorch, dtype_name), count=count, offset=offset)
    assert ours.tolist() == theirs.tolist()
    theirs[0] = 9
    ours[0] = 9
    assert ours_buffer.tolist() == theirs_buffer.tolist()


def test_frombuffer_refuses_a_ragged_buffer(torch):
    with pytest.raises(ValueError):
        torch.frombuffer(bytearray(5), dtype=torch.int32)
    with pytest.raises(ValueError, match="must be a multiple of element size"):
        minitorch.frombuffer(bytearray(5), dtype=minitorch.int32)


@pytest.mark.parametrize("p", [1, 2, 3])
def test_mvlgamma_is_special_multigammaln(torch, p):
    values = np.array([[2.5, 3.0], [1.75, 4.2]])
    theirs = torch.mvlgamma(torch.tensor(values), p)
    ours = minitorch.mvlgamma(minitorch.tensor(values), p)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)


@pytest.mark.filterwarnings("ignore:Anomaly Detection has been enabled")
def test_is_anomaly_enabled_follows_detect_anomaly(torch):
    assert minitorch.is_anomaly_enabled() is torch.is_anomaly_enabled() is False
    with minitorch.autograd.detect_anomaly(), torch.autograd.detect_anomaly():
        assert minitorch.is_anomaly_enabled() is torch.is_anomaly_enabled() is True
    assert minitorch.is_anomaly_enabled() is False


def test_a_cpu_tensor_is_not_pinned(torch):
    assert minitorch.ones(2).is_pinned() is torch.ones(2).is_pinned() is False


@pytest.mark.parametrize("start, new_shape", [(6, (2, 2)), (6, (3, 2)), (4, (2, 2)), (6, (6,)), (6, (1, 2, 1))])
def test_resize_keeps_the_leading_elements(torch, start, new_shape):
    theirs = torch.arange(float(start))
    ours = minitorch.arange(float(start))
    assert ours.resize_(*new_shape) is ours
    theirs.resize_(*new_shape)
    assert tuple(ours.shape) == tuple(theirs.shape) and ours.tolist() == theirs.tolist()
    assert ours._version == 1


def test_resize_growing_keeps_the_old_elements_first(torch):
    theirs, ours = torch.arange(3.0).resize_(2, 2), minitorch.arange(3.0).resize_(2, 2)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.flatten()[:3].tolist() == theirs.flatten()[:3].tolist()  # the fourth is uninitialised in PyTorch


def test_resize_of_a_tensor_that_needs_grad_is_refused(torch):
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        torch.ones(2, requires_grad=True).resize_(4)
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        minitorch.ones(2, requires_grad=True).resize_(4)


def test_a_real_tensor_is_its_own_conjugate(torch):
    values = [[1.0, -2.0], [3.5, 0.0]]
    for lib in (torch, minitorch):
        x = lib.tensor(values)
        assert lib.conj(x) is x and x.conj() is x and x.resolve_conj() is x and lib.resolve_conj(x) is x
        assert x.conj_physical() is x and lib.conj_physical(x) is x
        assert x.is_conj() is False and lib.is_conj(x) is False
