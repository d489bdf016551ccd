"""Chapter 4's exercise checks reject the usual mistakes (a forgotten bias, a transposed weight, a wrong
sign), and the sgd_step reference is what optim.SGD does.

The checks every chapter shares (the solutions pass, the blank stubs report "not implemented yet")
are in test_chapter_exercises.py.
"""

from __future__ import annotations

import math

import pytest

import minitorch
from grading import check, randn
from tests.support import require_torch


def _sgd_step_with(update_sign: float, reduce):
    """A training step that gets one thing wrong: the sign of the update, or the loss's reduction."""

    def sgd_step(x, target, weight, bias, lr):
        weight, bias = weight.requires_grad_(), bias.requires_grad_()
        loss = reduce((x @ weight.T + bias - target) ** 2)
        loss.backward()
        with minitorch.no_grad():
            return weight + update_sign * lr * weight.grad, bias + update_sign * lr * bias.grad, loss.detach()

    return sgd_step


def _sgd_step_recorded(x, target, weight, bias, lr):
    weight, bias = weight.requires_grad_(), bias.requires_grad_()
    loss = ((x @ weight.T + bias - target) ** 2).mean()
    loss.backward()
    return weight - lr * weight.grad, bias - lr * bias.grad, loss.detach()


def _sgd_step_in_place(x, target, weight, bias, lr):
    weight, bias = weight.requires_grad_(), bias.requires_grad_()
    loss = ((x @ weight.T + bias - target) ** 2).mean()
    loss.backward()
    with minitorch.no_grad():
        weight -= lr * weight.grad
        bias -= lr * bias.grad
    return weight.detach(), bias.detach(), loss.detach()


def _sgd_step_detached(x, target, weight, bias, lr):
    """Correct, written differently: a functional gradient and detach() instead of no_grad."""
    leaves = [weight.detach().requires_grad_(), bias.detach().requires_grad_()]
    loss = minitorch.nn.functional.mse_loss(minitorch.nn.functional.linear(x, *leaves), target)
    grads = minitorch.autograd.grad(loss, leaves)
    return tuple((leaf - lr * grad).detach() for leaf, grad in zip(leaves, grads)) + (loss.detach(),)


WRONG = {
    "linear: forgot the bias": ("ch04.linear_forward", lambda x, weight, bias: x @ weight.T),
    "linear: weight not transposed": ("ch04.linear_forward", lambda x, weight, bias: x @ weight + bias),
    "linear: returns a NumPy array": (
        "ch04.linear_forward",
        lambda x, weight, bias: (x @ weight.T + bias).numpy(),
    ),
    "mlp: no ReLU": ("ch04.mlp_forward", lambda x, w1, b1, w2, b2: (x @ w1.T + b1) @ w2.T + b2),
    "mlp: ReLU on the output too": (
        "ch04.mlp_forward",
        lambda x, w1, b1, w2, b2: minitorch.relu(minitorch.relu(x @ w1.T + b1) @ w2.T + b2),
    ),
    "sgd: steps uphill": ("ch04.sgd_step", _sgd_step_with(+1.0, lambda squares: squares.mean())),
    "sgd: summed loss": ("ch04.sgd_step", _sgd_step_with(-1.0, lambda squares: squares.sum())),
    "sgd: update recorded in the graph (no no_grad)": ("ch04.sgd_step", _sgd_step_recorded),
    "sgd: changes the caller's weight in place": ("ch04.sgd_step", _sgd_step_in_place),
}


@pytest.mark.parametrize("mistake", sorted(WRONG))
def test_typical_mistake_fails_the_check(mistake, capsys):
    name, function = WRONG[mistake]
    with pytest.raises(AssertionError):
        check(name, function)
    assert "FAILED" in capsys.readouterr().out


