"""Chapter 16's build-its (a symbolic tracer, dead-code elimination, pointwise fusion): differently written correct
solutions pass; typical mistakes fail with a report that names the concept of the case they break; the references'
graphs are torch.fx's graphs of the same module (node ops, targets and arguments), before and after each pass; the
notebook's ProgramModule and describe_graph are the answer key's.

The checks every chapter shares (the solutions pass, the blank stubs report "not implemented yet") are in
test_chapter_exercises.py.
"""

from __future__ import annotations

import inspect
import operator

import numpy as np
import pytest

import minitorch
import minitorch.nn as nn
from grading import check, registry
from grading.compare import decode_texts
from grading.exercises import ch16
from grading.exercises.ch16 import ADD, LINEAR, MUL, RELU, SCALE, SIGMOID, SUB, TANH, ProgramModule, describe_graph
from minitorch import fx
from tests.grading.chapter_notebooks import graded_cells, solutions
from tests.support import require

CHAPTER = "16_compilers"
SOLUTIONS = solutions(CHAPTER)
NAMES = ("trace_program", "dce_program", "fusion_program")


def _hidden_programs(name):
    """The programs of the hidden cases in the instructor's test cell of exercise ``name``."""
    source = next(text for text in graded_cells(CHAPTER, "source", "grade").values() if f"ch16.{name}" in text)
    hidden = source.split("### BEGIN HIDDEN TESTS", 1)[1].split("### END HIDDEN TESTS", 1)[0]
    captured = []
    names = {**SOLUTIONS, "check_hidden": lambda _name, _function, cases: captured.extend(cases)}
    exec(hidden.replace("from grading import check_hidden", ""), names)
    return captured


def _every_case(name):
    return list(registry.get(f"ch16.{name}").public) + _hidden_programs(name)


# -- differently written correct solutions ------------------------------------------------------------------------
class _RecordingProxy:
    """A proxy whose operators all go through one helper, and whose methods are made by a small class."""

    def __init__(self, node, graph, root, attributes):
        self.node, self.graph, self.root, self.attributes = node, graph, root, attributes

    def _record(self, op, target, *args):
        arguments = tuple(getattr(argument, "node", argument) for argument in args)
        return _RecordingProxy(self.graph.create_node(op, target, arguments, {}), self.graph, self.root,
                               self.attributes)

    __add__ = lambda self, other: self._record("call_function", operator.add, self, other)  # noqa: E731
    __mul__ = lambda self, other: self._record("call_function", operator.mul, self, other)  # noqa: E731
    __sub__ = lambda self, other: self._record("call_function", operator.sub, self, other)  # noqa: E731

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda *args: self._record("call_method", name, self, *args)


def _another_tracer(root):
    graph = fx.Graph()
    paths = {id(module): path for path, module in root.named_modules()}
    parameter_paths = {id(parameter): path for path, parameter in root.named_parameters()}
    attributes = {}
    inputs = [_RecordingProxy(graph.placeholder(name), graph, root, attributes)
              for name in inspect.signature(root.forward).parameters]
    saved = nn.Module.__dict__["__call__"], nn.Module.__dict__["__getattr__"]

    def call(module, *args):
        return inputs[0]._record("call_module", paths[id(module)], *args)

    def getattr_(module, name):
        value = saved[1](module, name)
        if id(value) in parameter_paths:
            if id(value) not in attributes:
                attributes[id(value)] = inputs[0]._record("get_attr", parameter_paths[id(value)])
            return attributes[id(value)]
        return value

    nn.Module.__call__, nn.Module.__getattr__ = call, getattr_
    try:
        result = root.forward(*inputs)
    finally:
        nn.Module.__call__, nn.Module.__getattr__ = saved
    graph.output(result.node)
    return fx.GraphModule(root, graph)


def trace_by_another_tracer(program, x, y):
    return describe_graph(_another_tracer(ProgramModule(program, x.shape[-1])), x, y)


def dce_by_repeated_sweeps(program, x, y):
    """Sweep forward, erasing what has no users, until a sweep erases nothing (slower, also right)."""
    graph_module = fx.symbolic_trace(ProgramModule(program, x.shape[-1]))
    graph = graph_module.graph
    while True:
        dead = [node for node in graph.nodes if node.op not in ("placeholder", "output") and not node.users]
        if not dead:
            break
        for node in dead:
            graph.erase_node(node)
    graph_module.recompile()
    return describe_graph(graph_module, x, y)


