"""Chapter 2's exercise checks: the chapter's own solutions pass (public and hidden cases), the blank
stubs of the learner's edition report "not implemented yet", and typical mistakes fail.

The solutions are taken from the instructor's notebook (notebooks/source/02_autograd), the stubs from
the learner's edition (notebooks/release/02_autograd), so an edit to either is tested here.
"""

from __future__ import annotations

import pytest

import minitorch
from grading import check
from tests.grading.chapter_notebooks import cells, namespace

CHAPTER = "02_autograd"
EXERCISES = ["silu_with_grad", "numerical_gradient", "hessian_vector_product"]


def _cells(edition: str, kind: str) -> list[str]:
    return cells(CHAPTER, edition, kind)


def _namespace(edition: str) -> dict:
    return namespace(CHAPTER, edition)


SOLUTIONS = _namespace("source")


@pytest.mark.parametrize("name", EXERCISES)
def test_solution_passes_public_cases(name, capsys):
    check(f"ch02.{name}", SOLUTIONS[name])
    assert "public cases pass" in capsys.readouterr().out


def test_test_cells_pass_on_the_solutions_hidden_cases_included(capsys):
    test_cells = _cells("source", "grade")
    assert len(test_cells) == len(EXERCISES)
    for source in test_cells:
        assert "### BEGIN HIDDEN TESTS" in source
        exec(source, dict(SOLUTIONS))
    out = capsys.readouterr().out
    assert out.count("hidden cases pass") == len(EXERCISES) and "FAILED" not in out


@pytest.mark.parametrize("name", EXERCISES)
def test_learner_stub_reports_not_implemented(name, capsys):
    stubs = _namespace("release")
    with pytest.raises(AssertionError):
        check(f"ch02.{name}", stubs[name])
    assert "not implemented yet" in capsys.readouterr().out


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
        ("numerical_gradient", flattened_result),
        ("hessian_vector_product", returns_the_gradient),
        ("hessian_vector_product", diagonal_only),
    ],
)
def test_typical_mistakes_fail(name, wrong, capsys):
    with pytest.raises(AssertionError):
        check(f"ch02.{name}", wrong)
    assert "FAILED" in capsys.readouterr().out