def test_sgd_step_feedback_names_the_problem(capsys):
    with pytest.raises(AssertionError):
        check("ch04.sgd_step", _sgd_step_recorded)
    out = capsys.readouterr().out
    assert "new_weight is still part of the graph (grad_fn=SubBackward0)" in out
    with pytest.raises(AssertionError):
        check("ch04.sgd_step", _sgd_step_in_place)
    assert "changed its input weight in place" in capsys.readouterr().out
    with pytest.raises(AssertionError):
        check("ch04.sgd_step", WRONG["sgd: steps uphill"][1])
    assert "output 1 (new_weight): wrong values" in capsys.readouterr().out


def test_sgd_step_written_differently_passes(capsys):
    check("ch04.sgd_step", _sgd_step_detached)
    assert "all 2 public cases pass" in capsys.readouterr().out


def test_sgd_step_reference_matches_optim_sgd():
    """The reference step is what optim.SGD does with the same model, loss and learning rate."""
    from grading.registry import get

    x, target = minitorch.tensor(randn(6, 3, seed=1)), minitorch.tensor(randn(6, 2, seed=2))
    layer = minitorch.nn.Linear(3, 2)
    weight, bias = layer.weight.detach().clone(), layer.bias.detach().clone()
    optimizer = minitorch.optim.SGD(layer.parameters(), lr=0.1)
    loss = minitorch.nn.functional.mse_loss(layer(x), target)
    loss.backward()
    optimizer.step()
    new_weight, new_bias, reference_loss = get("ch04.sgd_step").reference(x, target, weight, bias, 0.1)
    assert minitorch.allclose(new_weight, layer.weight.detach(), atol=1e-6)
    assert minitorch.allclose(new_bias, layer.bias.detach(), atol=1e-6)
    assert math.isclose(reference_loss.item(), loss.item(), rel_tol=1e-6)


# -- build it: the Module machinery -------------------------------------------------------------------
import numpy as np  # noqa: E402

from tests.grading.chapter_notebooks import NOTEBOOK_IMPORTS, graded_cells, solutions  # noqa: E402

SOLUTIONS = solutions("04_networks")


def namespace_of_cells(chapter, cell_ids):
    """What the instructor's solution cells ``cell_ids`` define, run alone in a fresh namespace."""
    names = dict(NOTEBOOK_IMPORTS)
    cells = graded_cells(chapter, "source", "solution")
    for cell_id in cell_ids:
        exec(compile(cells[cell_id], f"<{chapter} {cell_id}>", "exec"), names)
    return names

GIVEN = graded_cells("04_networks", "source", "solution")["ch04-module"].split(
    "# The models the check builds on your Module (already written).", 1
)[1]
nn = minitorch.nn


def _report_with(module_class):
    """The notebook's module_report_of_my_module, with its models built on ``module_class``."""
    names = dict(SOLUTIONS, Module=module_class)
    exec(GIVEN, names)
    return names["module_report_of_my_module"]


Module = SOLUTIONS["Module"]


class ForgetsToSetTheAttribute(Module):
    def __setattr__(self, name, value):
        if isinstance(value, nn.Parameter):
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value


class NoPrefix(Module):
    def named_parameters(self, prefix="", seen=None):
        yield from self._parameters.items()
        for child in self._modules.values():
            yield from child.named_parameters()


class ChildrenFirst(Module):
    def named_parameters(self, prefix="", seen=None):
        seen = set() if seen is None else seen
        for child_name, child in self._modules.items():
            yield from child.named_parameters(prefix + child_name + ".", seen)
        for name, parameter in self._parameters.items():
            if id(parameter) not in seen:
                seen.add(id(parameter))
                yield prefix + name, parameter


class ListsSharedTwice(Module):
    def named_parameters(self, prefix="", seen=None):
        for name, parameter in self._parameters.items():
            yield prefix + name, parameter
        for child_name, child in self._modules.items():
            yield from child.named_parameters(prefix + child_name + ".")


class TrainNotRecursive(Module):
    def train(self, mode=True):
        self.training = mode
        return self


