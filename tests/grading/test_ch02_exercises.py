"""Chapter 2's exercise checks reject the typical mistakes: a SiLU backward without the product rule,
with a wrong sign or without grad_output, a one-sided or doubled numerical gradient or a flattened one,
a Hessian-vector product that returns the gradient or only the diagonal; in the build-its, a Value or an
engine loop without a topological order or that overwrites gradients, a broadcast gradient not reduced;
in Function.apply/ctx/AccumulateGrad and the engine (exercises 7 and 8), an AccumulateGrad that replaces
.grad, a Pow that saves its output, needs_input_grad ignored, a new AccumulateGrad per use, a depth-first
order, gradients overwritten instead of summed, a ready queue that is not PyTorch's (checked against
PyTorch's own graph and engine, watched with register_prehook, on the public and the hidden graphs).

The checks every chapter shares (the solutions pass, the blank stubs report "not implemented yet")
are in test_chapter_exercises.py.
"""

from __future__ import annotations

import collections
import csv
import math
import textwrap
from pathlib import Path

import numpy as np
import pytest

import minitorch
from grading import check
from grading.registry import get
from tests.grading.chapter_notebooks import NOTEBOOK_IMPORTS, graded_cells, solutions
from tests.support import require_torch

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


# -- build it: the Value class, the engine's loop, broadcasting's backward -----------------------------
# Each wrong solution is one a learner would plausibly write; the check must fail it on the public case
# whose label names the problem. Each exercise also accepts a correct solution written another way.
Value = SOLUTIONS["Value"]
run_program = SOLUTIONS["run_program"]


def _value_program_with(value_class):
    def value_program(program, inputs):
        leaves = [value_class(number) for number in inputs.tolist()]
        result = run_program(program, leaves)
        result.backward()
        return np.array(result.data), np.array([leaf.grad for leaf in leaves])

    return value_program


def _make(value_class, data, children, local_grads):
    return value_class(data, children, local_grads)


class AssignsInsteadOfAdding(Value):
    def backward(self):
        order, visited = [], set()

        def visit(value):
            if id(value) not in visited:
                visited.add(id(value))
                for child in value.children:
                    visit(child)
                order.append(value)

        visit(self)
        self.grad = 1.0
        for value in reversed(order):
            for child, local_grad in zip(value.children, value.local_grads):
                child.grad = local_grad * value.grad


class PushesWithoutTopologicalOrder(Value):
    """Each value passes its gradient on at once and recurses: a value reached twice passes it on twice."""

    def backward(self):
        self.grad = 1.0

        def push(value):
            for child, local_grad in zip(value.children, value.local_grads):
                child.grad += local_grad * value.grad
                push(child)

        push(self)


class TanhWithoutTheSquare(Value):
    def tanh(self):
        result = math.tanh(self.data)
        return type(self)(result, (self,), (1.0 - result,))


class PowerRuleOffByOne(Value):
    def __pow__(self, exponent):
        return type(self)(self.data**exponent, (self,), (exponent * self.data**exponent,))


class CountsUsersFirst(Value):
    """Correct, written differently: Kahn's algorithm (a value runs once all the values using it have run)."""

    def backward(self):
        users, stack, seen = {}, [self], {id(self)}
        while stack:
            value = stack.pop()
            for child in value.children:
                users[id(child)] = users.get(id(child), 0) + 1
                if id(child) not in seen:
                    seen.add(id(child))
                    stack.append(child)
        self.grad, ready = 1.0, [self]
        while ready:
            value = ready.pop()
            for child, local_grad in zip(value.children, value.local_grads):
                child.grad += local_grad * value.grad
                users[id(child)] -= 1
                if users[id(child)] == 0:
                    ready.append(child)


def _with_own_ops(value_class):
    """The variant's arithmetic must build variant Values, so the subclass's methods are the ones used."""

    class Variant(value_class):
        def __add__(self, other):
            other = other if isinstance(other, Value) else Variant(other)
            return Variant(self.data + other.data, (self, other), (1.0, 1.0))

        def __mul__(self, other):
            other = other if isinstance(other, Value) else Variant(other)
            return Variant(self.data * other.data, (self, other), (other.data, self.data))

        def __pow__(self, exponent):
            if value_class.__pow__ is not Value.__pow__:
                return Variant(*_parts(value_class.__pow__(self, exponent)))
            return Variant(self.data**exponent, (self,), (exponent * self.data ** (exponent - 1),))

        def tanh(self):
            return Variant(*_parts(value_class.tanh(self) if value_class.tanh is not Value.tanh else Value.tanh(self)))

        def exp(self):
            return Variant(*_parts(Value.exp(self)))

    return Variant