def _chains_backwards(graph):
    """The groups found from each group's last node backwards: a pointwise node whose only user is pointwise is in
    its user's group."""
    nodes = list(graph.nodes)
    groups, placed = [], set()
    for node in reversed(nodes):
        if not ch16.is_pointwise(node) or node in placed:
            continue
        group, frontier = [], [node]
        while frontier:
            member = frontier.pop()
            group.append(member)
            placed.add(member)
            frontier += [source for source in member.all_input_nodes
                         if ch16.is_pointwise(source) and len(source.users) == 1 and source not in placed]
        groups.append(sorted(group, key=nodes.index))
    return sorted(groups, key=lambda group: nodes.index(group[-1]))


def fusion_with_recursive_codegen(program, x, y):
    graph_module = fx.symbolic_trace(ProgramModule(program, x.shape[-1]))
    graph = graph_module.graph
    for group in _chains_backwards(graph):
        inputs = list(dict.fromkeys(arg for node in group for arg in node.args if arg not in group))

        def expression(node, group=group, inputs=inputs):
            if node not in group:
                return f"in_{inputs.index(node)}"
            return ch16.POINTWISE_EXPRESSIONS[ch16.target_name(node)].format(*map(expression, node.args))

        name = "fused_" + "_".join(ch16.target_name(node) for node in group)
        arguments = ", ".join(f"in_{k}" for k in range(len(inputs)))
        unwrap = "; ".join(f"in_{k} = in_{k}.detach().numpy()" for k in range(len(inputs)))
        source = f"def {name}({arguments}):\n    {unwrap}\n    return minitorch.from_numpy({expression(group[-1])})\n"
        namespace = {"np": np, "minitorch": minitorch}
        exec(source, namespace)
        with graph.inserting_after(group[-1]):
            fused = graph.call_function(namespace[name], tuple(inputs))
        group[-1].replace_all_uses_with(fused)
        for node in reversed(group):
            graph.erase_node(node)
    graph_module.recompile()
    return describe_graph(graph_module, x, y)


@pytest.mark.parametrize("name, other", [("trace_program", trace_by_another_tracer),
                                         ("dce_program", dce_by_repeated_sweeps),
                                         ("fusion_program", fusion_with_recursive_codegen)])
def test_a_differently_written_solution_passes_public_and_hidden_cases(name, other, capsys):
    from grading import check_hidden

    assert check(f"ch16.{name}", other) == "passed", capsys.readouterr().out
    check_hidden(f"ch16.{name}", other, _hidden_programs(name))


# -- typical mistakes ---------------------------------------------------------------------------------------------
def _tracer_with(**changes):
    """The notebook's tracer with one piece replaced by a mistake (its classes swapped in its namespace for a call)."""
    proxy_class = type("Proxy", (SOLUTIONS["Proxy"],), {})
    tracer_class = type("Tracer", (SOLUTIONS["Tracer"],), {})
    for target, (attribute, function) in changes.items():
        setattr(proxy_class if target == "proxy" else tracer_class, attribute, function)
    originals = SOLUTIONS["Proxy"], SOLUTIONS["Tracer"]

    def trace_program(program, x, y):
        SOLUTIONS["Proxy"], SOLUTIONS["Tracer"] = proxy_class, tracer_class
        try:
            return describe_graph(SOLUTIONS["trace"](ProgramModule(program, x.shape[-1])), x, y)
        finally:
            SOLUTIONS["Proxy"], SOLUTIONS["Tracer"] = originals

    return trace_program


def _module_by_class_name(self, module, args):
    return self.create_proxy("call_module", type(module).__name__, args)


def _get_attr_every_read(self, parameter):
    path = next(name for name, candidate in self.root.named_parameters() if candidate is parameter)
    return self.create_proxy("get_attr", path, ())


def _methods_as_functions(self, name):
    if name.startswith("__"):
        raise AttributeError(name)
    return lambda *args: self.tracer.create_proxy("call_function", getattr(minitorch, name), (self, *args))


def _swapped_subtraction(self, other):
    return self.tracer.create_proxy("call_function", operator.sub, (other, self))


def dce_forward_once(program, x, y):
    graph_module = fx.symbolic_trace(ProgramModule(program, x.shape[-1]))
    for node in list(graph_module.graph.nodes):  # forward: a node read only by a dead node is seen too early
        if node.op not in ("placeholder", "output") and not node.users:
            graph_module.graph.erase_node(node)
    graph_module.recompile()
    return describe_graph(graph_module, x, y)


