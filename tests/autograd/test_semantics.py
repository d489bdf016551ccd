"""Autograd semantics, checked against PyTorch: the same code runs on both libraries.

Most tests build the same computation with ``lib = minitorch`` and ``lib = torch`` and
compare gradients, error types and messages. The graph, the engine's order, hooks,
custom Functions, grad modes, anomaly detection and gradcheck are all covered here.
"""

from __future__ import annotations

import gc
import math
import warnings

import numpy as np
import pytest

import minitorch
from minitorch.autograd import graph
from tests.support import require_torch


@pytest.fixture
def torch():
    return require_torch()


def _numpy(tensor):
    return None if tensor is None else tensor.detach().numpy()


def _assert_close(actual, expected, rtol=1e-6, atol=1e-7):
    """Compare a minitorch result (tensor, tuple, number) with PyTorch's."""
    if isinstance(actual, (tuple, list)):
        assert isinstance(expected, (tuple, list)) and len(actual) == len(expected)
        for a, e in zip(actual, expected):
            _assert_close(a, e, rtol, atol)
        return
    if actual is None or expected is None:
        assert actual is None and expected is None
        return
    if isinstance(actual, minitorch.Tensor):
        np.testing.assert_allclose(_numpy(actual), _numpy(expected), rtol=rtol, atol=atol)
        assert str(actual.dtype).replace("minitorch", "torch") == str(expected.dtype)
    else:
        assert actual == pytest.approx(expected, rel=rtol, abs=atol)


def _both(torch, build):
    """Run ``build(lib)`` with minitorch and with torch; return both results."""
    return build(minitorch), build(torch)


def _error(build, lib):
    """The exception ``build(lib)`` raises (fails the test if it raises none)."""
    with pytest.raises(Exception) as info:
        build(lib)
    return info.value


def _same_error(torch, build, exception_type=RuntimeError, prefix_length=None):
    """Both libraries raise ``exception_type``; minitorch's message starts as torch's does (or equals it)."""
    mine, theirs = _error(build, minitorch), _error(build, torch)
    assert isinstance(theirs, exception_type), f"torch raised {type(theirs).__name__}: {theirs}"
    assert isinstance(mine, exception_type), f"minitorch raised {type(mine).__name__}: {mine}"
    expected = str(theirs) if prefix_length is None else str(theirs)[:prefix_length]
    assert str(mine).startswith(expected), f"\nminitorch: {mine}\ntorch:     {theirs}"
    return str(mine)


def _leaf(lib, values, dtype_name="float64"):
    return lib.tensor(values, dtype=getattr(lib, dtype_name), requires_grad=True)


# -- making custom Functions that run on either library ---------------------------------------
def _square_function(lib):
    class Square(lib.autograd.Function):
        """y = x^2;  dx = 2 x grad."""

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 2 * x

    return Square