def _parts(value):
    return value.data, value.children, value.local_grads


VALUE_MISTAKES = {
    "assigns .grad instead of adding": (AssignsInsteadOfAdding, "a used twice"),
    "no topological order": (PushesWithoutTopologicalOrder, "feeds two paths that meet again"),
    "tanh's derivative without the square": (TanhWithoutTheSquare, "the derivatives of tanh and exp"),
    "power rule off by one": (PowerRuleOffByOne, "the power rule"),
}


@pytest.mark.parametrize("mistake", sorted(VALUE_MISTAKES))
def test_value_mistakes_fail_on_the_case_that_names_them(mistake, capsys):
    value_class, label = VALUE_MISTAKES[mistake]
    with pytest.raises(AssertionError):
        check("ch02.value_program", _value_program_with(_with_own_ops(value_class)))
    first_failure = [line for line in capsys.readouterr().out.splitlines() if "FAILED" in line][0]
    assert label in first_failure


def test_value_written_differently_passes(capsys):
    check("ch02.value_program", _value_program_with(_with_own_ops(CountsUsersFirst)))
    assert "all 7 public cases pass" in capsys.readouterr().out


def test_the_value_reference_is_minitorchs_autograd_and_torchs():
    torch = require_torch()
    from grading.registry import get

    program = np.array([[1, 0, 1], [3, 2, 0], [1, 3, 3], [0, 4, 0], [4, 5, 0]])
    inputs = np.array([0.4, -1.2])
    result, gradients = get("ch02.value_program").reference(program, inputs)
    leaves = [torch.tensor(value, dtype=torch.float64, requires_grad=True) for value in inputs]
    run_program(program, leaves).backward()
    np.testing.assert_allclose(gradients, [leaf.grad.item() for leaf in leaves], rtol=1e-12)
    learner = SOLUTIONS["value_program"](program, inputs)
    np.testing.assert_allclose(learner[1], gradients, rtol=1e-12)


graph = minitorch.autograd.graph


def _backward_program_with(order_function, loop):
    def backward_program(program, a, b):
        leaves = [minitorch.tensor(a, requires_grad=True), minitorch.tensor(b, requires_grad=True)]
        loss = run_program(program, leaves).sum()
        order_ok = SOLUTIONS["is_topological"](order_function(loss.grad_fn), loss.grad_fn)
        loop(loss, order_function)
        loop(loss, order_function)
        gradients = [minitorch.zeros_like(leaf) if leaf.grad is None else leaf.grad for leaf in leaves]
        return np.array(order_ok), gradients[0], gradients[1]

    return backward_program


def preorder(root):
    order, seen = [], set()

    def visit(node):
        if node is None or node in seen:
            return
        seen.add(node)
        order.append(node)  # before the nodes below it, but not after every node above it
        for next_node, _ in node.next_functions:
            visit(next_node)

    visit(root)
    return order


def kahn_order(root):
    """Correct, written differently: count the edges into each node, release a node when its count is 0."""
    incoming = {}
    for node in graph.nodes(root):
        for next_node, _ in node.next_functions:
            if next_node is not None:
                incoming[next_node] = incoming.get(next_node, 0) + 1
    order, ready = [], [root]
    while ready:
        node = ready.pop()
        order.append(node)
        for next_node, _ in node.next_functions:
            if next_node is not None:
                incoming[next_node] -= 1
                if incoming[next_node] == 0:
                    ready.append(next_node)
    return order


def loop(loss, order_function, *, overwrite=False, assign_leaf=False):
    received = {loss.grad_fn: minitorch.ones_like(loss)}
    for node in order_function(loss.grad_fn):
        gradient = received.pop(node, None)
        if gradient is None:
            continue
        leaf = graph.leaf_tensor(node)
        if leaf is not None:
            leaf.grad = gradient if (leaf.grad is None or assign_leaf) else leaf.grad + gradient
            continue
        for (next_node, _), next_gradient in zip(node.next_functions, graph.call_node(node, gradient)):
            if next_node is not None and next_gradient is not None:
                keep = next_node in received and not overwrite
                received[next_node] = received[next_node] + next_gradient if keep else next_gradient


