"""Chapter 2 (autograd): a custom Function's backward, central differences, a Hessian-vector product.

The references are closed forms computed with NumPy (independent of the autograd they check);
the public cases are inputs only.
"""

import numpy as np

import minitorch
from grading.registry import exercise, randn
from grading.withhold import DERIVATIVES

# What the grader withholds while an exercise that rebuilds the engine is graded (grading._runner._withhold):
# every public way to run backward, so that a submission must walk the graph (or its own Values) itself.
AUTOGRAD_ENGINE = (
    "minitorch.Tensor.backward",
    "minitorch.autograd.backward",
    "minitorch.autograd.grad",
    "minitorch.autograd.graph.step_backward",
    "minitorch.autograd.engine.run_backward",
)


def _sigmoid(values):
    return 1.0 / (1.0 + np.exp(-values))


def _silu_with_grad(x, grad_output):
    """y = x * sigmoid(x); dx = grad_output * (s + x * s * (1 - s)) = grad_output * s * (1 + x * (1 - s))."""
    values, upstream = x.numpy(), grad_output.numpy()
    s = _sigmoid(values)
    return (values * s).astype(values.dtype), (upstream * s * (1 + values * (1 - s))).astype(values.dtype)


exercise(
    "ch02.silu_with_grad",
    function="silu_with_grad",
    # F.silu, and every derivative minitorch knows: the given wrapper runs the engine (y.backward), so the engine
    # stays; what may not run is a gradient autograd derives from minitorch's ops instead of SiLU's own backward
    withheld=("minitorch.nn.functional.silu", DERIVATIVES),
    reference=_silu_with_grad,
    public=[
        (np.array([-3.0, -1.0, 0.0, 0.5, 2.0], dtype=np.float32), np.ones(5, dtype=np.float32)),
        (randn(3, 4, seed=200, scale=2.0), randn(3, 4, seed=201)),
    ],
    atol=1e-5,
    hints=[
        "forward computes y from x; backward must return dL/dx, the local derivative dy/dx times the gradient that "
        "arrives (grad_output), entry by entry.",
        "y = x * s(x) is a product of two functions of x; s = sigmoid, whose derivative can be written with s itself.",
        "Save in forward what backward needs, apply the product rule to get dy/dx, and multiply by grad_output: "
        "the second case's grad_output is not all ones.",
    ],)


def wiggly(x):
    """The numerical-gradient exercise's function: f(x) = sum(sin(x) * x**2) + sin(sum(x)), a scalar.

    The second term couples every entry to every other (f is not a sum of one term per entry), so a loop that
    nudges x in place and forgets to restore it gets the later entries' slopes wrong.
    """
    return (x.sin() * x**2).sum() + x.sum().sin()


def _numerical_gradient(x, eps):
    # Nudging entry j changes its own term sin(x_j) x_j**2 and the shared term sin(S), S = sum(x), by the same
    # amounts for every j: the central difference of f is the two differences added, for every entry at once.
    values = x.numpy().astype(np.float64)

    def term(v):
        return np.sin(v) * v**2

    total = values.sum()
    own = (term(values + eps) - term(values - eps)) / (2 * eps)
    shared = (np.sin(total + eps) - np.sin(total - eps)) / (2 * eps)
    return minitorch.from_numpy((own + shared).astype(x.numpy().dtype))


exercise(
    "ch02.numerical_gradient",
    function="numerical_gradient",
    withheld=AUTOGRAD_ENGINE,
    reference=_numerical_gradient,
    public=[
        (randn(5, seed=210, dtype="float64"), 1e-3),
        (randn(2, 3, seed=211, dtype="float64"), 1e-4),
    ],
    rtol=1e-6,
    atol=1e-8,
    hints=[
        "Estimate each partial derivative on its own: move one entry a little up, a little down, and see how much "
        "the function's value changes, with every other entry exactly as it was.",
        "∂f/∂x_j ≈ (f(x + ε e_j) − f(x − ε e_j)) / (2ε), with e_j one at entry j and zero elsewhere.",
        "Loop j over the entries of a flattened copy; build the two nudged inputs from fresh copies (clone) each "
        "time, so that x itself, and the next entry's estimate, never see an earlier nudge. Reshape at the end.",
    ],
)


