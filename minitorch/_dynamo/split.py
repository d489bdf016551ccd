"""Graph breaks that split: the graphs before and after a branch on a tensor's value, the branch run in Python.

``if x.sum() > 0:`` needs the value of ``x.sum() > 0`` in Python, which a graph cannot give
while it is being built (and ``print(y)`` is a side effect a graph does not replay).
TorchDynamo compiles what came before as one graph, runs the jump eagerly, and compiles the
code after it (one "resume" function per side of the branch) when that side first runs.
minitorch records by running the function, so it sees one path per call:

* while recording, each conversion of a recorded tensor to a Python value (``bool(t)``,
  ``t.item()``, ``int(t)``...) adds a *break marker* to the path's graph (``graph_break``),
  holding the converted tensor, the conversion and the value it gave (the *outcome*);
* ``split_path`` cuts the path at its markers into *segments*: segment ``i`` holds the ops
  between marker ``i-1`` and marker ``i``; a value one segment makes and a later one reads
  becomes an output of the first and a placeholder of the second, and so does every value the
  learner's code still holds at the break (its local variables), as TorchDynamo keeps a
  frame's live locals: the other side of the branch may read them;
* a ``print`` is a marker too, whose outcome is always None: it runs between the graphs, on
  the values they computed (``print_between``);
* the segments form a tree (``Segment.children``, keyed by outcome): on a later call the
  first segment runs compiled, the conversion runs eagerly on its output, and the outcome
  picks the next segment. An outcome seen for the first time is a new path: the call runs
  eagerly once more while recording, and the new segments are grafted on
  (``SplitProgram.add_path``), as TorchDynamo compiles a resume function the first time it runs.

Each segment is handed to the backend as its own graph, so each is its own autograd node and
gradients flow from one to the next through the tensors passed between them.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from ..fx import Graph, GraphModule, Node


def graph_break(tensor, conversion: str):  # or (print's arguments, "print")
    """A break marker in a recorded path (never run: ``split_path`` cuts the path here)."""
    raise RuntimeError("a graph break marker is cut out of the graph before it runs")


# How the eager code between two segments turns the tensor into the Python value it branches on.
CONVERSIONS = {"__bool__": bool, "item": lambda tensor: tensor.item(), "__float__": float, "__int__": int,
               "__index__": lambda tensor: tensor.__index__()}


@dataclass
class Segment:
    """One compiled graph of a split function and what follows it.

    ``inputs`` and ``outputs`` name values of the path (an input of the call or a node's
    name); ``converted`` names the tensor whose conversion ends the segment (None for the last
    one), and ``children`` maps each outcome of that conversion to the segment that follows.
    The last segment of a path keeps which values the function returns (``results``, ``spec``).
    """

    graph_module: GraphModule | None
    compiled: Any
    inputs: list
    outputs: list
    converted: tuple | None = None  # (value name, conversion)
    reason: Any = None  # the GraphBreak explain reports
    children: dict = field(default_factory=dict)
    results: list | None = None
    spec: Any = None


def _markers(graph: Graph) -> list[Node]:
    return [node for node in graph.nodes if node.op == "call_function" and node.target is graph_break]


def _segment_index(graph: Graph) -> dict[Node, int]:
    """Which segment each op of the path belongs to (the number of markers before it)."""
    index, where = 0, {}
    for node in graph.nodes:
        if node.op == "call_function" and node.target is graph_break:
            index += 1
        elif node.op == "call_function":
            where[node] = index
    return where


def path_needs(graph: Graph) -> list[list[str]]:
    """For each segment, the names of its values that something after it reads (a later op, a break
    marker, the function's result): the segment's outputs."""
    where = _segment_index(graph)
    count = len(_markers(graph)) + 1
    needed: list[list[str]] = [[] for _ in range(count)]
    reader_index = 0
    for node in graph.nodes:
        if node.op == "call_function" and node.target is graph_break:
            reader_index += 1
            readers_segment = reader_index  # a marker reads after the segment it ends
        elif node.op == "output":
            readers_segment = count  # after every segment
        elif node.op == "call_function":
            readers_segment = where[node]
        else:
            continue
        for argument in node.all_input_nodes + node.meta.get("live", []):  # a marker: also what stays alive
            home = where.get(argument)
            if home is not None and home < readers_segment and argument.name not in needed[home]:
                needed[home].append(argument.name)
    return needed


def segment_module(path: GraphModule, index: int, outputs: list[str]) -> tuple[GraphModule | None, list[str]]:
    """Segment ``index`` of the path as its own graph module returning ``outputs`` (by name), and the
    names of the values it reads (its placeholders). None when the segment holds no op."""
    where = _segment_index(path.graph)
    mine = [node for node in path.graph.nodes if where.get(node) == index]
    if not mine:  # nothing to compile between two breaks (or after the last one)
        return None, []
    external: list[Node] = []
    for node in mine:
        for argument in node.all_input_nodes:
            if argument.op != "get_attr" and where.get(argument) != index and argument not in external:
                external.append(argument)
    graph, copies = Graph(), {}
    for argument in external:
        copies[argument] = graph.placeholder(argument.name)
        copies[argument].meta = dict(argument.meta)

    def copy_of(argument: Node) -> Node:
        if argument not in copies:  # a parameter or constant: read in every segment that uses it
            copies[argument] = graph.node_copy(argument)
        return copies[argument]

    for node in mine:
        copies[node] = graph.node_copy(node, copy_of)
    by_name = {node.name: node for node in mine}
    graph.output(tuple(copies[by_name[name]] for name in outputs))
    attributes = {node.target: functools.reduce(getattr, node.target.split("."), path)
                  for node in copies if node.op == "get_attr"}
    return GraphModule(attributes, graph, f"CapturedGraph{index}"), [node.name for node in external]


@dataclass(frozen=True)
class Named:
    """A value of the path, by name, inside what a ``print`` marker prints."""

    name: str


def _named(payload):
    """A marker's payload with its nodes named: a converted value's name, or ``print``'s arguments."""
    if isinstance(payload, Node):
        return payload.name
    if isinstance(payload, (tuple, list)):
        return type(payload)(_named_inside(item) for item in payload)
    return payload


def _named_inside(item):
    if isinstance(item, Node):
        return Named(item.name)
    if isinstance(item, (tuple, list)):
        return type(item)(_named_inside(part) for part in item)
    if isinstance(item, dict):
        return tuple((key, _named_inside(part)) for key, part in item.items())
    return item


def _resolved(item, env: dict):
    if isinstance(item, Named):
        return env[item.name]
    if isinstance(item, (tuple, list)):
        return type(item)(_resolved(part, env) for part in item)
    return item


def print_between(payload, env: dict) -> None:
    """A ``print`` of the function, run between two graphs with the values they computed."""
    args, kwargs = payload
    print(*_resolved(args, env), **{key: _resolved(value, env) for key, value in kwargs})


@dataclass
class SplitPath:
    """One recorded path cut at its breaks: per segment, its outputs; per break, what it converts and got."""

    path: GraphModule
    needs: list
    breaks: list  # (converted value name, conversion, outcome, GraphBreak)
    results: list  # names of the values the function returned
    spec: Any


def split_path(path: GraphModule, reasons: list, spec) -> SplitPath:
    graph = path.graph
    breaks = [(_named(marker.args[0]), marker.args[1], marker.meta["outcome"], reason)
              for marker, reason in zip(_markers(graph), reasons)]
    results = [node.name for node in graph.output_node().args[0]]
    return SplitPath(path, path_needs(graph), breaks, results, spec)


class SplitProgram:
    """The tree of segments of one guarded signature, grown a path at a time."""

    def __init__(self, compile_graph):
        self.compile_graph = compile_graph  # (graph_module, example_inputs) -> callable (the backend)
        self.root: Segment | None = None
        self.compiled_graphs: list[GraphModule] = []  # every graph handed to the backend

    def _compile(self, path: SplitPath, index: int, outputs: list[str], examples: dict) -> Segment:
        module, inputs = segment_module(path.path, index, outputs)
        compiled = None
        if module is not None:
            compiled = self.compile_graph(module, [examples[name] for name in inputs])
            self.compiled_graphs.append(module)
        return Segment(module, compiled, inputs, list(outputs))

    def add_path(self, path: SplitPath, examples: dict) -> int:
        """Graft a new path on the tree: the segments after the first outcome not seen before are
        compiled; a segment already compiled whose outputs the new path needs more of is compiled again."""
        chain, segment = [], self.root
        if len(path.breaks) == 0 and segment is not None:
            raise ValueError("the function took a path without the branch an earlier call took")
        for index in range(len(path.breaks) + 1):
            if segment is None:
                break
            chain.append(segment)
            if index < len(path.breaks):
                name, conversion, outcome, _ = path.breaks[index]
                if segment.converted != (name, conversion):
                    raise ValueError("the function took a path whose breaks differ from an earlier one's")
                segment = segment.children.get(outcome)
                if segment is not None and type(segment) is not Segment:
                    raise ValueError("this outcome runs eagerly")
        if len(chain) == len(path.breaks) + 1:
            raise ValueError("the path is compiled already")
        for index, old in enumerate(chain):  # segments shared with earlier paths: enough outputs?
            missing = [name for name in path.needs[index] if name not in old.outputs]
            if missing:
                fresh = self._compile(path, index, old.outputs + missing, examples)
                old.graph_module, old.compiled, old.inputs, old.outputs = (fresh.graph_module, fresh.compiled,
                                                                           fresh.inputs, fresh.outputs)
        previous = chain[-1] if chain else None
        for index in range(len(chain), len(path.breaks) + 1):
            segment = self._compile(path, index, path.needs[index], examples)
            if index < len(path.breaks):
                name, conversion, _, reason = path.breaks[index]
                segment.converted, segment.reason = (name, conversion), reason
            if previous is None:
                self.root = segment
            else:
                previous.children[path.breaks[index - 1][2]] = segment
            previous = segment
        previous.results, previous.spec = path.results, path.spec
        return len(chain)  # how many segments the path shares with earlier ones

    def run(self, env: dict):
        """Run the segments on ``env`` (the call's inputs by name): the flat results and their spec; or, when a
        conversion gave an outcome no compiled path has, (None or the reason it runs eagerly, the segment, the
        outcome): the caller records that path."""
        segment = self.root
        while True:
            if segment.compiled is not None:
                outputs = segment.compiled(*[env[name] for name in segment.inputs])
                env.update(zip(segment.outputs, outputs))
            if segment.converted is None:
                return [env[name] for name in segment.results], segment.spec
            name, conversion = segment.converted
            if conversion == "print":
                print_between(name, env)
                outcome = None
            else:
                outcome = CONVERSIONS[conversion](env[name])  # the break itself, run eagerly
            following = segment.children.get(outcome)
            if type(following) is not Segment:  # not recorded yet (None), or a path that runs eagerly (its reason)
                return following, segment, outcome
            segment = following
