"""Chapter 16 (compilers): a symbolic tracer, a dead-code-elimination pass and a pointwise-fusion pass.

The three build-its work on *programs*: small modules written as rows ``(op, i, j)`` (step k computes value
``2 + k`` from values ``i`` and ``j``; values 0 and 1 are the inputs ``x`` and ``y``). ``ProgramModule`` turns a
program into an ``nn.Module`` whose ``forward`` runs the rows, so its graph holds every kind of FX node: operators
(``call_function``), tensor methods (``call_method``), submodules (``call_module``) and a parameter read in
``forward`` (``get_attr``). The notebook has the same ``ProgramModule`` and ``describe_graph``;
tests/grading/test_ch16_exercises.py checks that both agree, and that torch.fx's graph of the same module has the
references' node sequence.

The references are minitorch's own pieces: ``minitorch.fx.symbolic_trace`` (the tracer), ``Graph.
eliminate_dead_code`` (DCE); the fusion reference groups nodes by the rule of ``minitorch._inductor.fusion``
(a pointwise node joins the group of a pointwise input that has no other user) on the traced graph, so it can be
run on torch.fx's graph too. Expected values are computed, never written down; the public cases are inputs only.
"""

from __future__ import annotations

import operator

import numpy as np

import minitorch
import minitorch.nn as nn
from grading.compare import encode_texts
from grading.registry import exercise, randn
from minitorch import fx

ADD, MUL, SUB, RELU, SIGMOID, TANH, LINEAR, SCALE = range(8)  # the program's steps


class ProgramModule(nn.Module):
    """A module whose forward runs ``program``: ADD, MUL and SUB are operators, RELU, SIGMOID and TANH tensor
    methods, LINEAR the next of its ``linear0, linear1, ...`` layers, SCALE a product with its parameter
    ``scale``. Its weights are fixed by seeds, so two copies compute the same numbers."""

    def __init__(self, program, features):
        super().__init__()
        self.program = [tuple(int(v) for v in row) for row in np.asarray(program).reshape(-1, 3).tolist()]
        self.scale = nn.Parameter(minitorch.from_numpy(np.linspace(0.5, 1.5, features, dtype=np.float32)))
        layers = 0
        for op, _, _ in self.program:
            if op == LINEAR:
                rng = np.random.default_rng(1600 + layers)
                layer = nn.Linear(features, features)
                with minitorch.no_grad():
                    layer.weight.copy_(minitorch.from_numpy(
                        (rng.standard_normal((features, features)) / np.sqrt(features)).astype(np.float32)))
                    layer.bias.copy_(minitorch.from_numpy((0.1 * rng.standard_normal(features)).astype(np.float32)))
                setattr(self, f"linear{layers}", layer)
                layers += 1

    def forward(self, x, y):
        values, layers = [x, y], 0
        for op, i, j in self.program:
            a, b = values[i], values[j]
            if op == ADD:
                value = a + b
            elif op == MUL:
                value = a * b
            elif op == SUB:
                value = a - b
            elif op == RELU:
                value = a.relu()
            elif op == SIGMOID:
                value = a.sigmoid()
            elif op == TANH:
                value = a.tanh()
            elif op == LINEAR:
                value = getattr(self, f"linear{layers}")(a)
                layers += 1
            else:
                value = a * self.scale
            values.append(value)
        return values[-1]


def target_name(node) -> str:
    """A node's target as text: a function's name (``operator.add`` -> "add"), else the target itself."""
    return node.target.__name__ if node.op == "call_function" else str(node.target)