def _hessian_vector_product(x, v):
    """f(x) = logsumexp(x) over all entries; grad f = p = softmax(x); H v = p * v - p * (p . v)."""
    values, direction = x.numpy(), v.numpy()
    p = np.exp(values - values.max())
    p = p / p.sum()
    return (p * direction - p * (p * direction).sum()).astype(values.dtype)


exercise(
    "ch02.hessian_vector_product",
    function="hessian_vector_product",
    reference=_hessian_vector_product,
    public=[
        (np.array([0.0, 1.0, 2.0], dtype=np.float64), np.array([1.0, 0.0, 0.0], dtype=np.float64)),
        (randn(4, seed=220, dtype="float64"), randn(4, seed=221, dtype="float64")),
        (randn(2, 3, seed=222, dtype="float64"), randn(2, 3, seed=223, dtype="float64")),
    ],
    rtol=1e-7,
    atol=1e-10,
    hints=[
        "H v is the derivative of (grad f) . v with respect to x: differentiate twice, without ever forming H.",
        "With g(x) = grad f(x), H v = grad of the scalar g(x) . v. The first gradient must itself be recorded as a "
        "graph, so that it can be differentiated again (autograd.grad's create_graph).",
        "Take the first gradient keeping its graph, form the scalar with v, and take the gradient of that scalar "
        "with respect to x.",
    ],)


# -- build it: autograd from scratch ----------------------------------------------------------------
# A "program" is an int64 array of steps (op, i, j) applied to a growing list of values that starts with the
# inputs: op 0 appends values[i] + values[j], 1 values[i] * values[j], 2 values[i] ** j (j an integer exponent),
# 3 tanh(values[i]), 4 exp(values[i]). The last value is the result. The notebook runs the same program on the
# learner's classes; hidden cases use programs (graph shapes) the public ones do not show.
ADD, MUL, POW, TANH, EXP = range(5)


def _run_program(program, values):
    values = list(values)
    for op, i, j in np.asarray(program).tolist():
        if op == ADD:
            values.append(values[i] + values[j])
        elif op == MUL:
            values.append(values[i] * values[j])
        elif op == POW:
            values.append(values[i] ** j)
        elif op == TANH:
            values.append(values[i].tanh())
        else:
            values.append(values[i].exp())
    return values[-1]


def _grads(leaves):
    return [minitorch.zeros_like(leaf) if leaf.grad is None else leaf.grad for leaf in leaves]


def _value_program(program, inputs):
    """The result and the inputs' gradients, by minitorch's autograd on float64 scalars."""
    leaves = [minitorch.tensor(value, dtype=minitorch.float64, requires_grad=True) for value in inputs.tolist()]
    result = _run_program(program, leaves)
    result.backward()
    return np.array(result.item()), np.array([grad.item() for grad in _grads(leaves)])


def _program(*steps):
    return np.array(steps, dtype=np.int64).reshape(-1, 3)


exercise(
    "ch02.value_program",
    function="value_program",
    withheld=AUTOGRAD_ENGINE,
    reference=_value_program,
    input_type="numpy",
    output_type="any",
    public=[
        (_program((ADD, 0, 1)), np.array([2.0, -3.0])),
        (_program((MUL, 0, 1)), np.array([1.5, -2.0])),
        (_program((MUL, 0, 0), (ADD, 1, 0)), np.array([3.0])),
        (_program((TANH, 0, 0), (EXP, 1, 0), (MUL, 2, 3)), np.array([0.5, -1.0])),
        (_program((POW, 0, 3), (POW, 0, -1), (ADD, 1, 2)), np.array([1.7])),
        (_program((TANH, 0, 0), (MUL, 1, 1), (ADD, 2, 1), (EXP, 3, 0)), np.array([0.3])),
        (_program((MUL, 0, 1)), np.array([2.0, 4.0, -1.0])),
    ],
    labels=[
        "a + b",
        "a * b",
        "a used twice: a * a + a (gradients from several uses add up)",
        "tanh(a) * exp(b): the derivatives of tanh and exp",
        "a ** 3 + a ** -1: the power rule",
        "tanh(a) feeds two paths that meet again: every gradient must arrive before a value passes its own on",
        "an input that is not used: its gradient stays 0",
    ],
    outputs=("result", "input gradients"),
    rtol=1e-9,
    atol=1e-12,
    hints=[
        "Each operation returns a new Value that remembers its children and, for each child, the local derivative "
        "d(result)/d(child) at these numbers. backward then applies the chain rule from the output back: a child's "
        "gradient gains (local derivative) × (the parent's gradient), once per use.",
        "Local derivatives: a + b → (1, 1); a · b → (b, a); aⁿ → n·aⁿ⁻¹; tanh a → 1 − tanh²a; exp a → exp a. "
        "backward sets the output's grad to 1 and lets a value pass its gradient on only once every value computed "
        "from it has passed on its own, adding into each child's grad (+=, never =).",
        "Count first how many times each value is used (one walk from the output through the children, one count "
        "per use). The output is ready at once; when a ready value passes its gradient to a child, lower that "
        "child's count, and a child whose count reaches 0 is ready in turn. Keep math.tanh and math.exp for the "
        "numbers.",
    ],
)