BACKWARD_MISTAKES = {
    "preorder instead of a topological order": (
        _backward_program_with(preorder, loop), "output 1 (order is topological): wrong values"),
    "overwrites a node's gradient instead of summing": (
        _backward_program_with(SOLUTIONS["topological_order"], lambda loss, order: loop(loss, order, overwrite=True)),
        "a leaf used twice"),
    "assigns .grad instead of adding": (
        _backward_program_with(SOLUTIONS["topological_order"], lambda loss, order: loop(loss, order, assign_leaf=True)),
        "the second pass adds to .grad"),
}  # fmt: skip


@pytest.mark.parametrize("mistake", sorted(BACKWARD_MISTAKES))
def test_backward_loop_mistakes_fail_on_the_case_that_names_them(mistake, capsys):
    function, label = BACKWARD_MISTAKES[mistake]
    with pytest.raises(AssertionError):
        check("ch02.backward_program", function)
    first_failure = [line for line in capsys.readouterr().out.splitlines() if "FAILED" in line][0]
    assert label in first_failure


def test_preorder_is_reported_as_not_topological(capsys):
    with pytest.raises(AssertionError):
        check("ch02.backward_program", BACKWARD_MISTAKES["preorder instead of a topological order"][0])
    assert "order is topological" in capsys.readouterr().out


def test_backward_loop_written_differently_passes(capsys):
    check("ch02.backward_program", _backward_program_with(kahn_order, loop))
    assert "all 4 public cases pass" in capsys.readouterr().out


def test_the_learners_order_and_the_engines_steps_are_both_topological():
    a = minitorch.tensor([0.3, -0.2], requires_grad=True)
    b = minitorch.tensor([1.5, 0.5], requires_grad=True)
    loss = run_program(np.array([[1, 0, 1], [3, 2, 0], [1, 3, 3], [0, 2, 4]]), [a, b]).sum()
    engine = [step.node for step in graph.step_backward(loss, retain_graph=True)]
    learner = SOLUTIONS["topological_order"](loss.grad_fn)
    assert SOLUTIONS["is_topological"](engine, loss.grad_fn)
    assert SOLUTIONS["is_topological"](learner, loss.grad_fn)
    assert sorted(map(id, engine)) == sorted(map(id, learner))


def _broadcast_with(reduce, swap=False):
    def broadcast_mul_backward(a, b, grad_output):
        first, second = (a, b) if not swap else (b, a)
        return a * b, reduce(grad_output * second, a.shape), reduce(grad_output * first, b.shape)

    return broadcast_mul_backward


def _leading_only(grad, shape):
    leading = grad.dim() - len(shape)
    return grad.sum(dim=tuple(range(leading))) if leading else grad


def _mean_instead_of_sum(grad, shape):
    leading = grad.dim() - len(shape)
    if leading:
        grad = grad.mean(dim=tuple(range(leading)))
    stretched = tuple(d for d, size in enumerate(shape) if size == 1 and grad.shape[d] != 1)
    return grad.mean(dim=stretched, keepdim=True) if stretched else grad


def _one_dimension_at_a_time(grad, shape):
    """Correct, written differently: a loop over dimensions instead of one sum per kind."""
    while grad.dim() > len(shape):
        grad = grad.sum(0)
    for dim, size in enumerate(shape):
        if size == 1:
            grad = grad.sum(dim, keepdim=True)
    return grad


BROADCAST_MISTAKES = {
    "no reduction": (_broadcast_with(lambda grad, shape: grad), "output 3 (grad_b): wrong shape"),
    "sums only the leading dimensions": (_broadcast_with(_leading_only), "its dimension of size 1"),
    "factors swapped": (_broadcast_with(SOLUTIONS["sum_to_shape"], swap=True), "wrong values"),
    "mean instead of sum": (_broadcast_with(_mean_instead_of_sum), "wrong values"),
}


@pytest.mark.parametrize("mistake", sorted(BROADCAST_MISTAKES))
def test_broadcast_mistakes_fail_with_feedback_naming_them(mistake, capsys):
    function, words = BROADCAST_MISTAKES[mistake]
    with pytest.raises(AssertionError):
        check("ch02.broadcast_mul_backward", function)
    assert words in capsys.readouterr().out