class StateDictDeduplicated(Module):
    def state_dict(self, prefix=""):
        return {name: parameter.detach() for name, parameter in self.named_parameters()}


class WalksWithAStack(Module):
    """Correct, written differently: an explicit stack of (prefix, module) instead of recursion."""

    def named_parameters(self, prefix="", seen=None):
        seen, stack = set(), [(prefix, self)]
        while stack:
            path, module = stack.pop()
            for name, parameter in module._parameters.items():
                if id(parameter) not in seen:
                    seen.add(id(parameter))
                    yield path + name, parameter
            stack.extend(reversed([(path + name + ".", child) for name, child in module._modules.items()]))

    def state_dict(self, prefix=""):
        state, stack = {}, [(prefix, self)]
        while stack:
            path, module = stack.pop()
            state.update({path + name: parameter.detach() for name, parameter in module._parameters.items()})
            stack.extend(reversed([(path + name + ".", child) for name, child in module._modules.items()]))
        return state


MODULE_MISTAKES = {
    "__setattr__ never sets the attribute": (ForgetsToSetTheAttribute, "raised AttributeError"),
    "names without the child's prefix": (NoPrefix, "output 1 (named_parameters() names): expected ['gain', 'first."),
    "children's parameters before the module's own": (ChildrenFirst, "own parameter (gain) comes before"),
    "a shared parameter listed twice": (ListsSharedTwice, "shared weights"),
    "train() not passed on to the children": (
        TrainNotRecursive,
        "output 5 (training flags after eval(), then train())",
    ),
    "state_dict without the shared layer's second path": (StateDictDeduplicated, "output 2 (state_dict() keys"),
}


@pytest.mark.parametrize("mistake", sorted(MODULE_MISTAKES))
def test_module_mistakes_fail_with_feedback_naming_them(mistake, capsys):
    module_class, words = MODULE_MISTAKES[mistake]
    with pytest.raises(AssertionError):
        check("ch04.module_report", _report_with(module_class))
    first_failure = [line for line in capsys.readouterr().out.splitlines() if "FAILED" in line][0]
    assert words in first_failure


def test_module_written_differently_passes(capsys):
    check("ch04.module_report", _report_with(WalksWithAStack))
    assert "all 3 public cases pass" in capsys.readouterr().out


def test_the_reference_names_are_pytorchs():
    """minitorch's nn.Module (the reference) names a chain with a shared layer as torch.nn.Module does."""
    torch = require_torch()
    from grading.exercises.ch04 import build_model

    ours = build_model(nn.Module, np.array([3, 2, 2]), np.arange(20.0), 1)  # gain, first, rest(gain, first=first)
    layer = torch.nn.Module()
    layer.first = torch.nn.Linear(3, 2)
    layer.rest = torch.nn.Module()
    layer.rest.first = layer.first
    layer.gain = torch.nn.Parameter(torch.ones(1))
    layer.rest.gain = torch.nn.Parameter(torch.ones(1))
    assert [name for name, _ in layer.named_parameters()] == ["gain", "first.weight", "first.bias", "rest.gain"]
    expected_keys = ["gain", "first.weight", "first.bias", "rest.gain", "rest.first.weight", "rest.first.bias"]
    assert list(layer.state_dict()) == expected_keys
    assert [name for name, _ in ours.named_parameters()] == ["gain", "first.weight", "first.bias", "rest.gain"]
    assert list(ours.state_dict()) == expected_keys


# -- build it: buffers, forward hooks, _apply/to and a strict state_dict ---------------------------------------
import textwrap  # noqa: E402

from grading.library.module import machinery_report  # noqa: E402
from grading.registry import get  # noqa: E402

MACHINERY = namespace_of_cells("04_networks", ("ch04-module-machinery",))
FullModule = MACHINERY["MyModule"]


def _machinery_with(module_class):
    return lambda *case: machinery_report(module_class, *case)