def _is_topological(order, root) -> bool:
    position = {node: index for index, node in enumerate(order)}
    from minitorch.autograd import graph

    reachable = graph.nodes(root)
    if len(position) != len(order) or set(position) != set(reachable):
        return False
    return all(
        position[node] < position[child] for node in reachable for child, _ in node.next_functions if child is not None
    )


def _backward_program(program, a, b):
    """True (the engine's order is topological), and the leaf gradients after two backward passes by minitorch."""
    leaves = [minitorch.tensor(a, requires_grad=True), minitorch.tensor(b, requires_grad=True)]
    loss = _run_program(program, leaves).sum()
    loss.backward(retain_graph=True)
    loss.backward()
    grad_a, grad_b = _grads(leaves)
    return np.array(True), grad_a, grad_b


exercise(
    "ch02.backward_program",
    function="backward_program",
    withheld=AUTOGRAD_ENGINE,
    reference=_backward_program,
    input_type="numpy",
    output_type="any",
    public=[
        (_program((MUL, 0, 1)), randn(3, seed=230, dtype="float64"), randn(3, seed=231, dtype="float64")),
        (
            _program((MUL, 0, 0), (ADD, 2, 1)),
            randn(2, 2, seed=232, dtype="float64"),
            randn(2, 2, seed=233, dtype="float64"),
        ),
        (
            _program((MUL, 0, 1), (TANH, 2, 0), (MUL, 3, 3), (ADD, 2, 4)),
            randn(4, seed=234, dtype="float64"),
            randn(4, seed=235, dtype="float64"),
        ),
        (
            _program((MUL, 0, 1), (EXP, 2, 0)),
            randn(3, 1, seed=236, dtype="float64"),
            randn(1, 4, seed=237, dtype="float64"),
        ),
    ],
    labels=[
        "a * b, summed (run twice: the second pass adds to .grad)",
        "a leaf used twice: a * a + b (a leaf's .grad adds up its uses)",
        "c = a * b reached by two paths: c + tanh(c) * tanh(c) (a node runs once, after all its gradients arrived)",
        "broadcasting: a of shape (3, 1) times b of shape (1, 4)",
    ],
    outputs=("order is topological", "a.grad", "b.grad"),
    rtol=1e-9,
    atol=1e-12,
    hints=[
        "The engine's job in two parts. The order: every node before the nodes it sends gradients to "
        "(next_functions), so that a node runs only once all its gradients have arrived. The loop: keep a "
        "gradient per node, run each node in that order, hand what it returns to its next nodes.",
        "Order: count the edges that lead into each reachable node; a node whose count is 0 can come next, and "
        "placing it lowers the counts of the nodes in its next_functions. Loop: start with d(loss)/d(loss) = 1 for "
        "the root; a node's incoming gradients are summed; graph.call_node(node, gradient) gives one gradient per "
        "next_functions entry (None: nothing to send).",
        "A dictionary from node to its summed gradient does the bookkeeping. At a leaf's node "
        "(graph.leaf_tensor(node) is not None) add into the tensor's .grad (it may be None the first time) "
        "instead of calling the node.",
    ],
)


def _broadcast_mul_backward(a, b, grad_output):
    """y = a * b and the two gradients, by minitorch's autograd (its engine reduces broadcast gradients)."""
    a, b = a.detach().requires_grad_(), b.detach().requires_grad_()
    y = a * b
    y.backward(grad_output)
    return y.detach(), a.grad, b.grad