def test_broadcast_written_differently_passes_and_gradchecks(capsys):
    check("ch02.broadcast_mul_backward", _broadcast_with(_one_dimension_at_a_time))
    assert "all 4 public cases pass" in capsys.readouterr().out
    a = minitorch.randn(2, 1, 3, dtype=minitorch.float64, requires_grad=True)
    b = minitorch.randn(4, 1, dtype=minitorch.float64, requires_grad=True)
    assert minitorch.autograd.gradcheck(SOLUTIONS["BroadcastMul"].apply, (a, b))


# -- build it: Function.apply with ctx, AccumulateGrad, and the engine's ready queue ------------------
# Variants are the chapter's own cells (exercise 4's run_program, exercises 7 and 8) run in a fresh namespace,
# with one mistake written into the source or one engine put in place of the learner's backward. The engines
# below reach the graph only as the learner's does: next_functions, sequence_nr and calling a node.
def _chapter_engine(replace=None, engine=None):
    cells = graded_cells("02_autograd", "source", "solution")
    source = "\n\n".join(cells[grade_id] for grade_id in ("value_class", "function_apply", "engine"))
    for old, new in (replace or {}).items():
        assert source.count(old) == 1, old
        source = source.replace(old, new)
    names = dict(NOTEBOOK_IMPORTS)
    exec(compile(source, "<chapter 2, exercises 7 and 8, a variant>", "exec"), names)
    if engine is not None:
        names["backward"] = engine
    return names


def _first_failure(capsys) -> str:
    return [line for line in capsys.readouterr().out.splitlines() if "FAILED" in line][0]


RECORD_MISTAKES = {
    "AccumulateGrad replaces .grad instead of adding": (
        {"leaf.grad = Tensor(gradient) if leaf.grad is None else Tensor(leaf.grad.data + gradient)":
         "leaf.grad = Tensor(gradient)"},
        ".grad after AccumulateGrad(1.5) then AccumulateGrad(0.25)"),
    "Pow saves its output instead of its input": (
        {"ctx.save_for_backward(x)\n        return x**exponent":
         "y = x**exponent\n        ctx.save_for_backward(y)\n        return y"},
        "save the input, not the output"),
    "Mul ignores needs_input_grad": (
        {"return (grad_output * b if needs_a else None), (grad_output * a if needs_b else None)":
         "return grad_output * b, grad_output * a"},
        "ctx.needs_input_grad"),
    "apply records every input, ignoring needs_input_grad": (
        {"if any(ctx.needs_input_grad):": "if True:",
         "    if not tensor.requires_grad:\n        return None\n": ""},
        "next_functions of each step's node"),
    "a new AccumulateGrad for every use of a leaf": (
        {"if tensor.grad_accumulator is None:\n        tensor.grad_accumulator = AccumulateGrad(tensor)\n"
         "    return tensor.grad_accumulator": "return AccumulateGrad(tensor)"},
        "AccumulateGrad nodes per leaf"),
    "no sequence numbers": (
        {"ctx.sequence_nr = next(sequence_numbers)": "pass"}, "sequence numbers rise in creation order"),
}  # fmt: skip


@pytest.mark.parametrize("mistake", sorted(RECORD_MISTAKES))
def test_record_mistakes_fail_with_feedback_naming_them(mistake, capsys):
    replace, words = RECORD_MISTAKES[mistake]
    with pytest.raises(AssertionError):
        check("ch02.record_program", _chapter_engine(replace)["record_program"])
    assert words in _first_failure(capsys)


APPLY_WRITTEN_DIFFERENTLY = """
    @classmethod
    def apply(cls, *arguments):
        needs, arrays, edges = [], [], []
        for argument in arguments:
            if not isinstance(argument, Tensor):
                needs.append(False)
                arrays.append(argument)
                continue
            needs.append(bool(argument.requires_grad))
            arrays.append(argument.data)
            if not argument.requires_grad:
                edges.append((None, 0))
            elif argument.grad_fn is not None:
                edges.append((argument.grad_fn, 0))
            else:
                argument.grad_accumulator = argument.grad_accumulator or AccumulateGrad(argument)
                edges.append((argument.grad_accumulator, 0))
        ctx = Context(cls, arguments)
        ctx.needs_input_grad = tuple(needs)
        output = Tensor(cls.forward(ctx, *arrays))
        if True in needs:
            ctx.next_functions, ctx.sequence_nr = tuple(edges), next(sequence_numbers)
            output.grad_fn, output.requires_grad = ctx, True
        return output
"""