def describe_graph(graph_module, x, y):
    """What the checks compare: the graph module's result on (x, y), each node's op and target, and where each
    node's first two arguments come from (a node's position; -1 for a value that is no node, -2 for none)."""
    nodes = list(graph_module.graph.nodes)
    position = {node: index for index, node in enumerate(nodes)}
    arguments = np.full((len(nodes), 2), -2, dtype=np.int64)
    for row, node in enumerate(nodes):
        for column, argument in enumerate(node.args[:2]):
            arguments[row, column] = position.get(argument, -1) if isinstance(argument, fx.Node) else -1
    with minitorch.no_grad():
        result = graph_module(minitorch.from_numpy(x), minitorch.from_numpy(y)).numpy()
    return (result, encode_texts([node.op for node in nodes]), encode_texts([target_name(node) for node in nodes]),
            arguments)


OUTPUTS = ("the result of the graph on (x, y)", "each node's op", "each node's target",
           "where each node's first two arguments come from (node positions)")


def _program(*steps):
    return np.array(steps, dtype=np.int64).reshape(-1, 3)


# -- build it 1: a symbolic tracer -------------------------------------------------------------------------------
def _traced(program, x, y):
    return describe_graph(fx.symbolic_trace(ProgramModule(program, x.shape[-1])), x, y)


exercise(
    "ch16.trace_program",
    function="trace_program",
    withheld=("minitorch.fx.symbolic_trace", "minitorch.fx.Tracer", "minitorch.fx.Proxy",
              "minitorch.fx.proxy.Attribute"),
    reference=_traced,
    input_type="numpy",
    output_type="any",
    public=[
        (_program((ADD, 0, 1), (RELU, 2, 0)), randn(3, 4, seed=1601), randn(3, 4, seed=1602)),
        (_program((LINEAR, 0, 0), (MUL, 2, 1), (SIGMOID, 3, 0)), randn(2, 5, seed=1603), randn(2, 5, seed=1604)),
        (_program((SUB, 1, 0), (TANH, 2, 0)), randn(2, 3, seed=1607), randn(2, 3, seed=1608)),
        (_program((SCALE, 0, 0), (SUB, 2, 1), (SCALE, 3, 0)), randn(4, 3, seed=1605), randn(4, 3, seed=1606)),
    ],
    labels=[
        "x + y then .relu(): an operator is a call_function of operator.add, a tensor method a call_method",
        "a submodule called in forward is one call_module node named by its path in the module (linear0), "
        "not entered",
        "y - x: the operands keep their order (a - b records (a, b))",
        "a parameter read in forward (self.scale) is a get_attr node, made once per trace and reused",
    ],
    outputs=OUTPUTS,
    text_outputs=(2, 3),
    rtol=1e-5,
    atol=1e-6,
    hints=[
        "A tracer runs forward once on stand-ins (proxies) for x and y. A proxy holds no numbers, only the graph "
        "node that will compute its value; each operation on a proxy adds a node to the graph and returns a new "
        "proxy for it. The graph starts with one placeholder per argument of forward and ends with an output node.",
        "Four kinds of operation reach a proxy: an operator (its Python method, __add__, __mul__, __sub__, records "
        "call_function with the operator module's function), a tensor method (reached through __getattr__, recorded "
        "as call_method with the method's name when it is called), a submodule call (call_module with the "
        "submodule's dotted name) and a parameter read (get_attr with the parameter's name). The last two never "
        "reach a proxy: they go through nn.Module.__call__ and nn.Module.__getattr__, which a tracer swaps for "
        "the time of the trace, as torch.fx does.",
        "Store node arguments, not proxies: turn each proxy argument into its .node before create_node. Keep a dict "
        "from each parameter to its get_attr proxy so a second read reuses it. Swap the two Module methods in a try "
        "block and put them back in finally, even when forward fails; the name of a submodule is the one "
        "named_modules() gives it in the root.",
    ],
)


# -- build it 2: dead-code elimination ------------------------------------------------------------------------------
def _dead_code_eliminated(program, x, y):
    graph_module = fx.symbolic_trace(ProgramModule(program, x.shape[-1]))
    graph_module.graph.eliminate_dead_code()
    graph_module.recompile()
    return describe_graph(graph_module, x, y)