def dce_removing_unused_inputs(program, x, y):
    graph_module = fx.symbolic_trace(ProgramModule(program, x.shape[-1]))
    for node in reversed(list(graph_module.graph.nodes)):
        if node.op != "output" and not node.users:
            graph_module.graph.erase_node(node)
    graph_module.recompile()
    return describe_graph(graph_module, x, y)


def dce_keeping_module_calls(program, x, y):
    graph_module = fx.symbolic_trace(ProgramModule(program, x.shape[-1]))
    for node in reversed(list(graph_module.graph.nodes)):  # "a module call may have side effects": kept
        if node.op in ("call_function", "call_method") and not node.users:
            graph_module.graph.erase_node(node)
    graph_module.recompile()
    return describe_graph(graph_module, x, y)


def _fusion_with(groups=None, kernel=None):
    names = dict(SOLUTIONS)
    if groups is not None:
        names["pointwise_groups"] = groups
    if kernel is not None:
        names["generate_kernel"] = kernel
    fuse = type(SOLUTIONS["fuse_pointwise"])(SOLUTIONS["fuse_pointwise"].__code__, names)

    def fusion_program(program, x, y):
        graph_module = fx.symbolic_trace(ProgramModule(program, x.shape[-1]))
        fuse(graph_module)
        return describe_graph(graph_module, x, y)

    return fusion_program


def _groups_ignoring_other_users(graph):
    """Every pointwise node joins its pointwise inputs' groups, even when they have other users."""
    group_of = {}
    for node in graph.nodes:
        if not ch16.is_pointwise(node):
            continue
        group = [node]
        for source in node.all_input_nodes:
            if source in group_of and group_of[source] is not group:
                group = group_of[source] + [member for member in group if member not in group_of[source]]
                for member in group:
                    group_of[member] = group
        group_of[node] = group
    order = list(graph.nodes)
    return sorted({id(g): sorted(g, key=order.index) for g in group_of.values()}.values(),
                  key=lambda g: order.index(g[-1]))


def _groups_through_modules(graph):
    """A Linear counted as pointwise: chains are fused across it."""
    nodes = list(graph.nodes)
    inside = [node for node in nodes if ch16.is_pointwise(node) or node.op == "call_module"]
    return [inside] if inside else []


def _kernel_with_operands_reversed(group):
    original = SOLUTIONS["generate_kernel"]
    swapped = {**SOLUTIONS["POINTWISE_EXPRESSIONS"], "sub": "({1} - {0})"}
    names = {**original.__globals__, "POINTWISE_EXPRESSIONS": swapped}
    return type(original)(original.__code__, names)(group)


MISTAKES = [
    ("trace_program", _tracer_with(tracer=("call_module", _module_by_class_name)),
     "is one call_module node named by its path"),
    ("trace_program", _tracer_with(tracer=("read_parameter", _get_attr_every_read)), "made once per trace"),
    ("trace_program", _tracer_with(proxy=("__getattr__", _methods_as_functions)), "a tensor method a call_method"),
    ("trace_program", _tracer_with(proxy=("__sub__", _swapped_subtraction)), "the operands keep their order"),
    ("dce_program", dce_forward_once, "a dead chain"),
    ("dce_program", dce_removing_unused_inputs, "a placeholder is an input of the program and stays"),
    ("dce_program", dce_keeping_module_calls, "a dead call_module go"),
    ("fusion_program", _fusion_with(groups=_groups_ignoring_other_users), "a value with two users stays outside"),
    ("fusion_program", _fusion_with(groups=_groups_through_modules), "a Linear between two chains is no pointwise"),
    ("fusion_program", _fusion_with(kernel=_kernel_with_operands_reversed), "operands in order"),
]


@pytest.mark.parametrize("name, wrong, concept", MISTAKES, ids=[f"{m[0]}-{m[2][:30]}" for m in MISTAKES])
def test_typical_mistakes_fail_naming_the_concept(name, wrong, concept, capsys):
    with pytest.raises(AssertionError, match="public case"):
        check(f"ch16.{name}", wrong)
    report = capsys.readouterr().out
    assert "FAILED" in report and concept in report, report