exercise(
    "ch02.broadcast_mul_backward",
    function="broadcast_mul_backward",
    withheld=AUTOGRAD_ENGINE,
    reference=_broadcast_mul_backward,
    public=[
        (
            randn(2, 3, seed=240, dtype="float64"),
            randn(3, seed=241, dtype="float64"),
            randn(2, 3, seed=242, dtype="float64"),
        ),
        (
            randn(4, 1, seed=243, dtype="float64"),
            randn(4, 5, seed=244, dtype="float64"),
            randn(4, 5, seed=245, dtype="float64"),
        ),
        (
            randn(3, 1, seed=246, dtype="float64"),
            randn(1, 4, seed=247, dtype="float64"),
            randn(3, 4, seed=248, dtype="float64"),
        ),
        (
            randn(seed=249, dtype="float64"),
            randn(2, 3, seed=250, dtype="float64"),
            randn(2, 3, seed=251, dtype="float64"),
        ),
    ],
    labels=[
        "b (3,) broadcast along a new leading dimension of a (2, 3)",
        "a (4, 1) broadcast along its dimension of size 1",
        "both broadcast: a (3, 1) times b (1, 4)",
        "a 0-d tensor times a (2, 3) matrix",
    ],
    outputs=("y", "grad_a", "grad_b"),
    rtol=1e-9,
    atol=1e-12,
    hints=[
        "Broadcasting copies an input along some dimensions; every copy contributed to the output, so the input's "
        "gradient is the sum of the gradients of its copies. The gradient of each factor is grad_output times the "
        "other factor, then summed back to the factor's own shape.",
        "Aligning shapes from the right: the dimensions grad has in front of the input's are summed away; a "
        "dimension where the input has size 1 and grad does not is summed with keepdim=True, so it stays 1.",
        "sum_to_shape: count the extra leading dimensions and sum over them; then collect the positions where the "
        "target size is 1 and sum over those with keepdim=True (skip a sum over no dimensions).",
    ],
)


# -- build it: Function.apply with ctx, AccumulateGrad, and the engine's ready queue -----------------
# The same programs, on the chapter's small Tensor, with a mask saying which inputs require grad. Nodes are
# named by the value they made: the node of step k is value len(inputs) + k, and a leaf's AccumulateGrad is the
# leaf's own index. The references run minitorch's graph (its nodes are PyTorch's: next_functions with (None, 0)
# for an input that needs no gradient, one AccumulateGrad per leaf, a node per step that needs a gradient);
# tests/grading/test_ch02_exercises.py checks that PyTorch's graph and engine give the same answers.
NO_INPUT, NO_SECOND_INPUT, NO_NODE = -1, -2, -3  # the graph's entries that are not a value's index
FIRST_GRADIENT, SECOND_GRADIENT = 1.5, 0.25  # what record_program feeds each leaf's AccumulateGrad, in turn


def _program_values(program, leaves):
    values = list(leaves)
    for op, i, j in np.asarray(program).tolist():
        values.append(_run_program(np.array([[op, i, j]]), values))
    return values


def _minitorch_leaves(inputs, requires_grad):
    return [
        minitorch.tensor(value, dtype=minitorch.float64, requires_grad=bool(flag))
        for value, flag in zip(np.asarray(inputs).tolist(), np.asarray(requires_grad).tolist())
    ]


def _node_labels(values, leaves):
    """{node: the index of the value it belongs to}: each step's grad_fn, and each leaf's AccumulateGrad."""
    from minitorch.autograd import graph

    labels = {value.grad_fn: index for index, value in enumerate(values) if value.grad_fn is not None}
    for node in list(labels):
        for next_node, _ in node.next_functions:
            leaf = None if next_node is None else graph.leaf_tensor(next_node)
            if leaf is not None:
                labels[next_node] = next(index for index, tensor in enumerate(leaves) if tensor is leaf)
    return labels


