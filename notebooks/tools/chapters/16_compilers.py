"""Chapter 16: compilers. What a graph capture sees and misses (minitorch.compile, guards, graph breaks, explain), the
FX graph (print_tabular, code), three build-its (a symbolic tracer, dead-code elimination, pointwise fusion that
generates code), and a measured table of eager and compiled minitorch against eager PyTorch."""

import textwrap

from author import code, md, solution, tests, write

PROGRAM_MODULE = '''
ADD, MUL, SUB, RELU, SIGMOID, TANH, LINEAR, SCALE = range(8)  # the program's steps


class ProgramModule(nn.Module):
    """A module whose forward runs `program`: ADD, MUL and SUB are operators, RELU, SIGMOID and TANH tensor
    methods, LINEAR the next of its `linear0, linear1, ...` layers, SCALE a product with its parameter
    `scale`. Its weights are fixed by seeds, so two copies compute the same numbers."""

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


def target_name(node):
    """A node's target as text: a function's name (`operator.add` -> "add"), else the target itself."""
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
'''

cells = [
    md(r"""
    # 16. Compilers: from a Python program to a graph, and from a graph to faster code

    Every chapter so far ran **eagerly**: each line of Python calls one op, the op computes at once, and the next line
    starts from its result. That is what makes PyTorch easy to debug, and it is also its cost: every op pays Python's
    price (a function call, argument checks, a new array, a node for autograd) however small its arithmetic.
    Since PyTorch 2, `torch.compile(model)` removes much of that price: it **captures** the program into a graph
    (TorchDynamo), represents it as an **FX graph** (`torch.fx`), and hands the graph to a **compiler** (Inductor)
    that rewrites it (removes dead code, folds constants) and **fuses** chains of elementwise ops into one generated
    kernel. minitorch has the same pieces, small enough to read: `minitorch.compile`, `minitorch.fx`, and
    `minitorch._inductor`.

    By the end of this chapter you will be able to:

    * say what a capture **sees** (the ops of one call, with **guards** on what it assumed) and what it **misses**
      (a branch on a tensor's value: a **graph break**), and read `minitorch._dynamo.explain`'s report;
    * read an **FX graph**: `graph.print_tabular()` and the Python it generates (`.code`);
    * build a **symbolic tracer** (proxies that record what is done to them), a **dead-code elimination** pass, and a
      **pointwise fusion** pass that writes the code of its kernels;
    * measure what compiling buys on the course's MLP and a transformer block, beside PyTorch.
    """),
    code("""
    import shutil
    import time

    import numpy as np
    from threadpoolctl import threadpool_limits  # installed with scikit-learn: one BLAS thread for fair timings

    import minitorch
    import minitorch.nn as nn
    from grading import check, hint, randn, summary  # noqa: F401 (hint("<exercise>") shows hints, step by step)
    from minitorch import fx
    from minitorch._dynamo.testing import CompileCounter

    torch = None
    try:
        import torch
        torch.set_num_threads(1)
        print("PyTorch", torch.__version__, "is installed: the timing table has a PyTorch column.")
    except Exception:
        print("PyTorch is not installed: the timing table leaves its column out (pip install torch to see it).")
    """),
    md(r"""
    ## 1. What a capture sees

    `minitorch.compile(function)` (PyTorch's `torch.compile`, same arguments) returns a function that, on its first
    call, runs the original once while **recording** every op it calls into a graph, hands the graph to a
    **backend** (the compiler) and keeps what the backend returns. Later calls skip Python's op-by-op path and run
    the compiled graph. A backend is any function `backend(graph_module, example_inputs)` that returns something to
    call: `CompileCounter` (PyTorch's testing backend of the same name) counts the graphs it is given and runs them
    as they are.

    A recorded graph is only right for inputs like the ones it was recorded with: the same shapes, dtypes and
    devices, the same `requires_grad`, the same training mode. The capture writes these assumptions down as
    **guards** and checks them at every call; when one fails, it **recompiles** for the new inputs (and keeps both
    graphs).
    """),
    code("""
    counter = CompileCounter()


    def gelu_like(x):
        return x * (1.702 * x).sigmoid()


    compiled = minitorch.compile(gelu_like, backend=counter)
    for label, x in [("a (4, 8) float32 input", minitorch.randn(4, 8)),
                     ("another (4, 8) float32 input", minitorch.randn(4, 8)),
                     ("a (16, 8) input: the shape guard fails", minitorch.randn(16, 8)),
                     ("a float64 input: the dtype guard fails", minitorch.randn(16, 8, dtype=minitorch.float64)),
                     ("the (4, 8) float32 input again", minitorch.randn(4, 8))]:
        result = compiled(x)
        assert minitorch.allclose(result, gelu_like(x))
        print(f"{label:42s} -> graphs compiled so far: {counter.frame_count}")
    print()
    counter.graphs[0].graph.print_tabular()
    """),
    md(r"""
    The count grows only when a guard fails; an input that matches an earlier graph's guards reuses that graph. The
    table is the first captured graph: one row per recorded op, each a `call_function` whose target is the op that ran
    (minitorch's capture records at `Function.apply`, below the Python of `gelu_like`).

    ## 2. What a capture misses: graph breaks

    A graph is a fixed list of ops. A Python `if` on a tensor's **value** chooses between two lists, and which one
    depends on numbers that exist only when the function runs: `if x.sum() > 0:` calls `bool()` on a tensor. The
    capture cannot put both ways into one graph, so it **breaks**: it compiles the ops before the branch as one
    graph, runs the branch itself in Python, and compiles what follows as another graph.
    `minitorch._dynamo.explain` (PyTorch's `torch._dynamo.explain`) counts the graphs and says why and where it
    broke. `.item()` (a tensor's value as a Python number) breaks for the same reason. The way out is to say the
    branch with tensor ops, which a graph can hold: `minitorch.where(condition, a, b)` computes both sides and
    picks per element.
    """),
    code("""
    def branchy(x):
        y = x.sin() * 2
        if y.sum() > 0:          # a Python branch on a tensor's value
            return y.relu()
        return y - 1


    def branch_free(x):
        y = x.sin() * 2
        return minitorch.where(y.sum() > 0, y.relu(), y - 1)   # both sides computed, one picked: one graph


    x = minitorch.randn(6)
    for function in (branchy, branch_free):
        report = minitorch._dynamo.explain(function)(x)
        print(f"{function.__name__}: {report.graph_count} graph(s), {report.graph_break_count} graph break(s)")
        for reason in report.break_reasons:
            print("   reason:", reason.reason)
    print(minitorch._dynamo.explain(branchy)(x))
    """),
    md(r"""
    Read the counts above: `branchy` became two graphs with one break between them, as PyTorch's own `explain`
    reports for the same function; each way the branch goes is recorded the first time it is taken. `branch_free`
    is one graph and no break, at the price of computing both sides.

    ## 3. The FX graph

    The capture above records ops as they run. `minitorch.fx.symbolic_trace(module)` (PyTorch's `torch.fx.
    symbolic_trace`) gets a graph another way, **without running any arithmetic**: it calls `forward` once with
    **proxies** in place of the inputs, objects that hold no numbers and write down every operation done to them.
    The result is a `GraphModule`: a module whose `graph` is a list of `Node`s, each with an `op` (what kind of
    operation), a `target` (which one), `args` (other nodes, or constants) and `users` (the nodes that read it):

    | op | what it does | target |
    | --- | --- | --- |
    | `placeholder` | an input of `forward` | the argument's name |
    | `get_attr` | reads a parameter or buffer of the module | its name (`"scale"`) |
    | `call_function` | calls a function (operators included) | the function (`operator.add`, `minitorch.relu`) |
    | `call_method` | calls a tensor method | the method's name (`"relu"`) |
    | `call_module` | calls a submodule's forward | the submodule's dotted name (`"fc1"`) |
    | `output` | the result of `forward` | `"output"` |

    `graph.print_tabular()` lists the nodes, and `.code` is Python that the graph module generated from its graph
    and runs as its `forward`. This is the course's MLP (chapter 4):
    """),
    code("""
    class MLP(nn.Module):
        def __init__(self, sizes=(64, 128, 64, 10)):
            super().__init__()
            self.fc1, self.fc2, self.fc3 = (nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))

        def forward(self, x):
            x = minitorch.relu(self.fc1(x))
            x = self.fc2(x).relu()
            return self.fc3(x)


    mlp = MLP()
    traced = fx.symbolic_trace(mlp)
    traced.graph.print_tabular()
    print(traced.code)
    x = minitorch.randn(5, 64)
    print("the traced module computes what the module does:", minitorch.allclose(traced(x), mlp(x)))
    """),
    md(r"""
    `minitorch.relu(...)` became a `call_function` and `.relu()` a `call_method`: the graph keeps how the program said
    it. The `Linear` layers are `call_module` nodes, not entered: a tracer treats the library's own layers as
    **leaves** (`Tracer.is_leaf_module`), which keeps the graph at the level of the model's code. PyTorch's
    `torch.fx.symbolic_trace` gives the same nodes for the same module (the tests of `minitorch.fx` compare them).

    The `GraphStepper` of chapter 2 draws FX graphs too: `widgets.GraphStepper.from_fx(graph_module, *inputs)` runs
    the graph on `inputs` one node at a time, one frame per node, each node labelled with its op, its target and the
    value it made (chapter 2's `GraphStepper(loss)` draws the **autograd** graph of a computation that ran; this
    one draws the program). Below, the traced MLP, then the graph that `minitorch.compile` captured from `gelu_like`
    (section 1) after its default backend **fused** `x * (1.702 * x).sigmoid()` into one generated kernel (section
    6 builds such a pass). The kernel is one box, folded: click it (or call `fused_stepper.expand()`) to unfold it
    into the pointwise ops it runs in one call, each with its value.
    """),
    code("""
    from IPython.display import display

    import widgets
    from minitorch._inductor.compile_fx import compile_fx

    display(widgets.GraphStepper.from_fx(traced, x))

    fused_graphs = []


    def keep_fused_graph(graph_module, example_inputs):  # the default backend, keeping the graph it fused
        compiled_graph = compile_fx(graph_module, example_inputs)
        fused_graphs.append((graph_module, example_inputs))
        return compiled_graph


    with minitorch.no_grad():
        minitorch.compile(gelu_like, backend=keep_fused_graph)(x)
    fused_graph, example_inputs = fused_graphs[0]
    print(fused_graph.code)
    fused_stepper = widgets.GraphStepper.from_fx(fused_graph, *example_inputs)
    fused_stepper
    """),
    md(r"""
    A proxy has no value, so symbolic tracing meets the same wall as the capture, earlier: a branch on a proxy stops
    the trace with PyTorch's `TraceError`.
    """),
    code("""
    class Branchy(nn.Module):
        def forward(self, x):
            return x.relu() if x.sum() > 0 else -x


    try:
        fx.symbolic_trace(Branchy())
    except fx.TraceError as error:
        print("TraceError:", error)
    """),
    md(r"""
    ## 4. Build it: a symbolic tracer

    The exercises of this chapter work on small modules written as **programs**: rows `(op, i, j)`, where step `k`
    computes value `2 + k` from values `i` and `j` (values 0 and 1 are the inputs `x` and `y`). `ProgramModule`
    turns a program into a module whose graph holds every kind of node: `ADD`, `MUL` and `SUB` are operators,
    `RELU`, `SIGMOID` and `TANH` tensor methods, `LINEAR` a call of the next of its `Linear` layers (`linear0`,
    `linear1`...), and `SCALE` multiplies by its parameter `scale`. `describe_graph(graph_module, x, y)` reports what
    the checks compare: the graph's result on `(x, y)`, each node's op and target, and which nodes each node reads.
    Both are at the top of the next cell (run it, even before you write anything: the later exercises use them).
    """),
    md(r"""
    ### Exercise 1: a tracer

    Write `trace(root)`: it returns a `fx.GraphModule(root, graph)` whose `graph` (a `fx.Graph` you fill) has the
    nodes `minitorch.fx.symbolic_trace(root)` records, for modules like `ProgramModule`. What you write:

    * `Proxy`: holds a `node` and the `tracer`; `a + b`, `a * b` and `a - b` record a `call_function` of
      `operator.add`, `operator.mul`, `operator.sub` with the operands in order; a method call (`a.relu()`) records
      a `call_method` whose target is the method's name and whose first argument is the proxy;
    * `Tracer.create_proxy(op, target, args)`: adds a node with `graph.create_node(op, target, args, {})` (proxies in
      `args` replaced by their nodes) and returns a proxy for it;
    * `Tracer.call_module(module, args)`: a submodule call is one `call_module` node whose target is the submodule's
      dotted name in the root (`"linear0"`);
    * `Tracer.read_parameter(parameter)`: a parameter read in `forward` is a `get_attr` node named as in
      `named_parameters()`, made once per trace (a second read reuses the proxy);
    * `trace(root)`: one `graph.placeholder(name)` per argument of `forward` (after `self`), then `forward` run on
      their proxies with `nn.Module.__call__` and `nn.Module.__getattr__` swapped (a submodule call goes to
      `call_module`; an attribute that is an `nn.Parameter` goes to `read_parameter`) and put back afterwards
      whatever happens, then `graph.output(...)` with the result's node.

    `trace_program(program, x, y)` (written for you, at the end of the cell) traces a `ProgramModule` with your
    tracer and describes the graph; the check compares it with `minitorch.fx.symbolic_trace`'s graph of the same
    module (and the tests of the kit with `torch.fx`'s). `minitorch.fx`'s tracer is withheld while it is graded.
    """),
    solution('''
    import inspect
    import operator

    from grading.compare import encode_texts
    from minitorch import fx
    ''' + textwrap.indent(PROGRAM_MODULE, "    ") + '''

    class Proxy:
        """A stand-in for a tensor while tracing: every operation on it adds a node to the tracer's graph."""

        def __init__(self, node, tracer):
            self.node = node
            self.tracer = tracer

        def __repr__(self):
            return f"Proxy({self.node.name})"

        def __add__(self, other):
            ### BEGIN SOLUTION
            return self.tracer.create_proxy("call_function", operator.add, (self, other))
            ### END SOLUTION

        def __mul__(self, other):
            ### BEGIN SOLUTION
            return self.tracer.create_proxy("call_function", operator.mul, (self, other))
            ### END SOLUTION

        def __sub__(self, other):
            ### BEGIN SOLUTION
            return self.tracer.create_proxy("call_function", operator.sub, (self, other))
            ### END SOLUTION

        def __getattr__(self, name):
            """`proxy.relu` (any name a proxy does not have): a function that records the method call."""
            if name.startswith("__"):  # copy, pickle and friends probe for these
                raise AttributeError(name)
            ### BEGIN SOLUTION
            def record_method(*args):
                return self.tracer.create_proxy("call_method", name, (self, *args))

            return record_method
            ### END SOLUTION


    class Tracer:
        def __init__(self, root):
            self.root = root
            self.graph = fx.Graph()
            self.parameter_proxies = {}  # id(parameter) -> its get_attr proxy

        def create_proxy(self, op, target, args):
            """Add a node for one operation (proxies in args become their nodes) and return its proxy."""
            ### BEGIN SOLUTION
            node_args = tuple(arg.node if isinstance(arg, Proxy) else arg for arg in args)
            return Proxy(self.graph.create_node(op, target, node_args, {}), self)
            ### END SOLUTION

        def call_module(self, module, args):
            """A submodule call: one call_module node, targeted by the submodule's dotted name in the root."""
            ### BEGIN SOLUTION
            path = next(name for name, candidate in self.root.named_modules() if candidate is module)
            return self.create_proxy("call_module", path, args)
            ### END SOLUTION

        def read_parameter(self, parameter):
            """A parameter read in forward: one get_attr node per parameter and trace."""
            ### BEGIN SOLUTION
            key = id(parameter)
            if key not in self.parameter_proxies:
                path = next(name for name, candidate in self.root.named_parameters() if candidate is parameter)
                self.parameter_proxies[key] = self.create_proxy("get_attr", path, ())
            return self.parameter_proxies[key]
            ### END SOLUTION


    def trace(root):
        """root's forward as a GraphModule, recorded by running forward on proxies."""
        tracer = Tracer(root)
        ### BEGIN SOLUTION
        names = list(inspect.signature(type(root).forward).parameters)[1:]
        proxies = [Proxy(tracer.graph.placeholder(name), tracer) for name in names]
        original_call, original_getattr = nn.Module.__call__, nn.Module.__getattr__

        def module_call(module, *args):
            return tracer.call_module(module, args)

        def module_getattr(module, name):
            value = original_getattr(module, name)
            return tracer.read_parameter(value) if isinstance(value, nn.Parameter) else value

        nn.Module.__call__, nn.Module.__getattr__ = module_call, module_getattr
        try:
            result = type(root).forward(root, *proxies)
        finally:
            nn.Module.__call__, nn.Module.__getattr__ = original_call, original_getattr
        tracer.graph.output(result.node)
        ### END SOLUTION
        return fx.GraphModule(root, tracer.graph)


    def trace_program(program, x, y):
        """Your tracer's graph of ProgramModule(program), described as the check compares it."""
        return describe_graph(trace(ProgramModule(program, x.shape[-1])), x, y)
    ''', "ch16-trace"),
    tests("""
    check("ch16.trace_program", trace_program)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    ADD, MUL, SUB, RELU, SIGMOID, TANH, LINEAR, SCALE = range(8)  # the program's steps, as above

    check_hidden("ch16.trace_program", trace_program, [
        (np.array([[LINEAR, 1, 0], [SCALE, 0, 0], [MUL, 2, 3], [LINEAR, 4, 0], [SUB, 5, 3]]),
         randn(3, 6, seed=16101), randn(3, 6, seed=16102)),
        (np.array([[TANH, 0, 0], [SCALE, 2, 0], [SCALE, 1, 0], [ADD, 3, 4], [SIGMOID, 5, 0]]),
         randn(5, 2, seed=16103), randn(5, 2, seed=16104)),
        (np.array([[SUB, 0, 0], [MUL, 1, 2], [RELU, 3, 0]]), randn(1, 7, seed=16105), randn(1, 7, seed=16106)),
    ])
    ### END HIDDEN TESTS
    """, "ch16-trace-tests", points=3),
    md(r"""
    Your tracer's code next to `minitorch.fx`'s, for a module with a layer, a parameter and three operations:
    """),
    code("""
    example = ProgramModule(np.array([[LINEAR, 0, 0], [SCALE, 2, 0], [ADD, 3, 1], [RELU, 4, 0]]), features=4)
    reference_graph = fx.symbolic_trace(example)
    print("minitorch.fx:")
    print(reference_graph.code)
    try:
        mine = trace(example)
        print("yours:")
        print(mine.code)
    except NotImplementedError:
        print("(your trace is not written yet)")
    """),
    md(r"""
    ## 5. Build it: dead-code elimination

    A traced graph holds every op the program ran, including ops whose result nobody reads: a value computed for a
    debugging print that was removed, a branch of a model that this configuration does not use. **Dead-code
    elimination** (DCE) removes them. A node is dead when no node reads it (`node.users` is empty) and running it
    does nothing else; erasing it may leave the nodes it read without users, dead in turn. The inputs (placeholder)
    and the result (output) are the program's interface and always stay; so does a call with a side effect, which
    `Node.is_impure()` recognises (`print`, `operator.setitem`...). PyTorch's pass is `Graph.eliminate_dead_code()`;
    `minitorch.compile`'s default backend runs it on every captured graph.

    ### Exercise 2: eliminate dead code

    Write `eliminate_dead_code(graph)`: erase (with `graph.erase_node(node)`) every node that is not impure and has
    no users, until none is left, and return `True` if anything was erased. Erasing a node that still has users is an
    error (`erase_node` refuses), so the order matters. `dce_program(program, x, y)` (written for you) traces a
    `ProgramModule` with `minitorch.fx`, runs your pass, and describes what is left. `Graph.eliminate_dead_code` is
    withheld while it is graded.
    """),
    solution('''
    def eliminate_dead_code(graph):
        """Erase the nodes nobody reads (inputs, the output and impure calls stay); True when any was erased."""
        ### BEGIN SOLUTION
        changed = False
        for node in reversed(list(graph.nodes)):
            if not node.is_impure() and len(node.users) == 0:
                graph.erase_node(node)
                changed = True
        return changed
        ### END SOLUTION


    def dce_program(program, x, y):
        """ProgramModule(program) traced by minitorch.fx, then your pass: described as the check compares it."""
        graph_module = fx.symbolic_trace(ProgramModule(program, x.shape[-1]))
        eliminate_dead_code(graph_module.graph)
        graph_module.recompile()
        return describe_graph(graph_module, x, y)
    ''', "ch16-dce"),
    tests("""
    check("ch16.dce_program", dce_program)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    ADD, MUL, SUB, RELU, SIGMOID, TANH, LINEAR, SCALE = range(8)  # the program's steps, as above

    check_hidden("ch16.dce_program", dce_program, [
        (np.array([[LINEAR, 0, 0], [RELU, 2, 0], [SCALE, 3, 0], [TANH, 1, 0], [MUL, 0, 5]]),
         randn(3, 5, seed=16201), randn(3, 5, seed=16202)),
        (np.array([[ADD, 0, 1], [SUB, 2, 0], [MUL, 3, 3], [SIGMOID, 1, 0], [RELU, 5, 0], [ADD, 2, 1]]),
         randn(2, 2, seed=16203), randn(2, 2, seed=16204)),
        (np.array([[TANH, 1, 0]]), randn(6, 3, seed=16205), randn(6, 3, seed=16206)),
    ])
    ### END HIDDEN TESTS
    """, "ch16-dce-tests", points=2),
    md(r"""
    ## 6. Build it: pointwise fusion that generates code

    `(x * y + x).relu()` run eagerly is three ops: three trips through `Function.apply`, three new arrays, each
    read back from memory by the next op. Each of these ops is **pointwise**: element `i` of its result needs only
    element `i` of its inputs. A chain of pointwise ops can therefore run as **one** function, written by the
    compiler, that computes the whole chain in one expression: a **fused kernel**. Inductor writes such kernels in
    Triton (GPU) or C++ (CPU); minitorch's writes NumPy, and so will yours:

    ```python
    def fused_mul_add_relu(in_0, in_1):
        in_0 = in_0.detach().numpy()
        in_1 = in_1.detach().numpy()
        return minitorch.from_numpy(np.asarray(np.maximum(((in_0 * in_1) + in_0), 0)))
    ```

    Which nodes may share a kernel? A pointwise node joins the kernel of a pointwise node it reads **only when it is
    that node's only user**: a value read by a second node must exist as a tensor after all, so it ends its kernel
    (the rule of `minitorch._inductor.fusion` and, in spirit, Inductor's). Every group therefore ends in one node,
    whose users read the kernel's result. A non-pointwise node (a `Linear`) ends a chain.

    ### Exercise 3: fuse pointwise chains

    `is_pointwise(node)` and the templates `POINTWISE_EXPRESSIONS` are given. Write:

    * `pointwise_groups(graph)`: the groups, each a list of nodes in graph order, the groups in the order of their
      last nodes: walk the nodes in order; a pointwise node starts a group, and joins the group of each pointwise
      input whose only user it is (groups merge);
    * `generate_kernel(group)`: returns `(function, inputs)`: `inputs` are the nodes the group reads from outside it,
      in the order the group's nodes first read them; the function, named `fused_` + the targets' names joined by
      `_`, takes one tensor per input and computes the group's last value in one NumPy expression (each node's
      template filled with its operands' expressions), made from source text with `exec` (as above);
    * `fuse_pointwise(graph_module)`: for each group, insert a `call_function` node of the kernel on its inputs
      before the group's last node (`graph.inserting_before(node)`, `graph.call_function(function, args)`), move the
      last node's users to it (`replace_all_uses_with`), erase the group's nodes (last first), and recompile.

    `fusion_program(program, x, y)` (written for you) traces a `ProgramModule`, runs your pass and describes the
    result. minitorch's fusion pass is withheld while it is graded.
    """),
    solution('''
    POINTWISE_EXPRESSIONS = {  # each pointwise op as NumPy source on its operands
        "add": "({} + {})", "mul": "({} * {})", "sub": "({} - {})",
        "relu": "np.maximum({}, 0)", "sigmoid": "(1 / (1 + np.exp(-{})))", "tanh": "np.tanh({})",
    }


    def is_pointwise(node):
        """An elementwise op on tensors: the three operators, or the three tensor methods."""
        if node.op == "call_function":
            return node.target in (operator.add, operator.mul, operator.sub)
        return node.op == "call_method" and node.target in ("relu", "sigmoid", "tanh")


    def pointwise_groups(graph):
        """The groups of pointwise nodes that share a kernel, each in graph order, ordered by their last node."""
        ### BEGIN SOLUTION
        group_of = {}
        for node in graph.nodes:
            if not is_pointwise(node):
                continue
            merged = [node]
            for source in node.all_input_nodes:
                if source in group_of and len(source.users) == 1 and group_of[source] is not merged:
                    merged = group_of[source] + [member for member in merged if member not in group_of[source]]
                    for member in merged:
                        group_of[member] = merged
            group_of[node] = merged
        position = {node: index for index, node in enumerate(graph.nodes)}
        groups = {id(group): sorted(group, key=position.get) for group in group_of.values()}
        return sorted(groups.values(), key=lambda group: position[group[-1]])
        ### END SOLUTION


    def generate_kernel(group):
        """(the generated function computing the group, the nodes it reads from outside the group)."""
        ### BEGIN SOLUTION
        inputs = []
        for arg in (arg for node in group for arg in node.args):
            if arg not in group and arg not in inputs:
                inputs.append(arg)
        text = {}
        for node in group:
            operands = [text[arg] if arg in text else f"in_{inputs.index(arg)}" for arg in node.args]
            text[node] = POINTWISE_EXPRESSIONS[target_name(node)].format(*operands)
        name = "fused_" + "_".join(target_name(node) for node in group)
        lines = [f"def {name}({', '.join(f'in_{k}' for k in range(len(inputs)))}):"]
        lines += [f"    in_{k} = in_{k}.detach().numpy()" for k in range(len(inputs))]
        lines.append(f"    return minitorch.from_numpy(np.asarray({text[group[-1]]}))")
        namespace = {"np": np, "minitorch": minitorch}
        exec("\\n".join(lines), namespace)
        return namespace[name], inputs
        ### END SOLUTION


    def fuse_pointwise(graph_module):
        """Replace each pointwise group by one call of its generated kernel; returns the kernels."""
        ### BEGIN SOLUTION
        graph, kernels = graph_module.graph, []
        for group in pointwise_groups(graph):
            kernel, inputs = generate_kernel(group)
            with graph.inserting_before(group[-1]):
                fused = graph.call_function(kernel, tuple(inputs))
            group[-1].replace_all_uses_with(fused)
            for node in reversed(group):
                graph.erase_node(node)
            kernels.append(kernel)
        graph_module.recompile()
        return kernels
        ### END SOLUTION


    def fusion_program(program, x, y):
        """ProgramModule(program) traced by minitorch.fx, then your fusion pass: described as the check compares it."""
        graph_module = fx.symbolic_trace(ProgramModule(program, x.shape[-1]))
        fuse_pointwise(graph_module)
        return describe_graph(graph_module, x, y)
    ''', "ch16-fusion"),
    tests("""
    check("ch16.fusion_program", fusion_program)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    ADD, MUL, SUB, RELU, SIGMOID, TANH, LINEAR, SCALE = range(8)  # the program's steps, as above

    check_hidden("ch16.fusion_program", fusion_program, [
        (np.array([[MUL, 0, 1], [SIGMOID, 2, 0], [LINEAR, 3, 0], [SCALE, 4, 0], [TANH, 5, 0], [ADD, 6, 1]]),
         randn(3, 6, seed=16301), randn(3, 6, seed=16302)),
        (np.array([[SUB, 0, 1], [RELU, 2, 0], [MUL, 2, 3], [SIGMOID, 4, 0]]), randn(2, 4, seed=16303),
         randn(2, 4, seed=16304)),
        (np.array([[ADD, 0, 1], [MUL, 1, 0], [SUB, 2, 3], [TANH, 4, 0]]), randn(5, 2, seed=16305),
         randn(5, 2, seed=16306)),
    ])
    ### END HIDDEN TESTS
    """, "ch16-fusion-tests", points=3),
    md(r"""
    The graph of a program with two chains around a `Linear`, after fusion, and the code of its kernels: yours, or
    minitorch's compiler's until yours is written (its kernels write into buffers allocated once, and come with a
    generated backward, `minitorch/_inductor/fusion.py`).
    """),
    code("""
    chains = ProgramModule(np.array([[MUL, 0, 1], [ADD, 2, 0], [RELU, 3, 0], [LINEAR, 4, 0], [SIGMOID, 5, 0],
                                     [MUL, 6, 1]]), features=4)
    x, y = minitorch.randn(3, 4), minitorch.randn(3, 4)
    try:
        fused_module = fx.symbolic_trace(chains)
        for kernel in fuse_pointwise(fused_module):
            print(f"{kernel.__name__}: {kernel.__code__.co_argcount} inputs")
        print(fused_module.code)
        with minitorch.no_grad():
            same = minitorch.allclose(fused_module(x, y), chains(x, y))
        print("the fused graph computes what the module does:", same)
    except NotImplementedError:
        from minitorch._inductor.compile_fx import compile_fx

        compiled_graphs = []

        def keep_compiled(graph_module, example_inputs):
            compiled_graphs.append(compile_fx(graph_module, example_inputs))
            return compiled_graphs[-1]

        with minitorch.no_grad():
            minitorch.compile(chains, backend=keep_compiled)(x, y)
        print("fuse_pointwise is not written yet: minitorch's kernels")
        for kernel in compiled_graphs[0].kernels:
            print(kernel.source)
    """),
    md(r"""
    ## 7. What compiling buys: a measured table

    Two workloads, each on **one thread**, float32: a **training step** of the course's MLP (64-128-64-10, ReLU,
    cross-entropy, SGD with momentum, a batch of 64) and the **inference** of a transformer block
    (`nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=256)`, 8 sequences of 32) under `no_grad`.
    For minitorch, eagerly and compiled (`minitorch.compile`'s default backend: DCE, constant folding, pointwise
    fusion, and the forward and backward generated as one function each); for PyTorch, eagerly. Every round times
    each variant in turn (in an order that rotates) on this process's CPU time, and the table gives the median over
    the rounds, which ignores the rounds a busy neighbour slowed down; the last column is the median of the rounds'
    ratios. The compiled results are checked against eager's first.

    `torch.compile` is off by default here: its default backend (Inductor) writes and compiles C++ for this CPU on
    the first call, which takes a minute or more, longer than this whole chapter is meant to run. Set
    `TIME_TORCH_COMPILE = True` in the cell below to add its column (it needs a C++ compiler on the machine);
    `python benchmarks/compile.py --torch-compile` runs the same comparison from a terminal.
    """),
    code("""
    def mlp_step(lib, compiled):
        rng = np.random.default_rng(0)
        sizes = (64, 128, 64, 10)
        layers = []
        for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
            layers += [lib.nn.Linear(fan_in, fan_out), lib.nn.ReLU()]
        model = lib.nn.Sequential(*layers[:-1])
        with lib.no_grad():
            for parameter in model.parameters():
                parameter.copy_(lib.tensor(rng.uniform(-0.1, 0.1, tuple(parameter.shape)).astype(np.float32)))
        images, labels = lib.tensor(rng.random((64, 64), dtype=np.float32)), lib.tensor(rng.integers(0, 10, 64))
        optimizer = lib.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

        def loss_of(x, y):
            return lib.nn.functional.cross_entropy(model(x), y)

        loss_function = lib.compile(loss_of) if compiled else loss_of

        def step():
            optimizer.zero_grad()
            loss = loss_function(images, labels)
            loss.backward()
            optimizer.step()
            return loss

        return step


    def encoder_inference(lib, compiled):
        lib.manual_seed(0)
        layer = lib.nn.TransformerEncoderLayer(64, 4, dim_feedforward=256, dropout=0.0, batch_first=True).eval()
        source = lib.tensor(np.random.default_rng(1).standard_normal((8, 32, 64)).astype(np.float32))
        run_layer = lib.compile(layer) if compiled else layer

        def infer():
            with lib.no_grad():
                return run_layer(source)

        return infer


    TIME_TORCH_COMPILE = False  # True: add torch.compile (its first call compiles C++ for a minute or more)
    workloads = {"MLP training step": mlp_step, "transformer block inference": encoder_inference}
    timings, ratios, started = {}, {}, time.perf_counter()
    with threadpool_limits(limits=1):
        for workload, build in workloads.items():
            variants = {"minitorch eager": build(minitorch, False), "minitorch compiled": build(minitorch, True)}
            if torch is not None:
                variants["PyTorch eager"] = build(torch, False)
                if TIME_TORCH_COMPILE and shutil.which("c++"):
                    variants["PyTorch compiled"] = build(torch, True)
            for _ in range(3):  # warm up; the compiled variants capture and compile on their first call
                eager_result, compiled_result = variants["minitorch eager"](), variants["minitorch compiled"]()
                for name in set(variants) - {"minitorch eager", "minitorch compiled"}:
                    variants[name]()
            assert np.allclose(eager_result.detach().numpy(), compiled_result.detach().numpy(), rtol=1e-4, atol=1e-5)
            names, rounds = list(variants), {name: [] for name in variants}
            for round_number in range(13):
                for name in names[round_number % len(names):] + names[:round_number % len(names)]:
                    begin = time.process_time()  # this process's CPU time: a busy neighbour's share is not counted
                    for _ in range(10):
                        variants[name]()
                    rounds[name].append((time.process_time() - begin) / 10)
            timings[workload] = {name: float(np.median(values)) for name, values in rounds.items()}
            ratios[workload] = float(np.median(np.divide(rounds["minitorch eager"], rounds["minitorch compiled"])))

    columns = list(next(iter(timings.values())))
    print(f"{'':30s}" + "".join(f"{name:>20s}" for name in columns) + f"{'eager / compiled':>19s}")
    for workload, row in timings.items():
        print(f"{workload:30s}" + "".join(f"{row[name] * 1e6:17.0f} µs" for name in columns)
              + f"{ratios[workload]:18.2f}x")
    print(f"(measured in {time.perf_counter() - started:.1f} s)")
    """),
    code("""
    for workload, row in timings.items():
        speedup = ratios[workload]
        verdict = "faster" if speedup > 1 else "not faster"
        line = f"{workload}: compiled minitorch is {speedup:.2f}x eager minitorch's speed ({verdict})"
        if "PyTorch eager" in row:
            line += f"; it takes {row['minitorch compiled'] / row['PyTorch eager']:.2f}x PyTorch eager's time"
        print(line)
    """),
    md(r"""
    Read the two lines above with the table. Where compiled minitorch is faster than eager minitorch, the gain is the
    Python that compiling removed: one generated function per graph instead of one `Function.apply` per op, fused
    kernels that skip the intermediate tensors, and a backward written ahead of time instead of a graph of nodes
    walked by the engine. The ratio against PyTorch eager says how much of PyTorch's per-op advantage (C++
    dispatch) that recovers; on these small sizes most of the time is per-op overhead rather than arithmetic, which
    is exactly the part a compiler removes. The matrix products themselves run in the same BLAS either way, so a
    workload dominated by large products gains little. Where a line says "not faster", the Python that compiling
    removed was a smaller share of that workload's time than what it adds: checking the guards at every call, and
    the generated program's own steps. On a machine that other programs share the ratios move from run
    to run, most for the workload whose gain is smallest: rerun the cell to see how far.

    ## Summary

    * `minitorch.compile(f)` records the ops of one call into a graph, guarded by what it assumed (shapes, dtypes,
      devices, `requires_grad`, training mode); a failed guard recompiles. A branch on a tensor's value (`bool`,
      `.item()`) is a **graph break**: the ops around it become separate graphs and the branch runs in Python;
      `minitorch._dynamo.explain` counts them and says why; `where` says the same branch with tensor ops.
    * `fx.symbolic_trace(module)` records `forward` on proxies into an FX graph of `placeholder`, `get_attr`,
      `call_function`, `call_method`, `call_module` and `output` nodes; `graph.print_tabular()` lists it and `.code`
      is the Python it runs. Data-dependent control flow stops it with a `TraceError`.
    * A tracer is proxies whose operators and methods record nodes, plus `Module.__call__` and `Module.__getattr__`
      swapped for the time of the trace (submodules and parameters).
    * Dead-code elimination walks the graph backwards and erases what nobody reads, keeping inputs, the output and
      side effects.
    * Pointwise fusion groups chains of elementwise ops whose intermediate values have one user, writes each group as
      one generated function, and puts one node in its place.
    """),
    code("""
    summary("ch16")
    """),
]

write("16_compilers", cells)
