"""Chapter 2's exercise checks reject the typical mistakes: a SiLU backward without the product rule,
with a wrong sign or without grad_output, a one-sided or doubled numerical gradient or a flattened one,
a Hessian-vector product that returns the gradient or only the diagonal.

The checks every chapter shares (the solutions pass, the blank stubs report "not implemented yet")
are in test_chapter_exercises.py.
"""

from __future__ import annotations

import pytest

import minitorch
from grading import check
from tests.grading.chapter_notebooks import solutions

SOLUTIONS = solutions("02_autograd")


def _through(function_class):
    """The chapter's ``silu_with_grad`` wrapper, around another Function."""

    def silu_with_grad(x, grad_output):
        x = x.detach().requires_grad_()
        y = function_class.apply(x)
        y.backward(grad_output)
        return y.detach(), x.grad

    return silu_with_grad


class ForgotProductRule(minitorch.autograd.Function):
    """Backward treats sigmoid(x) as the whole derivative."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * minitorch.sigmoid(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * minitorch.sigmoid(x)


class WrongSign(minitorch.autograd.Function):
    """sigmoid'(x) taken as sigmoid(x) * (sigmoid(x) - 1)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * minitorch.sigmoid(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        sigmoid = minitorch.sigmoid(x)
        return grad_output * (sigmoid + x * sigmoid * (sigmoid - 1))


class IgnoresGradOutput(minitorch.autograd.Function):
    """The local derivative alone, without the chain rule's grad_output (right only when grad_output is all ones)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * minitorch.sigmoid(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        sigmoid = minitorch.sigmoid(x)
        return sigmoid + x * sigmoid * (1 - sigmoid)


def forward_difference(x, eps):
    flat = x.detach().reshape(-1)
    gradient = minitorch.zeros_like(flat)
    base = SOLUTIONS["wiggly"](x)
    for j in range(flat.numel()):
        plus = flat.clone()
        plus[j] += eps
        gradient[j] = (SOLUTIONS["wiggly"](plus.reshape(x.shape)) - base) / eps
    return gradient.reshape(x.shape)


def nudges_in_place_without_restoring(x, eps):
    """Nudges x itself: up, then down twice as far, never back (the error cancels only for a separable f)."""
    flat = x.detach().view(-1)
    gradient = minitorch.zeros_like(flat)
    for j in range(flat.numel()):
        flat[j] += eps
        plus = SOLUTIONS["wiggly"](x)
        flat[j] -= 2 * eps
        gradient[j] = (plus - SOLUTIONS["wiggly"](x)) / (2 * eps)
    return gradient.reshape(x.shape)


def nudges_a_private_copy_without_restoring(x, eps):
    """The same forgotten restore on a private copy: x is unchanged, but later entries see earlier nudges."""
    return nudges_in_place_without_restoring(x.clone(), eps)


def forgot_the_two(x, eps):
    return SOLUTIONS["numerical_gradient"](x, eps) * 2


def flattened_result(x, eps):
    return SOLUTIONS["numerical_gradient"](x, eps).reshape(-1)


def returns_the_gradient(x, v):
    x = x.detach().requires_grad_()
    (gradient,) = minitorch.autograd.grad(minitorch.logsumexp(x.reshape(-1), dim=0), x)
    return gradient


def diagonal_only(x, v):
    return x.reshape(-1).softmax(dim=0).reshape(x.shape) * v


@pytest.mark.parametrize(
    "name, wrong",
    [
        ("silu_with_grad", _through(ForgotProductRule)),
        ("silu_with_grad", _through(WrongSign)),
        ("silu_with_grad", _through(IgnoresGradOutput)),
        ("numerical_gradient", forward_difference),
        ("numerical_gradient", forgot_the_two),
        ("numerical_gradient", nudges_in_place_without_restoring),
        ("numerical_gradient", nudges_a_private_copy_without_restoring),
        ("numerical_gradient", flattened_result),
        ("hessian_vector_product", returns_the_gradient),
        ("hessian_vector_product", diagonal_only),
    ],
)
def test_typical_mistakes_fail(name, wrong, capsys):
    with pytest.raises(AssertionError):
        check(f"ch02.{name}", wrong)
    assert "FAILED" in capsys.readouterr().out


def test_an_in_place_nudge_is_named(capsys):
    with pytest.raises(AssertionError):
        check("ch02.numerical_gradient", nudges_in_place_without_restoring)
    assert "changed its input x in place" in capsys.readouterr().out