class BufferAsParameter(FullModule):
    """register_buffer files the buffer with the parameters."""

    def register_buffer(self, name, tensor, persistent=True):
        self._parameters[name] = tensor
        if not persistent:
            self._non_persistent_buffers.add(name)


class SharedListedTwice(FullModule):
    def named_parameters(self, prefix="", seen=None):
        for name, parameter in self._parameters.items():
            yield prefix + name, parameter
        for child_name, child in self._modules.items():
            yield from child.named_parameters(prefix + child_name + ".")


class HooksReversed(FullModule):
    def __call__(self, *args):
        output = self.forward(*args)
        for hook in reversed(list(self._forward_hooks.values())):
            result = hook(self, args, output)
            if result is not None:
                output = result
        return output


class HookResultIgnored(FullModule):
    def __call__(self, *args):
        output = self.forward(*args)
        for hook in list(self._forward_hooks.values()):
            hook(self, args, output)
        return output


class ApplyReplacesParameters(FullModule):
    def _apply(self, fn):
        for child in self._modules.values():
            child._apply(fn)
        for name, parameter in self._parameters.items():
            self._parameters[name] = nn.Parameter(fn(parameter.detach()))
        for name, buffer in self._buffers.items():
            self._buffers[name] = fn(buffer)
        return self


class ApplyNotRecursive(FullModule):
    def _apply(self, fn):
        with minitorch.no_grad():
            for parameter in self._parameters.values():
                parameter.data = fn(parameter)
        for name, buffer in self._buffers.items():
            self._buffers[name] = fn(buffer)
        return self


class NonPersistentSaved(FullModule):
    def state_dict(self, prefix=""):
        state = {prefix + name: parameter.detach() for name, parameter in self._parameters.items()}
        state.update({prefix + name: buffer.detach() for name, buffer in self._buffers.items()})
        for child_name, child in self._modules.items():
            state.update(child.state_dict(prefix + child_name + "."))
        return state


class LoadNotStrict(FullModule):
    def load_state_dict(self, state, strict=True):
        own = self.state_dict()
        with minitorch.no_grad():
            for key, values in state.items():
                if key in own:
                    own[key].copy_(values)


class RemoveDoesNothing(FullModule):
    def register_forward_hook(self, hook):
        handle = super().register_forward_hook(hook)
        handle.remove = lambda: None
        return handle


class TwoSetsOfAttributes(FullModule):
    """Registers the values and still sets them as plain attributes (exercise 4's way): after to() the buffers
    read through the attribute are the old ones."""

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        object.__setattr__(self, name, value)

    def register_buffer(self, name, tensor, persistent=True):
        super().register_buffer(name, tensor, persistent)
        object.__setattr__(self, name, tensor)


MACHINERY_MISTAKES = {
    "a buffer counted as a parameter": (BufferAsParameter, "output 1 (named_parameters() names"),
    "a shared parameter listed twice": (SharedListedTwice, "a shared one once"),
    "hooks run in reverse order": (HooksReversed, "output 4 (forward hooks: which ran, in order"),
    "a hook's returned value ignored": (HookResultIgnored, "a hook that returns a value replaces the output"),
    "remove() leaves the hook in place": (RemoveDoesNothing, "a removed hook never runs"),
    "_apply replaces the parameter objects": (ApplyReplacesParameters, "still the same object"),
    "_apply does not reach the children": (ApplyNotRecursive, "at every depth"),
    "buffers kept as attributes too (stale after to)": (TwoSetsOfAttributes, "output 7 (to(float64): dtypes"),
    "a non-persistent buffer saved": (NonPersistentSaved, "persistent buffers only"),
    "load_state_dict not strict": (LoadNotStrict, "strict load_state_dict"),
}


@pytest.mark.parametrize("mistake", sorted(MACHINERY_MISTAKES))
def test_machinery_mistakes_fail_with_feedback_naming_the_concept(mistake, capsys):
    module_class, words = MACHINERY_MISTAKES[mistake]
    with pytest.raises(AssertionError):
        check("ch04.module_machinery", _machinery_with(module_class))
    first_failure = [line for line in capsys.readouterr().out.splitlines() if "FAILED" in line][0]
    assert words in first_failure, first_failure