exercise(
    "ch16.dce_program",
    function="dce_program",
    withheld=("minitorch.fx.Graph.eliminate_dead_code", "minitorch._inductor.passes.eliminate_dead_code"),
    reference=_dead_code_eliminated,
    input_type="numpy",
    output_type="any",
    public=[
        (_program((RELU, 0, 0), (ADD, 0, 1)), randn(3, 4, seed=1611), randn(3, 4, seed=1612)),
        (_program((RELU, 0, 0)), randn(4, 2, seed=1615), randn(4, 2, seed=1616)),
        (_program((MUL, 0, 1), (TANH, 2, 0), (SIGMOID, 3, 0), (ADD, 0, 0)), randn(2, 3, seed=1613),
         randn(2, 3, seed=1614)),
        (_program((SCALE, 1, 0), (LINEAR, 0, 0), (SUB, 0, 1)), randn(2, 4, seed=1617), randn(2, 4, seed=1618)),
    ],
    labels=[
        "relu(x) is computed and never read: its node goes",
        "y is read by nothing, but a placeholder is an input of the program and stays, as the output node does",
        "a dead chain (x * y -> tanh -> sigmoid, none read by the result): removing the last node makes the one "
        "before it dead too",
        "a dead get_attr and a dead call_module go with the nodes that read them",
    ],
    outputs=OUTPUTS,
    text_outputs=(2, 3),
    rtol=1e-5,
    atol=1e-6,
    hints=[
        "A node is dead when no node reads its value (node.users is empty) and running it has no effect besides "
        "its value. Erasing a dead node can make the nodes it read dead in turn.",
        "Inputs (placeholder) and the result (output) are part of the program's interface: they always stay, read "
        "or not (Node.is_impure says which nodes must stay). Every other node with len(node.users) == 0 goes.",
        "One walk can be enough if it visits the nodes in an order where every reader of a node is visited (and "
        "erased, if dead) before the node itself; the graph's nodes are in the order they run. Erase with "
        "graph.erase_node, and return whether anything changed.",
    ],
)


# -- build it 3: pointwise fusion that generates code ---------------------------------------------------------------
POINTWISE_EXPRESSIONS = {  # each pointwise op as NumPy source on its operands' arrays
    "add": "({} + {})", "mul": "({} * {})", "sub": "({} - {})",
    "relu": "np.maximum({}, 0)", "sigmoid": "(1 / (1 + np.exp(-{})))", "tanh": "np.tanh({})",
}


def is_pointwise(node) -> bool:
    """An elementwise op on tensors: the three operators, or the three tensor methods."""
    if node.op == "call_function":
        return node.target in (operator.add, operator.mul, operator.sub)
    return node.op == "call_method" and node.target in ("relu", "sigmoid", "tanh")


def pointwise_groups(graph) -> list[list]:
    """The groups of pointwise nodes to fuse, each in graph order: a pointwise node joins the group of a pointwise
    input that has no other user (that value then never needs to exist outside the kernel). Works on a
    minitorch.fx graph and on a torch.fx graph alike."""
    group_of: dict = {}
    for node in graph.nodes:
        if not is_pointwise(node):
            continue
        group = [node]
        for argument in node.all_input_nodes:
            if argument in group_of and len(argument.users) == 1 and group_of[argument] is not group:
                group = group_of[argument] + [member for member in group if member not in group_of[argument]]
                for member in group:
                    group_of[member] = group
        group_of[node] = group
    order = {node: index for index, node in enumerate(graph.nodes)}
    unique = {id(group): group for group in group_of.values()}.values()
    return sorted((sorted(group, key=order.__getitem__) for group in unique), key=lambda group: order[group[-1]])


