"""A node's saved tensors by name, and saved-tensor hooks (``minitorch/autograd/_extensions.py``, ``graph.py``).

Each test runs the same code on minitorch and on PyTorch and compares what the hooks saw and what
backward computed.
"""

from __future__ import annotations

import pytest

import minitorch
from tests.support import require_torch


@pytest.fixture
def torch():
    return require_torch()


def _both(torch, build):
    return build(minitorch), build(torch)


def test_saved_tensors_by_name(torch):
    def build(lib):
        a = lib.tensor([1.0, -2.0], requires_grad=True)
        b = lib.tensor([3.0, 0.5], requires_grad=True) * 2
        product, power, exponential = a * b, a.pow(2), a.exp()
        return (product.grad_fn._saved_self is a, product.grad_fn._saved_other is b,
                power.grad_fn._saved_self is a, power.grad_fn._saved_exponent,
                (a * 2).grad_fn._saved_other.tolist(),
                exponential.grad_fn._saved_result is exponential,
                exponential.grad_fn._saved_result.equal(exponential), exponential.grad_fn._saved_result.grad_fn.name(),
                (a ** b).grad_fn._saved_exponent is b)

    mine, theirs = _both(torch, build)
    assert mine == theirs
    assert mine[:3] == (True, True, True)


def test_saved_tensors_by_name_after_backward_and_unknown_names(torch):
    def build(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        y = a * a
        y.sum().backward()
        errors = []
        for attempt in (lambda: y.grad_fn._saved_self,
                        lambda: y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t),
                        lambda: a.exp().grad_fn._saved_blah):
            try:
                attempt()
            except (RuntimeError, AttributeError) as error:
                errors.append((type(error).__name__, str(error)))
        return errors

    mine, theirs = _both(torch, build)
    assert mine == theirs and len(mine) == 3


def test_register_hooks_on_a_raw_saved_tensor(torch):
    """The pack hook runs at once, on a detached alias; the unpack hook when backward (or _saved_) reads it."""

    def build(lib):
        seen = []
        a = lib.ones(3, requires_grad=True)
        b = lib.full((3,), 2.0, requires_grad=True)
        y = a * b
        y.grad_fn._raw_saved_self.register_hooks(lambda t: seen.append(("pack", t.tolist(), t.requires_grad)) or t,
                                                 lambda t: seen.append(("unpack", t.tolist())) or t * 3)
        unpacked = y.grad_fn._saved_self
        seen.append((unpacked.requires_grad, unpacked is a))
        try:
            y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)
        except RuntimeError as error:
            seen.append(str(error))
        y.sum().backward()
        return seen, a.grad.tolist(), b.grad.tolist()

    mine, theirs = _both(torch, build)
    assert mine == theirs
    assert mine[2] == [3.0, 3.0, 3.0]  # b's gradient read a through the unpack hook (times 3)


def test_saved_tensors_hooks_pack_on_save_unpack_in_backward(torch):
    def build(lib):
        seen = []

        def pack(tensor):
            seen.append(("pack", tensor.tolist(), tensor.grad_fn is not None, tensor.requires_grad))
            return tensor

        def unpack(tensor):
            seen.append(("unpack", tensor.tolist()))
            return tensor

        a = lib.tensor([1.0, 4.0], requires_grad=True)
        b = lib.tensor([2.0, 8.0], requires_grad=True) * 2
        with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = (a * b).sqrt()  # SqrtBackward0 saves its result
        seen.append("backward")
        y.sum().backward()
        return seen, a.grad.tolist(), b.grad_fn is not None

    mine, theirs = _both(torch, build)
    assert mine == theirs
    assert [entry[0] for entry in mine[0] if entry != "backward"] == ["pack"] * 3 + ["unpack"] * 3


def test_hooks_that_change_what_is_kept_give_the_same_gradients(torch):
    """Hooks that keep ``4 x`` and give back ``x / 4``; hooks that keep an index into a store."""

    def build(lib):
        x = lib.tensor([0.3, -1.2, 2.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t * 4, lambda t: t / 4):
            y = x.sin().sin().sin()
        scaled = lib.autograd.grad(y.sum(), x)[0]
        store = []
        with lib.autograd.graph.saved_tensors_hooks(lambda t: store.append(t.clone()) or len(store) - 1,
                                                    lambda index: store[index]):
            z = (x * x).sum() + (x.tanh() * 2).sum()
        z.backward()
        return scaled.tolist(), len(store), x.grad.tolist()

    mine, theirs = _both(torch, build)
    assert mine[1] == theirs[1]
    assert mine[0] == pytest.approx(theirs[0], rel=1e-6) and mine[2] == pytest.approx(theirs[2], rel=1e-6)


def test_an_unpack_hook_must_return_a_tensor(torch):
    def build(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: 3, lambda t: t):
            y = a.exp()
        with pytest.raises(TypeError) as error:
            y.sum().backward()
        return str(error.value)

    mine, theirs = _both(torch, build)
    assert mine == theirs


def test_disable_saved_tensors_hooks_and_save_on_cpu(torch):
    def build(lib):
        graph = lib.autograd.graph
        with graph.disable_saved_tensors_hooks("no hooks here"):
            with pytest.raises(RuntimeError, match="no hooks here"):
                with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                    pass
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        with graph.save_on_cpu():
            y = (a * a.exp()).sum()
        y.backward()
        return a.grad.tolist()

    mine, theirs = _both(torch, build)
    assert mine == pytest.approx(theirs, rel=1e-6)