def _record_program(program, inputs, requires_grad):
    """What Function.apply recorded, by minitorch: the result; each step's next_functions (as value indices);
    what each step's node returns for grad_output 1; the AccumulateGrad nodes per leaf; the leaves' .grad after
    their AccumulateGrad is called with 1.5 and then 0.25; whether sequence numbers rise in creation order."""
    from minitorch.autograd import graph

    leaves = _minitorch_leaves(inputs, requires_grad)
    values = _program_values(program, leaves)
    labels = _node_labels(values, leaves)
    edges = np.full((len(values) - len(leaves), 2), NO_SECOND_INPUT, dtype=np.int64)
    local = np.full(edges.shape, np.nan)
    for row, value in enumerate(values[len(leaves) :]):
        node = value.grad_fn
        if node is None:
            edges[row] = NO_NODE
            continue
        gradients = graph.call_node(node, minitorch.ones_like(value))
        for column, ((next_node, _), gradient) in enumerate(zip(node.next_functions, gradients)):
            edges[row, column] = NO_INPUT if next_node is None else labels[next_node]
            local[row, column] = np.nan if gradient is None else gradient.item()
    accumulators = np.zeros(len(leaves), dtype=np.int64)
    accumulated = np.full((len(leaves), 2), np.nan)
    for node, index in labels.items():
        if graph.leaf_tensor(node) is not None:
            accumulators[index] += 1
            accumulated[index] = FIRST_GRADIENT, FIRST_GRADIENT + SECOND_GRADIENT
    numbers = [graph.sequence_number(value.grad_fn) for value in values if value.grad_fn is not None]
    rising = bool(all(earlier < later for earlier, later in zip(numbers, numbers[1:])))
    return np.array(values[-1].item()), edges, local, accumulators, accumulated, np.array(rising)


def canonical_order(labels, leaf_count):
    """The order of node calls, with each run of AccumulateGrad calls (labels below leaf_count) sorted.

    PyTorch gives every AccumulateGrad the same, highest sequence number (UINT64_MAX), so leaves that become
    ready together run before any other node but in an order its heap leaves open: only the set is fixed.
    """
    order, run = [], []
    for label in list(labels) + [None]:
        if label is not None and label < leaf_count:
            run.append(label)
            continue
        order += sorted(run)
        run = []
        if label is not None:
            order.append(label)
    return np.array(order, dtype=np.int64)


def _engine_program(program, inputs, requires_grad):
    """The result, the inputs' .grad (nan where None) and the order minitorch's engine calls the nodes in."""
    from minitorch.autograd import graph

    leaves = _minitorch_leaves(inputs, requires_grad)
    values = _program_values(program, leaves)
    labels = _node_labels(values, leaves)
    calls = [labels[step.node] for step in graph.step_backward(values[-1])]
    gradients = np.array([np.nan if leaf.grad is None else leaf.grad.item() for leaf in leaves])
    return np.array(values[-1].item()), gradients, canonical_order(calls, len(leaves))


def _mask(*flags):
    return np.array(flags, dtype=bool)


exercise(
    "ch02.record_program",
    function="record_program",
    withheld=(*AUTOGRAD_ENGINE, "minitorch.autograd.Function.apply"),
    reference=_record_program,
    input_type="numpy",
    output_type="any",
    public=[
        (_program((MUL, 0, 1)), np.array([1.5, -2.0]), _mask(True, True)),
        (_program((MUL, 0, 0), (TANH, 1, 0), (ADD, 2, 0)), np.array([-0.4]), _mask(True)),
        (_program((MUL, 0, 1), (ADD, 2, 0)), np.array([0.8, 3.0]), _mask(True, False)),
        (_program((POW, 0, 3), (POW, 1, -2)), np.array([1.3]), _mask(True)),
        (_program((EXP, 1, 0), (MUL, 0, 2)), np.array([0.6, -0.7]), _mask(True, False)),
        (_program((ADD, 0, 1), (EXP, 2, 0)), np.array([0.2, 0.9]), _mask(False, False)),
    ],
    labels=[
        "a * b: forward on the inputs' arrays, a node whose next_functions are the two leaves' AccumulateGrad, "
        "each storing the first gradient it gets and adding the next",
        "tanh(a * a) + a: a leaf used three times has one AccumulateGrad, and the nodes take rising sequence "
        "numbers",
        "a * b + a with b not requiring grad: b's edge is None, and Mul's backward returns None for it "
        "(ctx.needs_input_grad)",
        "(a ** 3) ** -2: the exponent is a non-tensor argument kept on ctx, and Pow's backward needs its input "
        "(save the input, not the output)",
        "a * exp(b), b not requiring grad: exp(b) needs no gradient, so it records no node",
        "exp(a + b) with no input requiring grad: nothing is recorded",
    ],
    outputs=(
        "result",
        "next_functions of each step's node",
        "what each node returns for grad_output 1",
        "AccumulateGrad nodes per leaf",
        ".grad after AccumulateGrad(1.5) then AccumulateGrad(0.25)",
        "sequence numbers rise in creation order",
    ),
    rtol=1e-9,
    atol=1e-12,
    hints=[
        "apply does three things: work out which inputs need a gradient; run forward on the inputs' arrays with a "
        "fresh ctx; and, only when some input needs a gradient, make ctx the result's grad_fn, linked to where "
        "each tensor input's gradient must go next. A leaf's gradient goes to its AccumulateGrad, the same node "
        "for every use of that leaf.",
        "needs_input_grad[k] is True exactly when argument k is a Tensor with requires_grad. A tensor input's "
        "edge is (None, 0) when it needs no gradient, (its grad_fn, 0) when it has one, and otherwise (its "
        "accumulator, 0). In backward, an input with needs_input_grad False gets None. AccumulateGrad: "
        ".grad = g the first time, .grad = .grad + g afterwards.",
        "In apply: ctx = Context(cls, args); set ctx.needs_input_grad; result = Tensor(cls.forward(ctx, ...)) "
        "with each Tensor argument replaced by its .data; if any input needs a gradient, fill "
        "ctx.next_functions (tensor arguments only) and ctx.sequence_nr (the next number of sequence_numbers), "
        "then set the result's requires_grad and grad_fn. Make a leaf's accumulator once and keep it in "
        "leaf.grad_accumulator. Pow keeps the exponent as an attribute of ctx.",
    ],
)