def test_record_written_differently_passes(capsys):
    cells = graded_cells("02_autograd", "source", "solution")["function_apply"]
    start = cells.index("    @classmethod\n    def apply(cls, *arguments):")
    end = cells.index("### END SOLUTION", start) + len("### END SOLUTION")
    accumulate = (
        "leaf.grad = Tensor(gradient) if leaf.grad is None else Tensor(leaf.grad.data + gradient)\n        return ()"
    )
    names = _chapter_engine({
        cells[start:end]: APPLY_WRITTEN_DIFFERENTLY.strip("\n"),
        accumulate: "previous = np.zeros(()) if leaf.grad is None else leaf.grad.data\n"
                    "        leaf.grad = Tensor(previous + gradient)\n        return ()",
        "self.saved_arrays = arrays": "self.__dict__['kept'] = list(arrays)",
        "return self.saved_arrays": "return tuple(self.kept)",
    })  # fmt: skip
    check("ch02.record_program", names["record_program"])
    assert "all 6 public cases pass" in capsys.readouterr().out


def depth_first_push(tensor):
    """Runs a node as soon as one gradient reaches it, and again for the next: never waits for all of them."""

    def push(node, gradient):
        for (next_node, _), sent in zip(node.next_functions, node(gradient)):
            if next_node is not None and sent is not None:
                push(next_node, sent)

    push(tensor.grad_fn, np.ones_like(tensor.data))


def depth_first_topological(tensor):
    """Correct gradients, in a reverse post-order of a depth-first walk: a valid order, not PyTorch's."""
    order, seen = [], set()

    def visit(node):
        if node is None or node in seen:
            return
        seen.add(node)
        for next_node, _ in node.next_functions:
            visit(next_node)
        order.append(node)

    visit(tensor.grad_fn)
    buffers = {tensor.grad_fn: np.ones_like(tensor.data)}
    for node in reversed(order):
        for (next_node, _), sent in zip(node.next_functions, node(buffers.pop(node))):
            if next_node is not None and sent is not None:
                buffers[next_node] = buffers[next_node] + sent if next_node in buffers else sent


def _counted(tensor):
    waiting, stack, seen = {}, [tensor.grad_fn], {tensor.grad_fn}
    while stack:
        for next_node, _ in stack.pop().next_functions:
            if next_node is not None:
                waiting[next_node] = waiting.get(next_node, 0) + 1
                if next_node not in seen:
                    seen.add(next_node)
                    stack.append(next_node)
    return waiting


def _queue_engine(take, *, overwrite=False):
    """An engine with dependency counts whose ready queue hands out take(ready) (and removes it)."""

    def engine(tensor):
        waiting, ready = _counted(tensor), [tensor.grad_fn]
        buffers = {tensor.grad_fn: np.ones_like(tensor.data)}
        while ready:
            node = take(ready)
            ready.remove(node)
            for (next_node, _), sent in zip(node.next_functions, node(buffers.pop(node))):
                if next_node is None:
                    continue
                if sent is not None:
                    keep = next_node in buffers and not overwrite
                    buffers[next_node] = buffers[next_node] + sent if keep else sent
                waiting[next_node] -= 1
                if waiting[next_node] == 0:
                    ready.append(next_node)

    return engine


def newest_first(ready):
    return max(ready, key=lambda node: node.sequence_nr)


ENGINE_MISTAKES = {
    "depth-first: a node runs before all its gradients arrived": (
        {"engine": depth_first_push}, "its AccumulateGrad runs once, as soon as both have arrived"),
    "a depth-first topological order instead of the ready queue": (
        {"engine": depth_first_topological}, "a depth-first order does not follow"),
    "gradients from two uses overwritten instead of summed": (
        {"engine": _queue_engine(newest_first, overwrite=True)}, "output 2 (the inputs' .grad (nan where None))"),
    "a first-in first-out queue": ({"engine": _queue_engine(lambda ready: ready[0])}, "highest sequence_nr"),
    "the oldest ready node first": (
        {"engine": _queue_engine(lambda ready: min(ready, key=lambda node: node.sequence_nr))}, "highest sequence_nr"),
    "apply ignores needs_input_grad": (
        {"replace": RECORD_MISTAKES["apply records every input, ignoring needs_input_grad"][0]},
        "b gets no .grad"),
}  # fmt: skip