def _tanh_function(lib):
    """tanh written as a custom Function from + - * / only (so it exists on both libraries)."""

    class Tanh(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            exp_2x = lib.from_numpy(np.exp(2 * x.detach().numpy()))
            y = (exp_2x - 1) / (exp_2x + 1)
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * (1 - y * y)

    return Tanh


# -- accumulation, diamonds, retain_graph ------------------------------------------------------
def test_gradients_accumulate_across_two_backward_calls(torch):
    def build(lib):
        x = _leaf(lib, [1.0, -2.0, 3.0])
        (x * x).sum().backward()
        first = x.grad.detach().numpy().copy()
        (x * 3.0).sum().backward()
        return first, x.grad

    (mine_first, mine), (torch_first, theirs) = _both(torch, build)
    np.testing.assert_allclose(mine_first, torch_first)
    _assert_close(mine, theirs)


def test_grad_is_a_fresh_tensor_not_the_incoming_gradient(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        y = _leaf(lib, [3.0, 4.0])
        (x + y).sum().backward()
        x.grad.numpy()[...] *= 10  # x's and y's gradients must not share memory
        return x.grad, y.grad

    _assert_close(*_both(torch, build))


def test_diamond_value_used_twice(torch):
    def build(lib):
        x = _leaf(lib, [0.5, -1.5, 2.0])
        a = x * 3.0
        b = a * a + a / 2.0 - x  # a used three times, x used twice
        b.sum().backward()
        return x.grad

    _assert_close(*_both(torch, build))


def test_deep_diamond_of_diamonds(torch):
    def build(lib):
        x = _leaf(lib, [1.1, 0.9])
        value = x
        for _ in range(6):
            value = value * value / 2.0 + value
        value.sum().backward()
        return x.grad

    _assert_close(*_both(torch, build), rtol=1e-12)


def test_same_leaf_twice_in_one_op(torch):
    def build(lib):
        x = _leaf(lib, [2.0, 3.0])
        (x * x).sum().backward()
        return x.grad

    _assert_close(*_both(torch, build))


def test_broadcast_gradients_are_reduced_to_each_input_shape(torch):
    def build(lib):
        a = _leaf(lib, [[1.0], [2.0], [3.0]])  # 3x1
        b = _leaf(lib, [10.0, 20.0])  # 2
        c = _leaf(lib, 0.5)  # 0-d
        ((a * b + c) * a).sum().backward()
        return a.grad, b.grad, c.grad

    _assert_close(*_both(torch, build))


def test_retain_graph_allows_a_second_backward(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        y = (x * x * x).sum()
        y.backward(retain_graph=True)
        y.backward()
        return x.grad

    _assert_close(*_both(torch, build))


def test_second_backward_without_retain_graph_fails(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        y = (x * x).sum()
        y.backward()
        y.backward()

    message = _same_error(torch, build, prefix_length=120)
    assert "Trying to backward through the graph a second time" in message
    assert "retain_graph=True" in message


def test_second_backward_through_ops_that_save_nothing_is_allowed(torch):
    # PyTorch only complains when a freed saved tensor is needed: add and sum save nothing.
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        y = (x + 1.0).sum()
        y.backward()
        y.backward()
        return x.grad

    _assert_close(*_both(torch, build))


def test_saved_tensors_access_after_backward_fails_like_torch(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        y = _square_function(lib).apply(x)
        y.sum().backward()
        return y.grad_fn.saved_tensors

    _same_error(torch, build, prefix_length=80)


# -- backward arguments ---------------------------------------------------------------------------
def test_backward_with_gradient_for_non_scalar(torch):
    def build(lib):
        x = _leaf(lib, [[1.0, 2.0], [3.0, 4.0]])
        y = x * x * 0.5
        y.backward(gradient=lib.tensor([[1.0, -1.0], [2.0, 0.5]], dtype=lib.float64))
        return x.grad

    _assert_close(*_both(torch, build))


def test_backward_on_non_scalar_without_gradient_fails(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        (x * 2.0).backward()

    assert _same_error(torch, build) == "grad can be implicitly created only for scalar outputs"


def test_backward_with_gradient_of_wrong_shape_fails(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        (x * 2.0).backward(lib.ones(3, dtype=lib.float64))

    _same_error(torch, build, prefix_length=len("Mismatch in shape"))


def test_backward_on_tensor_that_does_not_require_grad_fails(torch):
    def build(lib):
        x = lib.tensor([1.0, 2.0])
        (x * 2.0).sum().backward()

    assert _same_error(torch, build) == "element 0 of tensors does not require grad and does not have a grad_fn"


def test_backward_inputs_limits_which_leaves_get_grad(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        w = _leaf(lib, [3.0, -1.0])
        b = _leaf(lib, [0.5, 0.5])
        loss = (x * w + b).sum()
        loss.backward(inputs=[w])
        return x.grad, w.grad, b.grad

    mine, theirs = _both(torch, build)
    _assert_close(mine, theirs)
    assert mine[0] is None and mine[2] is None


def test_backward_inputs_may_name_a_non_leaf(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        hidden = x * 3.0
        loss = (hidden * hidden).sum()
        loss.backward(inputs=[hidden])
        return x.grad, hidden.grad

    _assert_close(*_both(torch, build))


def test_backward_inputs_empty_list_fails(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        (x * x).sum().backward(inputs=[])

    _same_error(torch, build)


def test_autograd_backward_function_with_several_roots(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        y1 = x * x
        y2 = (x * 3.0).sum()
        lib.autograd.backward([y1, y2], [lib.tensor([1.0, 2.0], dtype=lib.float64), None])
        return x.grad

    _assert_close(*_both(torch, build))


# -- hooks ------------------------------------------------------------------------------------------
def test_hook_on_leaf_replaces_its_gradient(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        seen = []
        x.register_hook(lambda grad: seen.append(grad.detach().numpy().copy()) or grad * 10)
        (x * x).sum().backward()
        return x.grad, seen

    (mine, mine_seen), (theirs, their_seen) = _both(torch, build)
    _assert_close(mine, theirs)
    np.testing.assert_allclose(mine_seen, their_seen)


def test_hook_on_non_leaf_replaces_the_gradient_flowing_on(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        y = x * 2.0
        y.register_hook(lambda grad: grad * 10)
        (y * y).sum().backward()
        return x.grad

    _assert_close(*_both(torch, build))


def test_hook_returning_none_keeps_the_gradient_and_hooks_run_in_order(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        y = x * 2.0
        order = []
        y.register_hook(lambda grad: order.append("first"))
        y.register_hook(lambda grad: order.append("second") or grad + 1)
        y.register_hook(lambda grad: order.append(("third", grad.detach().numpy().tolist())))
        y.sum().backward()
        return x.grad, order

    (mine, mine_order), (theirs, their_order) = _both(torch, build)
    _assert_close(mine, theirs)
    assert mine_order == their_order


def test_handle_remove_takes_a_hook_off(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        y = x * 2.0
        handle = y.register_hook(lambda grad: grad * 100)
        leaf_handle = x.register_hook(lambda grad: grad * 1000)
        handle.remove()
        leaf_handle.remove()
        handle.remove()  # removing twice is harmless
        y.sum().backward()
        return x.grad

    _assert_close(*_both(torch, build))


def test_hook_on_tensor_without_grad_fails(torch):
    def build(lib):
        lib.tensor([1.0]).register_hook(lambda grad: grad)

    _same_error(torch, build)


def test_retain_grad_keeps_non_leaf_gradient(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        hidden = x * x
        hidden.retain_grad()
        out = hidden * 3.0
        out.sum().backward()
        return hidden.grad, x.grad, hidden.retains_grad, out.retains_grad, x.retains_grad

    mine, theirs = _both(torch, build)
    _assert_close(mine[:2], theirs[:2])
    assert mine[2:] == theirs[2:]


def test_retain_grad_runs_after_hooks_that_change_the_gradient(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        hidden = x * x
        hidden.retain_grad()
        hidden.register_hook(lambda grad: grad * 2)  # registered after retain_grad, still runs first
        (hidden * 3.0).sum().backward()
        return hidden.grad, x.grad

    _assert_close(*_both(torch, build))


def test_retain_grad_accumulates_over_two_backwards(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        hidden = x * x
        hidden.retain_grad()
        loss = (hidden * hidden).sum()
        loss.backward(retain_graph=True)
        loss.backward()
        return hidden.grad, x.grad

    _assert_close(*_both(torch, build))


def test_non_leaf_grad_access_warns(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        hidden = x * 2.0
        hidden.sum().backward()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = hidden.grad
        return value, [str(w.message) for w in caught if issubclass(w.category, UserWarning)]

    (mine, mine_warnings), (theirs, their_warnings) = _both(torch, build)
    assert mine is None and theirs is None
    assert len(mine_warnings) == 1 and len(their_warnings) == 1
    assert mine_warnings[0].startswith("The .grad attribute of a Tensor that is not a leaf Tensor is being accessed.")
    assert their_warnings[0].startswith(mine_warnings[0][:100])


def test_leaf_grad_access_does_not_warn():
    x = minitorch.tensor([1.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert x.grad is None


def test_post_accumulate_grad_hook_sees_the_updated_leaf(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        seen = []
        x.register_post_accumulate_grad_hook(lambda tensor: seen.append(tensor.grad.detach().numpy().copy()))
        (x * x).sum().backward()
        (x * 5.0).sum().backward()
        return seen

    mine, theirs = _both(torch, build)
    np.testing.assert_allclose(mine, theirs)


# -- autograd.grad ----------------------------------------------------------------------------------
def test_autograd_grad_returns_without_touching_dot_grad(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        w = _leaf(lib, [0.5, -0.5])
        gx, gw = lib.autograd.grad((x * w * x).sum(), [x, w])
        return gx, gw, x.grad, w.grad

    _assert_close(*_both(torch, build))


def test_autograd_grad_allow_unused(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        unused = _leaf(lib, [3.0])
        return lib.autograd.grad((x * x).sum(), [x, unused], allow_unused=True)

    mine, theirs = _both(torch, build)
    _assert_close(mine, theirs)
    assert mine[1] is None


def test_autograd_grad_materialize_grads(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        unused = _leaf(lib, [3.0])
        return lib.autograd.grad((x * x).sum(), [x, unused], materialize_grads=True)

    _assert_close(*_both(torch, build))


def test_autograd_grad_unused_input_without_allow_unused_fails(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        unused = _leaf(lib, [3.0])
        lib.autograd.grad((x * x).sum(), [x, unused])

    message = _same_error(torch, build)
    assert "Set allow_unused=True" in message


def test_autograd_grad_input_that_does_not_require_grad_fails(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        constant = lib.tensor([1.0, 2.0], dtype=lib.float64)
        lib.autograd.grad((x * constant).sum(), [constant])

    _same_error(torch, build)


def test_autograd_grad_create_graph_gives_second_derivatives(torch):
    def build(lib):
        x = _leaf(lib, [0.5, 1.5, -2.0])
        y = (x * x * x).sum()  # dy/dx = 3x^2, d2y/dx2 = 6x
        (first,) = lib.autograd.grad(y, x, create_graph=True)
        assert first.requires_grad
        (second,) = lib.autograd.grad(first.sum(), x)
        return first, second

    _assert_close(*_both(torch, build))


def test_autograd_grad_with_respect_to_non_leaf(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        hidden = x * 3.0
        out = (hidden * hidden).sum()
        return lib.autograd.grad(out, [hidden, x])

    _assert_close(*_both(torch, build))


def test_autograd_grad_with_grad_outputs(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        y = x * x
        return lib.autograd.grad(y, x, grad_outputs=lib.tensor([1.0, -3.0], dtype=lib.float64))

    _assert_close(*_both(torch, build))


def test_create_graph_backward_builds_a_differentiable_grad(torch):
    def build(lib):
        x = _leaf(lib, [0.5, 2.0])
        with pytest.warns(
            UserWarning, match="^Using backward\\(\\) with create_graph=True will create a reference cycle"
        ):
            (x * x * x).sum().backward(create_graph=True)
        grad = x.grad
        assert grad.requires_grad
        x.grad = None
        grad.sum().backward()
        return grad, x.grad

    _assert_close(*_both(torch, build))


def test_hessian_vector_product_matches_torch(torch):
    def build(lib):
        x = _leaf(lib, [0.3, -1.2, 2.0, 0.7])
        vector = lib.tensor([1.0, 0.5, -1.0, 2.0], dtype=lib.float64)
        tanh = _tanh_function(lib)
        # f(x) = sum(tanh(x) * x^2) + (sum x)^2: a Hessian with off-diagonal terms
        total = x.sum()
        f = (tanh.apply(x) * x * x).sum() + total * total
        (grad,) = lib.autograd.grad(f, x, create_graph=True)
        (hvp,) = lib.autograd.grad(grad, x, grad_outputs=vector)
        return grad, hvp

    _assert_close(*_both(torch, build), rtol=1e-10)


def test_third_derivative(torch):
    def build(lib):
        x = _leaf(lib, [0.5, -1.0])
        y = (x * x * x * x).sum()
        (g1,) = lib.autograd.grad(y, x, create_graph=True)
        (g2,) = lib.autograd.grad(g1.sum(), x, create_graph=True)
        (g3,) = lib.autograd.grad(g2.sum(), x)
        return g1, g2, g3

    _assert_close(*_both(torch, build))


# -- custom Functions --------------------------------------------------------------------------------
def test_custom_function_forward_and_backward(torch):
    def build(lib):
        x = _leaf(lib, [1.0, -2.0, 3.0])
        y = _square_function(lib).apply(x)
        y.sum().backward()
        return y, x.grad, type(y.grad_fn).__name__

    (mine_y, mine_grad, mine_name), (their_y, their_grad, their_name) = _both(torch, build)
    _assert_close((mine_y, mine_grad), (their_y, their_grad))
    assert mine_name == their_name == "SquareBackward"


def _scale_function(lib):
    class Scale(lib.autograd.Function):
        """y = x * factor + shift (factor, shift are Python numbers); records needs_input_grad."""

        @staticmethod
        def forward(ctx, x, factor, other, shift=0.0):
            ctx.factor = factor
            ctx.seen_needs = ctx.needs_input_grad
            ctx.save_for_backward(other)
            return x * factor + other + shift

        @staticmethod
        def backward(ctx, grad):
            (other,) = ctx.saved_tensors
            grad_x = grad * ctx.factor if ctx.needs_input_grad[0] else None
            grad_other = grad if ctx.needs_input_grad[2] else None
            return grad_x, None, grad_other, None

    return Scale


def test_custom_function_non_tensor_arguments_and_needs_input_grad(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        other = lib.tensor([5.0, 6.0], dtype=lib.float64)
        y = _scale_function(lib).apply(x, 3.0, other, 0.5)
        y.sum().backward()
        return y, x.grad, tuple(y.grad_fn.needs_input_grad), tuple(y.grad_fn.seen_needs)

    (my_y, my_grad, my_needs, my_seen), (their_y, their_grad, their_needs, their_seen) = _both(torch, build)
    _assert_close((my_y, my_grad), (their_y, their_grad))
    assert my_needs == their_needs == (True, False, False, False)
    assert my_seen == their_seen


def test_custom_function_returning_too_few_gradients_fails(torch):
    def build(lib):
        class Bad(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x * y

            @staticmethod
            def backward(ctx, grad):
                return grad

        a, b = _leaf(lib, [1.0]), _leaf(lib, [2.0])
        Bad.apply(a, b).sum().backward()

    message = _same_error(
        torch, build, prefix_length=len("function BadBackward returned an incorrect number of gradients")
    )
    assert "expected 2, got 1" in message


def test_custom_function_may_return_extra_trailing_nones_but_not_extra_gradients(torch):
    """PyTorch drops extra trailing Nones from a backward's results (code written for an older signature);
    an extra gradient that is not None is still the wrong-count error."""

    def build(lib, extra):
        class Scale(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, factor, y):
                ctx.factor = factor
                return x * factor * y

            @staticmethod
            def backward(ctx, grad):
                return grad * ctx.factor, None, grad, extra(grad)

        a, b = _leaf(lib, [1.0, 2.0]), _leaf(lib, [3.0, 4.0])
        Scale.apply(a, 5.0, b).sum().backward()
        return a.grad, b.grad

    ours, theirs = build(minitorch, lambda grad: None), build(torch, lambda grad: None)
    _assert_close(ours, theirs)
    message = _same_error(torch, lambda lib: build(lib, lambda grad: grad),
                          prefix_length=len("function ScaleBackward returned an incorrect number of gradients"))
    assert "expected 3, got 4" in message


def _min_max_function(lib):
    class MinMax(lib.autograd.Function):
        """Two outputs: the sorted pair (smaller, larger) of a and b, elementwise, and the mask a <= b."""

        @staticmethod
        def forward(ctx, a, b):
            take_a = lib.from_numpy(a.detach().numpy() <= b.detach().numpy())
            mask = take_a.to(a.dtype)
            smaller = a * mask + b * (1 - mask)
            larger = b * mask + a * (1 - mask)
            ctx.save_for_backward(mask)
            ctx.mark_non_differentiable(take_a)
            return smaller, larger, take_a

        @staticmethod
        def backward(ctx, grad_smaller, grad_larger, grad_mask):
            (mask,) = ctx.saved_tensors
            grad_a = grad_smaller * mask + grad_larger * (1 - mask)
            grad_b = grad_smaller * (1 - mask) + grad_larger * mask
            return grad_a, grad_b

    return MinMax


def test_custom_function_multiple_outputs_and_mark_non_differentiable(torch):
    def build(lib):
        a = _leaf(lib, [1.0, 5.0, 3.0])
        b = _leaf(lib, [2.0, 4.0, 3.0])
        smaller, larger, take_a = _min_max_function(lib).apply(a, b)
        assert not take_a.requires_grad and take_a.grad_fn is None
        assert smaller.grad_fn is larger.grad_fn
        assert (smaller.output_nr, larger.output_nr) == (0, 1)
        (smaller * 2.0 + larger * 10.0).sum().backward()
        return smaller, larger, a.grad, b.grad

    _assert_close(*_both(torch, build))


def test_custom_function_multiple_outputs_one_unused(torch):
    # Only ``larger`` reaches the loss: the other output's gradient arrives as zeros (materialize_grads).
    def build(lib):
        a = _leaf(lib, [1.0, 5.0])
        b = _leaf(lib, [2.0, 4.0])
        _, larger, _ = _min_max_function(lib).apply(a, b)
        larger.sum().backward()
        return a.grad, b.grad

    _assert_close(*_both(torch, build))


def test_custom_function_set_materialize_grads_false_gives_none(torch):
    def build(lib):
        received = []

        class Pair(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, grad_first, grad_second):
                received.append((grad_first is None, grad_second is None))
                return grad_second * 3

        x = _leaf(lib, [1.0, 2.0])
        _, second = Pair.apply(x)
        second.sum().backward()
        return x.grad, received

    (mine, my_received), (theirs, their_received) = _both(torch, build)
    _assert_close(mine, theirs)
    assert my_received == their_received == [(True, False)]


def _once_differentiable_function(lib):
    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, grad):
            return grad * 2

    return Double


def test_once_differentiable_first_order_works(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        y = _once_differentiable_function(lib).apply(x)
        (y * y).sum().backward()
        return x.grad

    _assert_close(*_both(torch, build))


def test_once_differentiable_double_backward_fails(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        y = _once_differentiable_function(lib).apply(x)
        (grad,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        grad.sum().backward()

    message = _same_error(torch, build)
    assert message == "trying to differentiate twice a function that was marked with @once_differentiable"


def test_once_differentiable_is_exported_where_torch_has_it(torch):
    assert minitorch.autograd.function.once_differentiable is minitorch.autograd.once_differentiable
    assert torch.autograd.function.once_differentiable is not None


def test_setup_context_style_function(torch):
    def build(lib):
        class Cube(lib.autograd.Function):
            @staticmethod
            def forward(x, scale):
                return x * x * x * scale

            @staticmethod
            def setup_context(ctx, inputs, output):
                x, scale = inputs
                ctx.save_for_backward(x)
                ctx.scale = scale

            @staticmethod
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                return grad * 3 * x * x * ctx.scale, None

        x = _leaf(lib, [1.0, -2.0])
        y = Cube.apply(x, 0.5)
        (grad,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        (second,) = lib.autograd.grad(grad.sum(), x)
        return y, grad, second

    _assert_close(*_both(torch, build))


def test_custom_function_forward_runs_without_recording(torch):
    def build(lib):
        recorded = []

        class Probe(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                inner = x * 2
                recorded.append((lib.is_grad_enabled(), inner.requires_grad))
                return inner

            @staticmethod
            def backward(ctx, grad):
                return grad * 2

        Probe.apply(_leaf(lib, [1.0]))
        return recorded

    mine, theirs = _both(torch, build)
    assert mine == theirs == [(False, False)]


def test_custom_function_returning_its_input_gets_a_new_identity(torch):
    def build(lib):
        class Identity(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, grad):
                return grad * 5

        x = _leaf(lib, [1.0, 2.0])
        y = Identity.apply(x)
        assert y is not x and y.grad_fn is not None and x.grad_fn is None
        y.sum().backward()
        return x.grad

    _assert_close(*_both(torch, build))


def test_custom_function_without_grad_records_nothing(torch):
    def build(lib):
        y = _square_function(lib).apply(lib.tensor([1.0, 2.0]))
        return y.requires_grad, y.grad_fn

    mine, theirs = _both(torch, build)
    assert mine == (False, None) and theirs == (False, None)


# -- grad modes --------------------------------------------------------------------------------------
def test_no_grad_context_and_decorator(torch):
    def build(lib):
        x = _leaf(lib, [1.0])
        with lib.no_grad():
            inside = x * 2
            enabled_inside = lib.is_grad_enabled()

        @lib.no_grad()
        def doubled(value):
            return value * 2

        @lib.no_grad()
        def generate(value):
            yield value * 2
            yield value * 3

        generated = [t.requires_grad for t in generate(x)]
        return (
            inside.requires_grad,
            inside.grad_fn is None,
            enabled_inside,
            doubled(x).requires_grad,
            generated,
            lib.is_grad_enabled(),
            (x * 2).requires_grad,
        )

    mine, theirs = _both(torch, build)
    assert mine == theirs == (False, True, False, False, [False, False], True, True)


def test_enable_grad_inside_no_grad(torch):
    def build(lib):
        x = _leaf(lib, [1.0])

        @lib.enable_grad()
        def recorded(value):
            return value * 2

        with lib.no_grad():
            with lib.enable_grad():
                inner = x * 2
            after = x * 2
            decorated = recorded(x)
        return inner.requires_grad, after.requires_grad, decorated.requires_grad

    mine, theirs = _both(torch, build)
    assert mine == theirs == (True, False, True)


def test_set_grad_enabled_as_context_decorator_and_function(torch):
    def build(lib):
        x = _leaf(lib, [1.0])
        results = []
        with lib.set_grad_enabled(False):
            results.append((x * 2).requires_grad)
        results.append((x * 2).requires_grad)

        @lib.set_grad_enabled(False)
        def off(value):
            return value * 2

        results.append(off(x).requires_grad)
        results.append(lib.is_grad_enabled())
        lib.set_grad_enabled(False)  # plain call: switches at once
        results.append(((x * 2).requires_grad, lib.is_grad_enabled()))
        lib.set_grad_enabled(True)
        results.append(((x * 2).requires_grad, lib.is_grad_enabled()))
        with lib.no_grad():
            with lib.set_grad_enabled(True):
                results.append((x * 2).requires_grad)
            results.append(lib.is_grad_enabled())
        return results

    mine, theirs = _both(torch, build)
    assert mine == theirs
    assert minitorch.is_grad_enabled()


def test_inference_mode(torch):
    def build(lib):
        x = _leaf(lib, [1.0])
        with lib.inference_mode():
            inside = x * 2
            enabled = lib.is_grad_enabled()
            inference = lib.is_inference_mode_enabled()

        @lib.inference_mode()
        def run(value):
            return value * 2

        with lib.inference_mode(False):
            not_inference = (x * 2).requires_grad
        return (
            inside.requires_grad,
            enabled,
            inference,
            run(x).requires_grad,
            not_inference,
            lib.is_inference_mode_enabled(),
            lib.is_grad_enabled(),
        )

    mine, theirs = _both(torch, build)
    assert mine == theirs == (False, False, True, False, True, False, True)


def test_grad_mode_restored_after_exception(torch):
    def build(lib):
        with pytest.raises(ValueError):
            with lib.no_grad():
                raise ValueError("boom")
        return lib.is_grad_enabled()

    assert _both(torch, build) == (True, True)


def test_backward_inside_no_grad_still_computes_gradients(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        loss = (x * x).sum()
        with lib.no_grad():
            loss.backward()
        return x.grad

    _assert_close(*_both(torch, build))


# -- detach and requires_grad ------------------------------------------------------------------------
def test_detach_shares_data_and_cuts_the_graph(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        y = x * 2
        detached = y.detach()
        z = (detached * y).sum()
        z.backward()
        return (detached.requires_grad, detached.grad_fn is None, detached.is_leaf, x.grad)

    mine, theirs = _both(torch, build)
    assert mine[:3] == theirs[:3] == (False, True, True)
    _assert_close(mine[3], theirs[3])


def test_detach_shares_the_version_counter(torch):
    def build(lib):
        x = lib.tensor([1.0, 2.0])
        detached = x.detach()
        with lib.no_grad():
            detached.mul_(2)
        return x._version, detached._version, x

    mine, theirs = _both(torch, build)
    assert mine[:2] == theirs[:2]
    _assert_close(mine[2], theirs[2])


def test_detach_in_place(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        y = x * 2
        same = y.detach_()
        return same is y, y.requires_grad, y.grad_fn is None, y.is_leaf

    mine, theirs = _both(torch, build)
    assert mine == theirs == (True, False, True, True)


def test_requires_grad_on_integer_tensor_fails(torch):
    for build in (
        lambda lib: lib.tensor([1, 2]).requires_grad_(),
        lambda lib: lib.tensor([1, 2], requires_grad=True),
        lambda lib: setattr(lib.tensor([1, 2]), "requires_grad", True),
        lambda lib: lib.zeros(2, dtype=lib.int64, requires_grad=True),
    ):
        message = _same_error(torch, build)
        assert message.lower().startswith("only tensors of floating point")


def test_requires_grad_setter_on_non_leaf(torch):
    for value in (False, True):

        def build(lib, value=value):
            y = _leaf(lib, [1.0]) * 2
            y.requires_grad = value

        assert _same_error(torch, build).startswith("you can only change requires_grad flags of leaf variables.")

    def build_method(lib):
        y = _leaf(lib, [1.0]) * 2
        same = y.requires_grad_(True)  # allowed: it already requires grad
        return same is y, y.requires_grad

    assert _both(torch, build_method) == ((True, True), (True, True))


def test_requires_grad_underscore_returns_self(torch):
    def build(lib):
        x = lib.tensor([1.0, 2.0])
        same = x.requires_grad_()
        off = lib.tensor([1.0]).requires_grad_(False)
        return same is x, x.requires_grad, x.is_leaf, off.requires_grad

    assert _both(torch, build) == ((True, True, True, False),) * 2


def test_integer_results_never_require_grad(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        compared = x > 1.5
        return compared.requires_grad, compared.grad_fn is None

    assert _both(torch, build) == ((False, True),) * 2


# -- the graph: names, edges, order, sequence numbers ------------------------------------------------
def _describe(node, depth=3):
    """A nested description of a node and its next_functions (names and output numbers)."""
    if node is None:
        return None
    name = node.name()
    name = "torch::autograd::AccumulateGrad" if name.endswith("AccumulateGrad") else name
    if depth == 0:
        return name
    return (name, tuple((_describe(n, depth - 1), nr) for n, nr in node.next_functions))


def test_node_names_and_next_functions_match_torch(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        w = _leaf(lib, [3.0, 4.0])
        constant = lib.tensor([1.0, 1.0], dtype=lib.float64)
        y = ((x * w + constant) * constant - x / w).neg().sum()
        return _describe(y.grad_fn, depth=6)

    mine, theirs = _both(torch, build)
    assert mine == theirs


def test_node_names_for_simple_graph(torch):
    def build(lib):
        a, b = _leaf(lib, [1.0]), _leaf(lib, [2.0])
        product, total = a * b, a + b
        return product.grad_fn.name(), total.grad_fn.name(), total.sum().grad_fn.name(), (a - b).grad_fn.name()

    mine, theirs = _both(torch, build)
    assert mine == theirs == ("MulBackward0", "AddBackward0", "SumBackward0", "SubBackward0")


NODE_NAMES = {
    "x * y": lambda x, y: x * y,
    "x + y": lambda x, y: x + y,
    "x - y": lambda x, y: x - y,
    "x / y": lambda x, y: x / y,
    "-x": lambda x, y: -x,
    "x * 2": lambda x, y: x * 2.0,
    "x + 2": lambda x, y: x + 2.0,
    "2 - x": lambda x, y: 2.0 - x,
    "x - 2": lambda x, y: x - 2.0,
    "x.sum()": lambda x, y: x.sum(),
    "x.sum(0)": lambda x, y: x.sum(0),
    "x.sum(0, keepdim=True)": lambda x, y: x.sum(0, keepdim=True),
    "x.reshape": lambda x, y: x.reshape(3, 2),
    "x.view": lambda x, y: x.view(6),
    "x.expand": lambda x, y: x.reshape(1, 2, 3).expand(4, 2, 3),
    "x.double()": lambda x, y: x.double(),
}


@pytest.mark.parametrize("expression", list(NODE_NAMES))
def test_node_names_match_torch_overloads(torch, expression):
    def build(lib):
        x = lib.ones(2, 3, requires_grad=True)
        y = lib.ones(2, 3, requires_grad=True)
        return NODE_NAMES[expression](x, y).grad_fn.name()

    mine, theirs = _both(torch, build)
    assert mine == theirs


def test_rsub_node_names_match_torch(torch):
    def build(lib):
        x = lib.ones(2, 3, requires_grad=True)
        return lib.rsub(x, 2.0).grad_fn.name(), lib.rsub(x, lib.ones(2, 3)).grad_fn.name()

    mine, theirs = _both(torch, build)
    assert mine == theirs == ("RsubBackward1", "RsubBackward0")


def test_accumulate_grad_node_is_shared_and_holds_the_leaf(torch):
    def build(lib):
        x = _leaf(lib, [1.0])
        first, second = (x * 2).grad_fn.next_functions[0][0], (x * 3).grad_fn.next_functions[0][0]
        return first is second, first.variable is x

    mine, theirs = _both(torch, build)
    assert mine == theirs == (True, True)


def test_sequence_numbers_increase_in_creation_order(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        a = x * 2
        b = a + 1
        c = b * a
        d = c.sum()
        numbers = [t.grad_fn._sequence_nr() for t in (a, b, c, d)]
        return [later - earlier for earlier, later in zip(numbers, numbers[1:])]

    mine, theirs = _both(torch, build)
    assert all(step > 0 for step in mine)
    assert mine == theirs


def _mlp_graph(lib):
    """A two-layer network written with * + sum and a custom tanh; hooks record their order."""
    rng = np.random.default_rng(0)
    inputs = lib.tensor(rng.standard_normal((4, 1, 3)), dtype=lib.float64)
    weight1 = lib.tensor(rng.standard_normal((1, 5, 3)), dtype=lib.float64, requires_grad=True)
    bias1 = lib.tensor(rng.standard_normal(5), dtype=lib.float64, requires_grad=True)
    weight2 = lib.tensor(rng.standard_normal((1, 5)), dtype=lib.float64, requires_grad=True)
    bias2 = lib.tensor(rng.standard_normal(1), dtype=lib.float64, requires_grad=True)
    target = lib.tensor(rng.standard_normal(4), dtype=lib.float64)
    order = []
    named = {}

    def watch(name, tensor):
        named[name] = tensor
        tensor.register_hook(lambda grad: order.append(name))
        return tensor

    tanh = _tanh_function(lib)
    pre1 = watch("pre1", (inputs * weight1).sum(2))
    z1 = watch("z1", pre1 + bias1)
    h1 = watch("h1", tanh.apply(z1))
    pre2 = watch("pre2", (h1 * weight2).sum(1))
    out = watch("out", pre2 + bias2)
    error = watch("error", out - target)
    loss = watch("loss", (error * error).sum() / 4)
    for name, leaf in (("weight1", weight1), ("bias1", bias1), ("weight2", weight2), ("bias2", bias2)):
        leaf.register_hook(lambda grad, name=name: order.append(name))
    return loss, order, (weight1, bias1, weight2, bias2)


def _diamond_graph(lib):
    x = _leaf(lib, [1.0, 2.0])
    order = []

    def watch(name, tensor):
        tensor.register_hook(lambda grad: order.append(name))
        return tensor

    a = watch("a", x * 2)
    left = watch("left", a * 3)
    right = watch("right", a + 1)
    middle = watch("middle", a / 2)
    joined = watch("joined", left * right + middle)
    late = watch("late", a - 1)  # created last, but it feeds the end of the graph
    loss = watch("loss", (joined * late).sum())
    x.register_hook(lambda grad: order.append("x"))
    return loss, order, (x,)


@pytest.mark.parametrize("make_graph", [_mlp_graph, _diamond_graph], ids=["mlp", "diamond"])
def test_engine_runs_nodes_in_torch_order(torch, make_graph):
    (loss, my_order, my_leaves), (their_loss, their_order, their_leaves) = make_graph(minitorch), make_graph(torch)
    loss.backward()
    their_loss.backward()
    assert my_order == their_order
    _assert_close([leaf.grad for leaf in my_leaves], [leaf.grad for leaf in their_leaves], rtol=1e-10)


@pytest.mark.parametrize("make_graph", [_mlp_graph, _diamond_graph], ids=["mlp", "diamond"])
def test_node_pre_hooks_fire_in_torch_order(torch, make_graph):
    def run(lib):
        loss, _, leaves = make_graph(lib)
        names = []
        seen = set()
        stack = [loss.grad_fn]
        while stack:
            node = stack.pop()
            if node is None or node in seen:
                continue
            seen.add(node)
            if not node.name().endswith("AccumulateGrad"):
                node.register_prehook(lambda grads, node=node: names.append((node.name(), node._sequence_nr())))
            stack.extend(n for n, _ in node.next_functions)
        loss.backward()
        first = names[0][1]
        return [(name, number - first) for name, number in names]

    mine, theirs = _both(torch, run)
    # Overload numbers (SumBackward0 / SumBackward1) are checked in test_node_names_match_torch_overloads.
    assert [name.rstrip("0123456789") for name, _ in mine] == [name.rstrip("0123456789") for name, _ in theirs]
    assert [number for _, number in mine] == [number for _, number in theirs]


def test_node_post_hook_may_replace_grad_inputs(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        y = x * lib.tensor([3.0, 3.0], dtype=lib.float64)  # two inputs, the second needs no gradient
        seen = []

        def post_hook(grad_inputs, grad_outputs):
            seen.append(len(grad_inputs))
            return tuple(None if g is None else g * 2 for g in grad_inputs)

        y.grad_fn.register_hook(post_hook)
        y.sum().backward()
        return x.grad, seen

    (mine, my_seen), (theirs, their_seen) = _both(torch, build)
    _assert_close(mine, theirs)
    assert my_seen == their_seen


# -- the graph module ----------------------------------------------------------------------------------
def _small_graph():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    w = minitorch.tensor([3.0, -1.0], requires_grad=True)
    hidden = x * w
    loss = (hidden * hidden + x).sum()
    return loss, x, w


def test_graph_nodes_and_edges():
    loss, x, w = _small_graph()
    nodes = graph.nodes(loss)
    names = [node.name() for node in nodes]
    assert names == [
        "SumBackward0",
        "AddBackward0",
        "MulBackward0",
        "MulBackward0",
        "torch::autograd::AccumulateGrad",
        "torch::autograd::AccumulateGrad",
    ]
    assert nodes[0] is loss.grad_fn
    numbers = [graph.sequence_number(n) for n in nodes if not graph.is_leaf_node(n)]
    assert numbers == sorted(numbers, reverse=True)  # latest first; the leaves' nodes come last
    assert graph.forward_order(loss) == list(reversed(nodes))
    leaves = {id(graph.leaf_tensor(n)) for n in nodes if graph.is_leaf_node(n)}
    assert leaves == {id(x), id(w)}
    edges = graph.edges(loss)
    assert len(edges) == 1 + 2 + 2 + 2  # sum->add; add->mul,x; mul->mul (twice); mul->x,w
    for edge in edges:
        assert edge.source.next_functions[edge.input_nr] == (edge.target, edge.output_nr)
    assert graph.nodes(minitorch.tensor([1.0])) == []


def test_graph_saved_tensors_and_shapes():
    loss, x, w = _small_graph()
    product_node = loss.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0]
    assert product_node.name() == "MulBackward0"
    saved = graph.saved_tensors(product_node)
    assert saved[0] is w and saved[1] is x  # x * w keeps its other operand first, as PyTorch's MulBackward0 does
    assert graph.input_shapes(product_node) == ((2,), (2,))
    loss.backward()
    assert graph.saved_tensors(product_node) is None  # freed by backward


def test_step_backward_yields_the_steps_backward_performs():
    loss, x, w = _small_graph()
    steps = list(graph.step_backward(loss, retain_graph=True))
    stepped_nodes = [step.node for step in steps]
    grads_after_stepping = (x.grad.numpy().copy(), w.grad.numpy().copy())

    ran = []
    for node in graph.nodes(loss):
        if not graph.is_leaf_node(node):
            node.register_prehook(lambda grads, node=node: ran.append(node))
    x.grad = None
    w.grad = None
    loss.backward()
    assert [n for n in stepped_nodes if not graph.is_leaf_node(n)] == ran
    assert set(map(id, stepped_nodes)) == set(map(id, graph.nodes(loss)))
    np.testing.assert_array_equal(grads_after_stepping[0], x.grad.numpy())
    np.testing.assert_array_equal(grads_after_stepping[1], w.grad.numpy())

    first = steps[0]
    assert first.node is loss.grad_fn
    assert first.grad_outputs[0].item() == 1.0
    leaf_steps = [s for s in steps if s.leaf is not None]
    assert {id(s.leaf) for s in leaf_steps} == {id(x), id(w)}
    for step in leaf_steps:
        assert step.grad_inputs == ()


def test_draining_step_backward_equals_backward(torch):
    loss, x, w = _small_graph()
    steps = graph.step_backward(loss)
    for _ in steps:
        pass
    twin_loss, twin_x, twin_w = _small_graph()
    twin_loss.backward()
    np.testing.assert_array_equal(x.grad.numpy(), twin_x.grad.numpy())
    np.testing.assert_array_equal(w.grad.numpy(), twin_w.grad.numpy())
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        loss.backward()  # the stepped pass freed the graph, as backward() would


def test_step_backward_is_lazy():
    loss, x, _ = _small_graph()
    steps = graph.step_backward(loss)
    first = next(steps)
    assert first.node.name() == "SumBackward0"
    assert x.grad is None  # nothing reached the leaves yet
    for _ in steps:
        pass
    assert x.grad is not None


def test_graph_arguments_show_non_tensor_settings():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    y = _scale_function(minitorch).apply(x, 3.0, minitorch.tensor([1.0, 1.0]), 0.0)
    assert graph.arguments(y.grad_fn)["factor"] == 3.0


# -- anomaly detection -------------------------------------------------------------------------------
def _sqrt_function(lib):
    class Sqrt(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = lib.from_numpy(np.sqrt(x.detach().numpy()))
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad / (2 * y)

    return Sqrt


@pytest.mark.filterwarnings("ignore:Anomaly Detection has been enabled")
def test_detect_anomaly_names_the_op_that_made_nan(torch):
    def build(lib, use_builtin):
        x = _leaf(lib, [0.0, 1.0])
        with warnings.catch_warnings(), lib.autograd.detect_anomaly():
            warnings.simplefilter("ignore")
            root = x.sqrt() if use_builtin else _sqrt_function(lib).apply(x)
            (root * 0.0).sum().backward()  # 0 * (1 / 0) = nan in the sqrt's backward

    use_builtin = hasattr(minitorch.ops.pointwise, "sqrt")
    message = _same_error(torch, lambda lib: build(lib, use_builtin))
    name = "SqrtBackward0" if use_builtin else "SqrtBackward"
    assert message == f"Function '{name}' returned nan values in its 0th output."


@pytest.mark.filterwarnings("ignore:Anomaly Detection has been enabled")
def test_detect_anomaly_in_custom_function_zero_over_zero(torch):
    def build(lib):
        class ZeroOverZero(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * 1.0

            @staticmethod
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                return grad * x / x  # 0 / 0 at x = 0

        x = _leaf(lib, [0.0, 2.0])
        with warnings.catch_warnings(), lib.autograd.detect_anomaly():
            warnings.simplefilter("ignore")
            ZeroOverZero.apply(x).sum().backward()

    assert _same_error(torch, build) == "Function 'ZeroOverZeroBackward' returned nan values in its 0th output."


def test_detect_anomaly_warns_that_it_is_slow(torch):
    for lib in (minitorch, torch):
        with pytest.warns(
            UserWarning, match="^Anomaly Detection has been enabled. This mode will increase the runtime"
        ):
            lib.autograd.detect_anomaly()


@pytest.mark.filterwarnings("ignore:Anomaly Detection has been enabled")
def test_detect_anomaly_warns_with_forward_trace():
    x = minitorch.tensor([0.0], requires_grad=True)
    with minitorch.autograd.detect_anomaly():
        y = _sqrt_function(minitorch).apply(x) * 0.0
        with pytest.warns(RuntimeWarning, match="Error detected in SqrtBackward"):
            with pytest.raises(RuntimeError, match="returned nan values"):
                y.sum().backward()


def test_without_detect_anomaly_nan_passes_silently(torch):
    def build(lib):
        x = _leaf(lib, [0.0, 1.0])
        (_sqrt_function(lib).apply(x) * 0.0).sum().backward()
        return x.grad

    mine, theirs = _both(torch, build)
    np.testing.assert_array_equal(np.isnan(_numpy(mine)), np.isnan(_numpy(theirs)))
    assert not minitorch.autograd.is_anomaly_enabled()


def test_set_detect_anomaly_switches_and_restores():
    assert not minitorch.autograd.is_anomaly_enabled()
    with minitorch.autograd.set_detect_anomaly(True):
        assert minitorch.autograd.is_anomaly_enabled()
    assert not minitorch.autograd.is_anomaly_enabled()


# -- gradcheck ----------------------------------------------------------------------------------------
def _wrong_square(lib):
    class WrongSquare(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x  # should be 2 x

    return WrongSquare


def test_gradcheck_and_gradgradcheck_pass_on_correct_functions(torch):
    def build(lib):
        x = _leaf(lib, [0.3, -0.8, 1.5])
        other = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)
        tanh = _tanh_function(lib)
        results = [
            lib.autograd.gradcheck(_square_function(lib).apply, (x,)),
            lib.autograd.gradcheck(tanh.apply, (x,)),
            lib.autograd.gradcheck(lambda a: _scale_function(lib).apply(a, 2.5, other, 1.0), (x,)),
            lib.autograd.gradgradcheck(_square_function(lib).apply, (x,)),
            lib.autograd.gradgradcheck(tanh.apply, (x,)),
            lib.autograd.gradcheck(lambda a, b: (a * b / (a * a + 1.0)).sum(), (x, _leaf(lib, [1.0, 0.5, 2.0]))),
        ]
        return results

    assert _both(torch, build) == ([True] * 6, [True] * 6)


def test_gradcheck_multiple_outputs():
    a = minitorch.tensor([1.0, 5.0, 3.5], dtype=minitorch.float64, requires_grad=True)
    b = minitorch.tensor([2.0, 4.0, 3.0], dtype=minitorch.float64, requires_grad=True)
    min_max = _min_max_function(minitorch)
    assert minitorch.autograd.gradcheck(lambda p, q: min_max.apply(p, q)[:2], (a, b))


def test_gradcheck_fails_on_wrong_backward(torch):
    from torch.autograd.gradcheck import GradcheckError as TorchGradcheckError

    from minitorch.autograd.gradcheck import GradcheckError

    assert issubclass(GradcheckError, RuntimeError)

    def build(lib):
        lib.autograd.gradcheck(_wrong_square(lib).apply, (_leaf(lib, [0.5, 1.5]),))

    mine, theirs = _error(build, minitorch), _error(build, torch)
    assert isinstance(mine, GradcheckError) and isinstance(theirs, TorchGradcheckError)
    expected = "Jacobian mismatch for output 0 with respect to input 0"
    assert str(mine).startswith(expected) and str(theirs).startswith(expected)


def test_gradcheck_raise_exception_false_returns_false(torch):
    def build(lib):
        return lib.autograd.gradcheck(_wrong_square(lib).apply, (_leaf(lib, [0.5]),), raise_exception=False)

    assert _both(torch, build) == (False, False)


def test_gradgradcheck_fails_on_wrong_double_backward(torch):
    def build(lib):
        class WrongSecond(lib.autograd.Function):
            """First derivative right (2x), but written so its own derivative is wrong."""

            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                # 2 x grad, but through x * x / x.detach(): the second derivative comes out as 4, not 2
                return grad * 2 * (x * x / x.detach())

        lib.autograd.gradgradcheck(WrongSecond.apply, (_leaf(lib, [0.5, 1.5]),))

    mine, theirs = _error(build, minitorch), _error(build, torch)
    assert isinstance(mine, RuntimeError) and isinstance(theirs, RuntimeError)
    assert "Jacobian mismatch for output 0 with respect to input 0" in str(theirs)
    assert str(mine).startswith("Jacobian mismatch for output 0 with respect to input 0")


def test_gradcheck_leaves_inputs_untouched():
    x = minitorch.tensor([0.5, 1.5], dtype=minitorch.float64, requires_grad=True)
    before = x.detach().numpy().copy()
    minitorch.autograd.gradcheck(_square_function(minitorch).apply, (x,))
    np.testing.assert_array_equal(x.detach().numpy(), before)
    assert x.grad is None


def test_gradcheck_without_differentiable_input_fails(torch):
    def build(lib):
        lib.autograd.gradcheck(lambda a: a * 2, (lib.tensor([1.0], dtype=lib.float64),))

    _same_error(torch, build, exception_type=ValueError)


# -- in-place operations and version counters ---------------------------------------------------------
def test_inplace_change_of_saved_tensor_fails_backward(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        hidden = x * 1.0
        product = hidden * hidden  # saves hidden
        hidden.mul_(2)
        product.sum().backward()

    message = _same_error(torch, build, prefix_length=95)
    assert message.startswith(
        "one of the variables needed for gradient computation has been modified by an inplace operation"
    )
    assert "is at version 1; expected version 0 instead" in message


def test_inplace_change_of_saved_output_fails_backward(torch):
    def build(lib):
        x = _leaf(lib, [0.5, 1.0])
        y = _tanh_function(lib).apply(x)  # saves its output
        y.add_(1)
        y.sum().backward()

    _same_error(torch, build, prefix_length=95)


def test_inplace_change_of_unsaved_tensor_is_fine(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        hidden = x * 3.0
        total = hidden + 1.0  # add saves nothing
        hidden.mul_(2)
        (total * 1.0).sum().backward()
        return x.grad, hidden

    _assert_close(*_both(torch, build))


def test_inplace_on_leaf_requiring_grad_fails(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        x.add_(1)

    assert _same_error(torch, build) == "a leaf Variable that requires grad is being used in an in-place operation."


def test_inplace_on_leaf_allowed_inside_no_grad(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        with lib.no_grad():
            x.add_(1)
            x.mul_(3)
        (x * x).sum().backward()
        return x, x.grad, x.is_leaf, x.requires_grad

    mine, theirs = _both(torch, build)
    _assert_close(mine[:2], theirs[:2])
    assert mine[2:] == theirs[2:] == (True, True)


def test_inplace_on_non_leaf_is_recorded(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        y = x * 2.0
        y.mul_(x)  # y = 2 x^2
        y.add_(x)  # y = 2 x^2 + x
        y.sum().backward()
        return y, x.grad

    _assert_close(*_both(torch, build))


def test_version_counter_increments_like_torch(torch):
    def build(lib):
        x = lib.tensor([1.0, 2.0, 3.0])
        versions = [x._version]
        x.add_(1)
        versions.append(x._version)
        x.mul_(2)
        versions.append(x._version)
        x.zero_()
        versions.append(x._version)
        x += 1
        versions.append(x._version)
        x.copy_(lib.tensor([4.0, 5.0, 6.0]))
        versions.append(x._version)
        view = x.view(3)
        view.mul_(2)  # a view shares its base's version counter
        versions.append((x._version, view._version))
        detached = x.detach()
        detached.add_(1)  # so does a detached alias
        versions.append((x._version, detached._version))
        return versions, x

    mine, theirs = _both(torch, build)
    assert mine[0] == theirs[0]
    _assert_close(mine[1], theirs[1])


def test_setitem_bumps_the_version_like_torch(torch):
    def build(lib):
        x = lib.tensor([1.0, 2.0, 3.0])
        versions = [x._version]
        x[0] = 5.0
        versions.append(x._version)
        x[1:] = lib.tensor([7.0, 8.0])
        versions.append(x._version)
        return versions, x

    mine, theirs = _both(torch, build)
    assert mine[0] == theirs[0]
    _assert_close(mine[1], theirs[1])


def test_setitem_on_saved_tensor_fails_backward(torch):
    def build(lib):
        x = _leaf(lib, [1.0, 2.0])
        hidden = x * 1.0
        product = hidden * hidden
        hidden[0] = 0.0
        product.sum().backward()

    _same_error(torch, build, prefix_length=95)


def test_inplace_through_a_view_of_a_graph_tensor_is_never_silent(torch):
    # The write through the view bumps the base's version, so the saved base is caught (CopySlices).
    def build(lib):
        x = _leaf(lib, [1.0, 2.0, 3.0, 4.0])
        base = x * 1.0
        product = base * base
        base.view(2, 2).mul_(2)
        product.sum().backward()

    _same_error(torch, build, prefix_length=95)


def test_gc_is_not_needed_for_simple_backward():
    # A smoke check that the semantics above do not rely on the cycle collector.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        x = minitorch.tensor([1.0, 2.0], requires_grad=True)
        (x * x).sum().backward()
        assert x.grad.tolist() == [2.0, 4.0]
    finally:
        if was_enabled:
            gc.enable()


def test_math_module_sanity():
    # _tanh_function builds tanh from exp; make sure it agrees with math.tanh.
    x = minitorch.tensor([0.3, -1.2], dtype=minitorch.float64)
    np.testing.assert_allclose(_tanh_function(minitorch).apply(x).numpy(), [math.tanh(0.3), math.tanh(-1.2)])