class Handle:
    def __init__(self, hooks, hook):
        self.hooks, self.hook = hooks, hook

    def remove(self):
        if self.hook in self.hooks:
            self.hooks.remove(self.hook)


class WrittenDifferently:
    """Correct, written differently: one dict of dicts for every kind of entry, hooks in a list, walks with a
    stack, a strict load that collects its copies before making them."""

    def __init__(self):
        object.__setattr__(self, "_entries", {"parameters": {}, "buffers": {}, "modules": {}})
        object.__setattr__(self, "_unsaved", set())
        object.__setattr__(self, "_hooks", [])

    def __getattr__(self, name):
        for entries in self.__dict__["_entries"].values():
            if name in entries:
                return entries[name]
        raise AttributeError(name)

    def __setattr__(self, name, value):
        kind = ("parameters" if isinstance(value, nn.Parameter) else "modules" if isinstance(value, WrittenDifferently)
                else "buffers" if name in self._entries["buffers"] else None)  # fmt: skip
        if kind is None:
            object.__setattr__(self, name, value)
        else:
            self._entries[kind][name] = value

    def register_buffer(self, name, tensor, persistent=True):
        self._entries["buffers"][name] = tensor
        (self._unsaved.discard if persistent else self._unsaved.add)(name)

    def _walk(self):
        stack = [("", self)]
        while stack:
            prefix, module = stack.pop()
            yield prefix, module
            children = list(module._entries["modules"].items())
            stack.extend((prefix + name + ".", child) for name, child in reversed(children))

    def named_parameters(self):
        seen = set()
        for prefix, module in self._walk():
            for name, parameter in module._entries["parameters"].items():
                if all(parameter is not other for other in seen):
                    seen.add(parameter)
                    yield prefix + name, parameter

    def parameters(self):
        return (parameter for _, parameter in self.named_parameters())

    def named_buffers(self):
        for prefix, module in self._walk():
            yield from ((prefix + name, buffer) for name, buffer in module._entries["buffers"].items())

    def register_forward_hook(self, hook):
        self._hooks.append(hook)
        return Handle(self._hooks, hook)

    def __call__(self, *args):
        output = self.forward(*args)
        for hook in tuple(self._hooks):
            replaced = hook(self, args, output)
            output = output if replaced is None else replaced
        return output

    def to(self, dtype):
        for _, module in self._walk():
            for parameter in module._entries["parameters"].values():
                if parameter.is_floating_point():
                    parameter.data = parameter.detach().to(dtype)
            buffers = module._entries["buffers"]
            buffers.update({name: b.to(dtype) for name, b in buffers.items() if b.is_floating_point()})
        return self

    def state_dict(self):
        state = {}
        for prefix, module in self._walk():
            state.update((prefix + name, p.detach()) for name, p in module._entries["parameters"].items())
            state.update((prefix + name, b.detach()) for name, b in module._entries["buffers"].items()
                         if name not in module._unsaved)  # fmt: skip
        return state

    def load_state_dict(self, state):
        own = self.state_dict()
        missing, unexpected = sorted(set(own) - set(state)), sorted(set(state) - set(own))
        lines = [f"{what} key(s) in state_dict: " + ", ".join(f'"{key}"' for key in keys) + ". "
                 for what, keys in (("Missing", missing), ("Unexpected", unexpected)) if keys]  # fmt: skip
        if lines:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t" + "\n\t".join(lines))
        with minitorch.no_grad():
            for key, tensor in own.items():
                tensor.copy_(state[key])


def test_machinery_written_differently_passes(capsys):
    check("ch04.module_machinery", _machinery_with(WrittenDifferently))
    assert "all 3 public cases pass" in capsys.readouterr().out