@pytest.mark.parametrize("mistake", sorted(ENGINE_MISTAKES))
def test_engine_mistakes_fail_with_feedback_naming_them(mistake, capsys):
    variant, words = ENGINE_MISTAKES[mistake]
    with pytest.raises(AssertionError):
        check("ch02.engine_program", _chapter_engine(**variant)["engine_program"])
    assert words in _first_failure(capsys)


def test_engine_written_differently_passes(capsys):
    """Counts by recursion, the ready nodes in a plain list, the newest taken with max: PyTorch's rule still."""

    def engine(tensor):
        waiting, visited = collections.Counter(), set()

        def count(node):
            visited.add(node)
            for next_node, _ in node.next_functions:
                if next_node is not None:
                    waiting[next_node] += 1
                    if next_node not in visited:
                        count(next_node)

        count(tensor.grad_fn)
        buffers = collections.defaultdict(lambda: 0.0, {tensor.grad_fn: np.ones_like(tensor.data)})
        ready = [tensor.grad_fn]
        while ready:
            node = max(ready, key=lambda candidate: candidate.sequence_nr)
            ready.remove(node)
            for (next_node, _), sent in zip(node.next_functions, node(buffers.pop(node))):
                if next_node is not None:
                    buffers[next_node] = buffers[next_node] + (0.0 if sent is None else sent)
                    waiting[next_node] -= 1
                    if not waiting[next_node]:
                        ready.append(next_node)

    check("ch02.engine_program", _chapter_engine(engine=engine)["engine_program"])
    assert "all 5 public cases pass" in capsys.readouterr().out


def _all_cases(exercise_name: str, grade_id: str) -> list[tuple]:
    """The public cases and the notebook's hidden ones."""
    from grading.checks import collecting

    names = dict(_chapter_engine())
    with collecting() as collected:
        exec(graded_cells("02_autograd", "source", "grade")[grade_id], names)
    hidden = [case for name, cases in collected.hidden if name == exercise_name for case in cases]
    assert hidden, grade_id
    return [*get(exercise_name).public, *hidden]


def _torch_program(torch, program, inputs, requires_grad):
    leaves = [
        torch.tensor(value, dtype=torch.float64, requires_grad=bool(flag))
        for value, flag in zip(inputs.tolist(), requires_grad.tolist())
    ]
    return leaves, SOLUTIONS["program_values"](program, leaves)


def _torch_labels(values, leaf_count):
    labels = {value.grad_fn: index for index, value in enumerate(values) if value.grad_fn is not None}
    for node in list(labels):
        for next_node, _ in node.next_functions:
            if next_node is not None and type(next_node).__name__ == "AccumulateGrad":
                labels[next_node] = [value is next_node.variable for value in values[:leaf_count]].index(True)
    return labels


@pytest.mark.parametrize("case_number", range(9))
def test_the_engine_reference_and_the_solution_call_nodes_in_pytorchs_order(case_number):
    """PyTorch's own engine, watched with grad_fn.register_prehook, on the public and the hidden graphs."""
    torch = require_torch()
    from grading.exercises.ch02 import canonical_order

    cases = _all_cases("ch02.engine_program", "test_engine_program")
    assert len(cases) == 9
    program, inputs, requires_grad = cases[case_number]
    leaves, values = _torch_program(torch, program, inputs, requires_grad)
    calls = []
    for node, label in _torch_labels(values, len(leaves)).items():
        node.register_prehook(lambda grad_outputs, label=label: calls.append(label))
    values[-1].backward()
    torch_order = canonical_order(calls, len(leaves))
    torch_gradients = [np.nan if leaf.grad is None else leaf.grad.item() for leaf in leaves]

    case = cases[case_number]
    for answer in (get("ch02.engine_program").reference(*case), SOLUTIONS["engine_program"](*case)):
        result, gradients, order = answer
        np.testing.assert_allclose(result, values[-1].item(), rtol=1e-12)
        np.testing.assert_allclose(gradients, torch_gradients, rtol=1e-12)
        np.testing.assert_array_equal(order, torch_order)