def _kernel(group):
    """The generated function for ``group`` and the nodes it reads from outside the group, in first-read order."""
    inputs, expression = [], {}
    for node in group:
        for argument in node.args:
            if argument not in group and argument not in inputs:
                inputs.append(argument)
    for node in group:
        operands = [expression[argument] if argument in expression else f"in_{inputs.index(argument)}"
                    for argument in node.args]
        expression[node] = POINTWISE_EXPRESSIONS[target_name(node)].format(*operands)
    name = "fused_" + "_".join(target_name(node) for node in group)
    parameters = ", ".join(f"in_{index}" for index in range(len(inputs)))
    source = (f"def {name}({parameters}):\n"
              + "".join(f"    in_{index} = in_{index}.detach().numpy()\n" for index in range(len(inputs)))
              + f"    return minitorch.from_numpy(np.asarray({expression[group[-1]]}))\n")
    namespace = {"np": np, "minitorch": minitorch}
    exec(compile(source, f"<{name}>", "exec"), namespace)
    return namespace[name], inputs


def _fused(program, x, y):
    graph_module = fx.symbolic_trace(ProgramModule(program, x.shape[-1]))
    graph = graph_module.graph
    for group in pointwise_groups(graph):
        kernel, inputs = _kernel(group)
        with graph.inserting_before(group[-1]):
            fused = graph.call_function(kernel, tuple(inputs))
        group[-1].replace_all_uses_with(fused)
        for node in reversed(group):
            graph.erase_node(node)
    graph_module.recompile()
    return describe_graph(graph_module, x, y)


exercise(
    "ch16.fusion_program",
    function="fusion_program",
    withheld=("minitorch._inductor.fusion.find_groups", "minitorch._inductor.fusion.fuse_pointwise",
              "minitorch._inductor.fusion.FusedKernel"),
    reference=_fused,
    input_type="numpy",
    output_type="any",
    public=[
        (_program((MUL, 0, 1), (ADD, 2, 0), (RELU, 3, 0)), randn(3, 4, seed=1621), randn(3, 4, seed=1622)),
        (_program((ADD, 1, 0), (LINEAR, 2, 0), (SIGMOID, 3, 0), (MUL, 4, 1)), randn(2, 5, seed=1623),
         randn(2, 5, seed=1624)),
        (_program((TANH, 0, 0), (MUL, 2, 2), (ADD, 2, 3)), randn(4, 3, seed=1625), randn(4, 3, seed=1626)),
        (_program((SCALE, 0, 0), (RELU, 2, 0), (SUB, 3, 1)), randn(2, 3, seed=1627), randn(2, 3, seed=1628)),
    ],
    labels=[
        "x * y + x then relu: one chain, one kernel fused_mul_add_relu reading x and y",
        "a Linear between two chains is no pointwise op: it ends one kernel and the next starts after it",
        "tanh(x) is read twice (by the product and by the sum): a value with two users stays outside the kernel "
        "that reads it",
        "x * scale: the parameter is one more input of the kernel (a get_attr node stays outside it); y - relu, "
        "operands in order",
    ],
    outputs=OUTPUTS,
    text_outputs=(2, 3),
    rtol=1e-5,
    atol=1e-6,
    hints=[
        "Fusion turns a chain of elementwise ops into one function that computes the whole chain in one expression, "
        "so no intermediate value is kept as a tensor between the ops. Three steps: find the groups, write each "
        "group's code, put one node calling that code in place of the group.",
        "Grouping rule: walk the nodes in order; a pointwise node starts a group, and joins the group of each "
        "pointwise input whose only user it is (len(input.users) == 1). The kernel's inputs are the values the group "
        "reads from outside it, in the order the group's nodes first read them; its name is 'fused_' and the "
        "targets' names joined by '_' (fused_mul_add_relu).",
        "Generate the source as text: each node's expression is its op's NumPy template with its operands' "
        "expressions filled in (an input is in_0, in_1...), the last node's expression is what the function "
        "returns; exec the text with np and minitorch in its namespace. Then insert a call_function node before the "
        "group's last node, move the last node's users to it (replace_all_uses_with) and erase the group's nodes, "
        "the last first.",
    ],
)