# -- the answer key agrees with the notebook, and with torch.fx --------------------------------------------------
def test_the_notebooks_program_module_and_description_are_the_answer_keys():
    program = np.array([[LINEAR, 0, 0], [SCALE, 2, 1], [TANH, 3, 0], [SUB, 4, 1], [MUL, 5, 0], [SIGMOID, 6, 0],
                        [RELU, 7, 0], [ADD, 8, 2], [LINEAR, 9, 0]])
    x, y = (np.random.default_rng(seed).standard_normal((3, 4)).astype(np.float32) for seed in (1, 2))
    mine = SOLUTIONS["describe_graph"](fx.symbolic_trace(SOLUTIONS["ProgramModule"](program, 4)), x, y)
    theirs = describe_graph(fx.symbolic_trace(ProgramModule(program, 4)), x, y)
    for a, b in zip(mine, theirs):
        np.testing.assert_array_equal(a, b)


def _torch_module(torch, program, features):
    """ProgramModule in PyTorch, with the same weights."""
    mine = ProgramModule(program, features)

    class TorchProgram(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.program = mine.program
            self.scale = torch.nn.Parameter(torch.from_numpy(mine.scale.detach().numpy().copy()))
            for name, layer in mine.named_children():
                copy = torch.nn.Linear(features, features)
                copy.load_state_dict({key: torch.from_numpy(value.numpy().copy())
                                      for key, value in layer.state_dict().items()})
                setattr(self, name, copy)

    TorchProgram.forward = ProgramModule.forward  # the same Python: only the library under it changes
    return TorchProgram()


def _torch_description(torch, graph_module, x, y):
    nodes = list(graph_module.graph.nodes)
    position = {node: index for index, node in enumerate(nodes)}
    arguments = np.full((len(nodes), 2), -2, dtype=np.int64)
    for row, node in enumerate(nodes):
        for column, argument in enumerate(node.args[:2]):
            arguments[row, column] = position.get(argument, -1) if isinstance(argument, torch.fx.Node) else -1
    with torch.no_grad():
        result = graph_module(torch.from_numpy(x), torch.from_numpy(y)).numpy()
    return result, [node.op for node in nodes], [ch16.target_name(node) for node in nodes], arguments


def _compare_with_torch(mine, theirs):
    np.testing.assert_allclose(mine[0], theirs[0], rtol=1e-5, atol=1e-6)
    assert decode_texts(mine[1]) == theirs[1]
    assert decode_texts(mine[2]) == theirs[2]
    np.testing.assert_array_equal(mine[3], theirs[3])


@pytest.mark.parametrize("name", ["trace_program", "dce_program"])
def test_the_references_graphs_are_torch_fx_graphs(name):
    torch = require("torch", "the graphs are compared with torch.fx's")
    for program, x, y in _every_case(name):
        graph_module = torch.fx.symbolic_trace(_torch_module(torch, program, x.shape[-1]))
        if name == "dce_program":
            graph_module.graph.eliminate_dead_code()
            graph_module.recompile()
        _compare_with_torch(registry.get(f"ch16.{name}").reference(program, x, y),
                            _torch_description(torch, graph_module, x, y))


def test_the_fusion_groups_are_the_same_on_torch_fx_graphs_and_the_fused_graph_computes_eagers_result():
    torch = require("torch", "the graphs are compared with torch.fx's")
    for program, x, y in _every_case("fusion_program"):
        theirs = torch.fx.symbolic_trace(_torch_module(torch, program, x.shape[-1])).graph
        mine = fx.symbolic_trace(ProgramModule(program, x.shape[-1])).graph

        def names(graph):
            return [[node.name for node in group] for group in ch16.pointwise_groups(graph)]

        assert names(mine) == names(theirs)
        with minitorch.no_grad():
            eager = ProgramModule(program, x.shape[-1])(minitorch.from_numpy(x), minitorch.from_numpy(y)).numpy()
        np.testing.assert_allclose(ch16._fused(program, x, y)[0], eager, rtol=1e-5, atol=1e-6)


def test_every_case_has_something_to_fuse_and_something_to_eliminate():
    """The cases test the passes: every fusion case fuses two nodes or more, every DCE case removes a node or keeps an
    unused input."""
    for program, x, _ in _every_case("fusion_program"):
        assert max(map(len, ch16.pointwise_groups(fx.symbolic_trace(ProgramModule(program, x.shape[-1])).graph))) >= 2
    for program, x, _ in _every_case("dce_program"):
        graph = fx.symbolic_trace(ProgramModule(program, x.shape[-1])).graph
        unused_input = any(node.op == "placeholder" and not node.users for node in graph.nodes)
        assert graph.eliminate_dead_code() or unused_input