@pytest.mark.parametrize("case_number", range(9))
def test_minitorchs_engine_watched_by_prehooks_agrees_with_its_steps(case_number):
    """The reference reads the order from graph.step_backward; minitorch's nodes watched as PyTorch's are agree."""
    from grading.exercises.ch02 import _minitorch_leaves, _node_labels, _program_values, canonical_order

    case = _all_cases("ch02.engine_program", "test_engine_program")[case_number]
    leaves = _minitorch_leaves(*case[1:])
    values = _program_values(case[0], leaves)
    calls = []
    for node, label in _node_labels(values, leaves).items():
        node.register_prehook(lambda grad_outputs, label=label: calls.append(label))
    values[-1].backward()
    np.testing.assert_array_equal(canonical_order(calls, len(leaves)), get("ch02.engine_program").reference(*case)[2])


def test_a_depth_first_order_differs_from_pytorchs_on_some_hidden_graph():
    """The order is what the check can tell apart: on these graphs PyTorch's is not a depth-first one."""
    differs = []
    for case in _all_cases("ch02.engine_program", "test_engine_program"):
        expected = get("ch02.engine_program").reference(*case)[2]
        depth_first = _chapter_engine(engine=depth_first_topological)["engine_program"](*case)[2]
        differs.append(not np.array_equal(expected, depth_first))
    assert sum(differs[:5]) >= 1 and sum(differs[5:]) >= 2, differs


@pytest.mark.parametrize("case_number", range(10))
def test_the_recorded_graph_is_pytorchs(case_number):
    """next_functions, what each node returns for 1, AccumulateGrad per leaf and sequence numbers, from torch."""
    torch = require_torch()
    cases = _all_cases("ch02.record_program", "test_record_program")
    assert len(cases) == 10
    program, inputs, requires_grad = cases[case_number]
    leaves, values = _torch_program(torch, program, inputs, requires_grad)
    labels = _torch_labels(values, len(leaves))
    edges = np.full((len(program), 2), -2)
    local = np.full((len(program), 2), np.nan)
    for row, value in enumerate(values[len(leaves) :]):
        if value.grad_fn is None:
            edges[row] = -3
            continue
        sent = value.grad_fn(torch.ones((), dtype=torch.float64))
        sent = sent if isinstance(sent, tuple) else (sent,)
        for column, ((next_node, _), gradient) in enumerate(zip(value.grad_fn.next_functions, sent)):
            edges[row, column] = -1 if next_node is None else labels[next_node]
            local[row, column] = np.nan if gradient is None else gradient.item()
    counts = [sum(type(node).__name__ == "AccumulateGrad" and label == k for node, label in labels.items())
              for k in range(len(leaves))]  # fmt: skip
    numbers = [value.grad_fn._sequence_nr() for value in values if value.grad_fn is not None]

    case = cases[case_number]
    for answer in (get("ch02.record_program").reference(*case), SOLUTIONS["record_program"](*case)):
        np.testing.assert_allclose(answer[0], values[-1].item(), rtol=1e-12)
        np.testing.assert_array_equal(answer[1], edges)
        np.testing.assert_allclose(answer[2], local, rtol=1e-12)
        np.testing.assert_array_equal(answer[3], counts)
        assert bool(answer[5]) == all(a < b for a, b in zip(numbers, numbers[1:]))


def test_pytorch_gives_accumulate_grad_the_highest_sequence_number_and_stores_then_adds():
    torch = require_torch()
    leaf = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    node = (leaf * 2).grad_fn
    accumulator = node.next_functions[0][0]
    assert accumulator._sequence_nr() == 2**64 - 1 == SOLUTIONS["AccumulateGrad"].sequence_nr
    accumulator(torch.tensor(1.5, dtype=torch.float64))
    accumulator(torch.tensor(0.25, dtype=torch.float64))
    assert leaf.grad.item() == 1.75 == get("ch02.record_program").reference(
        np.array([[1, 0, 0]]), np.array([0.5]), np.array([True]))[4][0, 1]  # fmt: skip