def test_machinery_solution_passes_the_hidden_cases(capsys):
    hidden = graded_cells("04_networks", "source", "grade")["ch04-module-machinery-tests"]
    exec(hidden.split("### BEGIN HIDDEN TESTS", 1)[1], dict(SOLUTIONS, **MACHINERY))
    assert "FAILED" not in capsys.readouterr().out


def _trees():
    """The public cases, and the hidden ones read from the notebook's hidden block."""
    hidden = graded_cells("04_networks", "source", "grade")["ch04-module-machinery-tests"]
    block = hidden.split("### BEGIN HIDDEN TESTS", 1)[1].replace("from grading import check_hidden", "")
    found = []
    exec(block, dict(NOTEBOOK_IMPORTS, module_machinery_report=None,
                     check_hidden=lambda name, function, cases: found.extend(cases)))  # fmt: skip
    return list(get("ch04.module_machinery").public) + found


@pytest.mark.parametrize("case_number", range(6))
def test_the_machinery_reference_is_pytorchs(case_number):
    """minitorch's nn.Module (the reference) shows on every tree, public and hidden, what torch.nn.Module shows."""
    torch = require_torch()
    case = _trees()[case_number]
    ours = get("ch04.module_machinery").reference(*case)
    theirs = machinery_report(torch.nn.Module, *case, lib=torch)
    for number, (mine, pytorch) in enumerate(zip(ours, theirs)):
        np.testing.assert_allclose(np.asarray(mine, dtype=np.float64), np.asarray(pytorch, dtype=np.float64),
                                   rtol=1e-5, atol=1e-6, err_msg=f"output {number + 1}")  # fmt: skip


def test_pytorchs_strict_message_is_the_one_the_notebook_describes():
    torch = require_torch()
    from grading.library.module import tree_classes

    block = tree_classes(torch.nn.Module, torch)(torch.ones(2), 1)
    with pytest.raises(RuntimeError) as refused:
        block.load_state_dict({"weight": torch.ones(2)})
    expected = 'Error(s) in loading state_dict for Block:\n\tMissing key(s) in state_dict: "running". '
    assert str(refused.value) == expected
    block = tree_classes(FullModule, minitorch)(minitorch.ones(2), 1)
    with pytest.raises(RuntimeError) as mine:
        block.load_state_dict({"weight": minitorch.ones(2)})
    assert str(mine.value) == str(refused.value)


@pytest.mark.parametrize(
    "cheat",
    [
        """
        def cheat(structure, values, new_values, x):
            return machinery_report(nn.Module, structure, values, new_values, x)
        """,
        """
        class Module(nn.Module):  # minitorch's machinery under the learner's name
            pass

        def cheat(structure, values, new_values, x):
            return machinery_report(Module, structure, values, new_values, x)
        """,
    ],
)
def test_an_answer_on_minitorchs_module_earns_nothing(cheat):
    from tests.grading.withheld_support import run_with_withheld

    source = "from grading.library.module import machinery_report\n" + textwrap.dedent(cheat)
    printed = run_with_withheld("ch04.module_machinery", "04_networks", source)
    assert "withheld:" in printed and "is not available while this exercise is graded" in printed


def test_the_withheld_machinery_exists():
    from tests.grading.withheld_support import withheld_names_missing

    assert withheld_names_missing("ch04") == []


MACHINERY_SHORTCUT = """
class MyModule(nn.Module):  # minitorch's machinery under the learner's name
    pass
"""


def test_the_batch_grader_scores_minitorchs_module_machinery_zero(tmp_path):
    """minitorch-grade: the reference scores full marks; a notebook whose MyModule is minitorch's nn.Module loses
    exactly the machinery exercise, reported as not implemented (the withheld methods raise)."""
    from tests.grading.chapter_notebooks import grade_with_shortcut

    grade_with_shortcut(tmp_path, "04_networks", MACHINERY_SHORTCUT, "ch04.module_machinery")