exercise(
    "ch02.engine_program",
    function="engine_program",
    withheld=AUTOGRAD_ENGINE,
    reference=_engine_program,
    input_type="numpy",
    output_type="any",
    public=[
        (_program((MUL, 0, 1)), np.array([1.5, -2.0]), _mask(True, True)),
        (_program((MUL, 0, 1), (EXP, 0, 0), (ADD, 2, 3)), np.array([0.3, -1.1]), _mask(True, True)),
        (_program((MUL, 0, 1), (TANH, 2, 0), (MUL, 2, 3), (ADD, 4, 2)), np.array([0.7, 0.4]), _mask(True, True)),
        (
            _program((TANH, 0, 0), (EXP, 1, 0), (MUL, 2, 2), (MUL, 3, 3), (ADD, 4, 5)),
            np.array([0.5, -0.3]),
            _mask(True, True),
        ),
        (_program((EXP, 1, 0), (MUL, 0, 2), (ADD, 3, 0)), np.array([0.6, 0.2]), _mask(True, False)),
    ],
    labels=[
        "a * b: the root's node, then the leaves",
        "a * b + exp(a): exp(a), created after a * b, runs before it; a leaf used twice gets its gradients summed, "
        "and its AccumulateGrad runs once, as soon as both have arrived",
        "c = a * b used three times (shared subgraph): c's node runs once, after every gradient for it arrived, "
        "and the gradients are summed",
        "two branches built interleaved: among the ready nodes PyTorch runs the one created last (the highest "
        "sequence number), which a depth-first order does not follow",
        "b does not require grad: exp(b) has no node, and b gets no .grad",
    ],
    outputs=(
        "result",
        "the inputs' .grad (nan where None)",
        "order of node calls (PyTorch's: of the ready nodes, the one with the highest sequence_nr first)",
    ),
    rtol=1e-9,
    atol=1e-12,
    hints=[
        "A node may run only when every gradient meant for it has arrived: count, before running anything, how "
        "many edges lead into each node reachable from the root. Then keep the nodes that are ready (their count "
        "has reached 0) and run them one at a time; running a node hands a gradient to each next node and lowers "
        "its count.",
        "Which ready node first? PyTorch's CPU engine keeps them in a priority queue on sequence_nr and takes the "
        "highest: the node created last (AccumulateGrad's sequence number is the largest of all, so a leaf's "
        "gradient is stored as soon as it is complete). Gradients for the same node from several uses are added "
        "in a buffer, never replaced.",
        "Walk the graph once from tensor.grad_fn through next_functions to fill a dict node -> count (any walk "
        "order will do; visit each node's edges once). Start a buffer dict with the root's gradient (ones), and a "
        "heapq of (-sequence_nr, a tie-breaking counter, node) holding the root. Loop: pop, call the node on its "
        "buffered gradient, and for each (next node, gradient) pair that is not None add into the next node's "
        "buffer, lower its count, push it when the count is 0.",
    ],
)