@pytest.mark.parametrize(
    "name, cheat",
    [
        (
            "ch02.engine_program",
            """
            from grading.exercises.ch02 import _minitorch_leaves, _program_values

            def cheat(program, inputs, requires_grad):
                leaves = _minitorch_leaves(inputs, requires_grad)
                values = _program_values(program, leaves)
                values[-1].backward()
                return values[-1].detach(), leaves[0].grad, leaves[1].grad
            """,
        ),
        (
            "ch02.record_program",
            """
            def cheat(program, inputs, requires_grad):
                x = minitorch.tensor(inputs, requires_grad=True)
                minitorch.autograd.grad(x.sum(), x)
            """,
        ),
        # the given wrapper runs the engine, so the engine stays; autograd's derivative of x * sigmoid(x) may not
        (
            "ch02.silu_with_grad",
            """
            def cheat(x, grad_output):
                x = x.detach().requires_grad_()
                y = x * minitorch.sigmoid(x)
                y.backward(grad_output)
                return y.detach(), x.grad
            """,
        ),
        (  # the same inside a Function's backward, behind the chapter's own wrapper
            "ch02.silu_with_grad",
            """
            class SiLU(minitorch.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    ctx.save_for_backward(x)
                    return x * minitorch.sigmoid(x)

                @staticmethod
                def backward(ctx, grad_output):
                    (x,) = ctx.saved_tensors
                    with minitorch.enable_grad():
                        x = x.detach().requires_grad_()
                        return minitorch.autograd.grad(x * minitorch.sigmoid(x), x, grad_output)[0]

            def cheat(x, grad_output):
                x = x.detach().requires_grad_()
                y = SiLU.apply(x)
                y.backward(grad_output)
                return y.detach(), x.grad
            """,
        ),
    ],
)
def test_calling_minitorchs_engine_earns_nothing(name, cheat):
    from tests.grading.withheld_support import run_with_withheld

    printed = run_with_withheld(name, "02_autograd", textwrap.dedent(cheat))
    assert "withheld:" in printed and "is not available while this exercise is graded" in printed


ENGINE_SHORTCUTS = {
    "ch02.record_program": """
        def record_program(program, inputs, requires_grad):
            leaves = [minitorch.tensor(v, dtype=minitorch.float64, requires_grad=bool(f))
                      for v, f in zip(inputs.tolist(), requires_grad.tolist())]
            values = run_program(program, leaves)  # minitorch's Function.apply records the graph
            return np.array(values.item()), np.zeros((len(program), 2), dtype=np.int64)
    """,
    "ch02.engine_program": """
        def engine_program(program, inputs, requires_grad):
            leaves = [minitorch.tensor(v, dtype=minitorch.float64, requires_grad=bool(f))
                      for v, f in zip(inputs.tolist(), requires_grad.tolist())]
            result = run_program(program, leaves)
            result.backward()  # minitorch's engine instead of one's own
            gradients = np.array([np.nan if t.grad is None else t.grad.item() for t in leaves])
            return np.array(result.item()), gradients, np.arange(len(program) + len(leaves))[::-1]
    """,
}  # fmt: skip


def test_the_batch_grader_scores_minitorchs_recording_and_engine_zero(tmp_path):
    """minitorch-grade: the reference scores full marks; answers that run minitorch's own Function.apply or
    backward lose exactly these two exercises, reported as not implemented."""
    import shutil

    import nbformat

    from grading.cli import main
    from grading.notebook import read_assignment
    from tests.grading.conftest import require_bwrap

    require_bwrap()
    source = Path(__file__).resolve().parents[2] / "notebooks" / "source" / "02_autograd" / "02_autograd.ipynb"
    folder = tmp_path / "submitted"
    folder.mkdir()
    shutil.copy(source, folder / "reference.ipynb")
    shortcut = nbformat.read(source, as_version=4)
    code = "\n\n".join(textwrap.dedent(body).strip() for body in ENGINE_SHORTCUTS.values())
    shortcut.cells.append(nbformat.v4.new_code_cell(code))
    nbformat.write(shortcut, folder / "shortcut.ipynb")
    out = tmp_path / "out"
    assert main([str(folder), "--source", str(source), "--out", str(out), "--jobs", "2", "--quiet"]) == 0
    with open(out / "grades.csv", newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    assignment = read_assignment(source)
    assert float(rows["reference"]["total"]) == assignment.max_points, (out / "feedback" / "reference.md").read_text()
    feedback = (out / "feedback" / "shortcut.md").read_text()
    lost = sum(part.points for part in assignment.parts if part.exercise in ENGINE_SHORTCUTS)
    assert lost == 2 and float(rows["shortcut"]["total"]) == assignment.max_points - lost, feedback
    for exercise in ENGINE_SHORTCUTS:
        line = next(line for line in feedback.splitlines() if line.startswith(f"- {exercise}:"))
        # the feedback names the withheld piece the shortcut called (grading/withhold.py)
        assert "withheld while it is graded" in line, line
