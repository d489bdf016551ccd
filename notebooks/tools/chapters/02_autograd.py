"""Chapter 2: autograd. The dynamic graph, backward and .grad, accumulation, no_grad and detach,
non-leaf gradients, custom Functions, gradcheck, gradients of gradients; the graph stepper throughout."""

from author import code, md, solution, tests, write

cells = [
    md(
        """
        # Chapter 2 · Autograd

        Training a network means nudging every parameter in the direction that lowers the loss, and that direction
        is the **gradient**: the derivative of the loss with respect to each parameter. A network may have millions
        of parameters; nobody writes those derivatives by hand. **Autograd** computes them, exactly, while your code
        stays ordinary Python.

        By the end of this chapter you will be able to:

        * explain how autograd records a **graph** of operations as your code runs, and why it is a new graph on every
          run (so `if` and loops just work);
        * step through that graph forward and backward with the **graph stepper** widget;
        * use `.backward()`, `.grad`, `requires_grad`, and know why gradients **accumulate** and when to zero them;
        * switch recording off with `no_grad`, cut a tensor out of the graph with `detach`, and keep an intermediate
          gradient with `retain_grad`;
        * say what happens to the graph when a tensor is **overwritten in place**, directly or through a view;
        * write your own differentiable operation as a `minitorch.autograd.Function`, and test it with `gradcheck`;
        * take **gradients of gradients** (`create_graph=True`), up to a Hessian-vector product;
        * **build autograd yourself**: a scalar `Value` class with backward by topological sort, the engine's loop on
          minitorch's own graphs, the reduction that broadcasting's backward needs, and then PyTorch's machinery on a
          small tensor of your own: `Function.apply` with `ctx`, `AccumulateGrad`, and the engine's dependency counts
          and ready queue, calling the nodes in PyTorch's order.
        """
    ),
    code(
        """
        import inspect
        import warnings

        import matplotlib.pyplot as plt
        import numpy as np

        import minitorch
        import widgets
        from grading import check, hint, randn, summary  # noqa: F401 (hint("<exercise>") shows hints, step by step)
        from minitorch.autograd import graph

        minitorch.manual_seed(0);
        """
    ),
    md(
        """
        ## 1. A first gradient

        Mark a tensor with `requires_grad=True` and minitorch records every operation that uses it. Call `.backward()`
        on a result and the derivative arrives in the tensor's `.grad`.

        For `y = 3x² + x`, calculus says `dy/dx = 6x + 1`, which is 13 at `x = 2`:
        """
    ),
    code(
        """
        x = minitorch.tensor(2.0, requires_grad=True)
        y = 3 * x**2 + x
        print(y)                  # grad_fn: the last operation recorded
        y.backward()
        print("dy/dx at 2:", x.grad)
        """
    ),
    md(
        """
        Each result remembers the operation that made it in `.grad_fn`, a **node** of the graph (`AddBackward0`: "the
        backward of an addition"). Each node lists where the gradient goes next, in `next_functions`. Following those
        links from `y` walks the whole recording, down to `x`, whose node `AccumulateGrad` stores into `x.grad`:
        """
    ),
    code(
        """
        def print_graph(node, depth=0):
            print("    " * depth + node.name())
            for next_node, _ in node.next_functions:
                if next_node is not None:
                    print_graph(next_node, depth + 1)


        y = 3 * x**2 + x
        print_graph(y.grad_fn)
        print("x is a leaf:", x.is_leaf, "   y is a leaf:", y.is_leaf, "   y requires grad:", y.requires_grad)
        """
    ),
    md(
        """
        Tensors you create yourself (like `x`, or a model's weights) are **leaves**; results of operations are not.
        `requires_grad` spreads: any result computed from a tensor that requires grad requires grad too.

        The backward pass is the **chain rule** applied from the output to the leaves. Every node knows only its own
        local derivative: `MulBackward0` knows that for `y = a * b`, the gradient arriving at `y` is sent to `a` times
        `b`. The engine multiplies those local derivatives along every path and adds up the paths that meet. That is
        all; it just does it for any graph, of any size.

        ## 2. Watching the graph: the graph stepper

        `widgets.GraphStepper` shows this happening. Below, one neuron computes `tanh(w · x + b)`, and the loss is its
        squared distance to a target. Use **next**/**previous**, **play**, or drag the slider:

        * frame 0: the leaves (`w` and `b`, the tensors with `requires_grad=True`);
        * then one frame per forward operation, in the order they ran, each with the node it recorded;
        * then one frame per step of the **real** backward engine: each node receives the gradient of the loss with
          respect to its output and sends gradients to its inputs; at a leaf, `.grad` is filled.

        Pick a node in the list on the right to see its value, its gradient and what it saved for backward.
        `GraphStepper.capture(function, *args)` runs the function while watching it, and names the tensors after
        its local variables.
        """
    ),
    code(
        """
        w = minitorch.tensor([0.5, -0.3], requires_grad=True)
        b = minitorch.tensor(0.1, requires_grad=True)
        inputs = minitorch.tensor([1.0, 2.0])
        target = minitorch.tensor(0.8)


        def neuron_loss(inputs, target):
            weighted = (w * inputs).sum()
            output = (weighted + b).tanh()
            return (output - target) ** 2


        neuron = widgets.GraphStepper.capture(neuron_loss, inputs, target, names={"w": w, "b": b})
        neuron
        """
    ),
    md(
        """
        Building the stepper ran the real backward pass (exactly `loss.backward()`), so the leaves hold their
        gradients now. Each frame's caption is also available as text:
        """
    ),
    code(
        """
        print("w.grad =", w.grad, "  b.grad =", b.grad)
        for frame in range(neuron.frame_count - 3, neuron.frame_count):
            print("*", neuron.caption(frame))
        """
    ),
    md(
        """
        ## 3. The graph is built as the code runs, and differs every run

        PyTorch (and minitorch) are **define-by-run**: there is no separate description of the model to compile.
        The graph is whatever your Python code happened to do this time. An `if` that takes the other branch, or a
        loop that runs a different number of times, simply records different operations. Nothing special is needed,
        and each `backward()` follows exactly the path that was taken.

        Here the number of doublings depends on the input, and so does the final operation:
        """
    ),
    code(
        """
        def dynamic(x, w):
            h = x * w
            while h.abs().sum() < 4:     # a loop: as many doublings as this input needs
                h = h * 2
            if h.sum() > 0:              # a branch: depends on the values
                return h.relu().sum()
            return (h**2).mean()


        w = minitorch.tensor([0.5, 1.0], requires_grad=True)
        for x in [minitorch.tensor([1.0, 0.5]), minitorch.tensor([-0.25, -0.125])]:
            w.grad = None
            loss = dynamic(x, w)
            recorded = [node.name() for node in graph.forward_order(loss.grad_fn) if not graph.is_leaf_node(node)]
            loss.backward()
            print(f"x = {x.tolist()}: recorded {recorded}; w.grad = {w.grad.tolist()}")
        """
    ),
    md(
        """
        Two inputs, two different graphs. Step through both: the first takes two doublings and the `relu` branch, the
        second four doublings and the squared-mean branch.
        """
    ),
    code(
        """
        widgets.GraphStepper.capture(dynamic, minitorch.tensor([1.0, 0.5]), w)
        """
    ),
    code(
        """
        widgets.GraphStepper.capture(dynamic, minitorch.tensor([-0.25, -0.125]), w)
        """
    ),
    md(
        """
        The graph is freed once backward has used it, and the next forward pass records a new one. This is what makes
        debugging easy (you can print, branch and step through a model like any Python code) and what makes
        recurrent networks over sequences of different lengths natural (chapter 8).

        ## 4. `.backward()` and `.grad` in detail

        **Only a scalar can start backward without help.** The gradient of a vector with respect to a vector is a whole
        matrix (the Jacobian); backward computes something cheaper, the product of a vector with it. For a scalar loss
        that vector is just 1. For a non-scalar result, pass the vector yourself (`y.backward(gradient)`), or reduce to
        a scalar first: `y.sum().backward()` is the same as `y.backward(minitorch.ones_like(y))`.
        """
    ),
    code(
        """
        x = minitorch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x**2
        try:
            y.backward()
        except RuntimeError as error:
            print("RuntimeError:", error)

        y.backward(minitorch.ones_like(y))
        print("d(sum of x**2)/dx =", x.grad)          # 2x
        """
    ),
    md(
        """
        **The graph is used up by backward.** To save memory, the values saved for backward are freed as soon as
        backward has used them. A second backward through the same graph fails, unless the first one was asked to keep
        it with `retain_graph=True`:
        """
    ),
    code(
        """
        x = minitorch.tensor(1.0, requires_grad=True)
        loss = (x * x.exp()).sin()
        loss.backward()
        try:
            loss.backward()
        except RuntimeError as error:
            print("RuntimeError:", str(error)[:120], "...")
        """
    ),
    md(
        """
        ## 5. Gradients accumulate

        Backward **adds** into `.grad`; it never overwrites it. Two reasons:

        * when a tensor is used several times, its gradient is the *sum* over the uses (the chain rule adds up the
          paths); accumulating is how the engine does that sum;
        * it lets you add up the gradients of several small batches before one update (gradient accumulation).

        The price: you must clear `.grad` before each new gradient. Training loops do it every step
        (`optimizer.zero_grad()`, chapter 5, sets every `.grad` to `None`).
        """
    ),
    code(
        """
        x = minitorch.tensor(3.0, requires_grad=True)
        for attempt in range(3):
            (x**2).backward()                  # d(x**2)/dx = 6 each time ...
            print(f"after backward {attempt + 1}: x.grad = {x.grad.item()}")   # ... but .grad adds up

        x.grad = None                          # or: x.grad.zero_()
        (x**2).backward()
        print("after clearing:", x.grad.item())
        """
    ),
    md(
        """
        Within a single graph, a tensor used twice receives two contributions. In `x * x + x` the leaf `x` feeds the
        multiplication twice and the addition once: `d/dx = x + x + 1`. Step to the end and watch `x.grad` grow at
        the `AccumulateGrad` node:
        """
    ),
    code(
        """
        x = minitorch.tensor(3.0, requires_grad=True)
        total = x * x + x
        widgets.GraphStepper(total, names={"x": x, "total": total})
        """
    ),
    code(
        """
        print("x.grad =", x.grad.item(), "  (2 * 3 + 1 = 7)")
        """
    ),
    md(
        """
        ## 6. Switching recording off: `no_grad` and `detach`

        Recording costs time and memory. Inside `with minitorch.no_grad():` nothing is recorded: results do not
        require grad and have no `grad_fn`. Use it whenever you do not need gradients: evaluating a model, and
        **updating the parameters** (the update itself must not become part of the next graph).

        Here is all of it together: gradient descent fitting a line `y = w·x + b` to noisy points, by hand. Forward,
        backward, update under `no_grad`, clear the gradients, repeat.
        """
    ),
    code(
        """
        minitorch.manual_seed(0)
        points = minitorch.linspace(-1, 1, 50)
        labels = 2.0 * points - 0.5 + 0.1 * minitorch.randn(50)

        w = minitorch.tensor(0.0, requires_grad=True)
        b = minitorch.tensor(0.0, requires_grad=True)
        learning_rate = 0.3
        history = []
        for _ in range(60):
            loss = ((w * points + b - labels) ** 2).mean()   # forward: a new graph each step
            loss.backward()                                   # gradients into w.grad and b.grad
            with minitorch.no_grad():                         # the update is not recorded
                w -= learning_rate * w.grad
                b -= learning_rate * b.grad
            w.grad = None                                     # clear, or the next step would add to them
            b.grad = None
            history.append(loss.item())

        print(f"w = {w.item():.3f} (true 2.0), b = {b.item():.3f} (true -0.5), final loss {history[-1]:.4f}")
        figure, (loss_axis, fit_axis) = plt.subplots(1, 2, figsize=(10, 3))
        loss_axis.plot(history)
        loss_axis.set_yscale("log")
        loss_axis.set_xlabel("step")
        loss_axis.set_ylabel("mean squared error")
        fit_axis.scatter(points.numpy(), labels.numpy(), s=10, label="data")
        fit_axis.plot(points.numpy(), (w * points + b).detach().numpy(), color="tab:red", label="fitted line")
        fit_axis.legend()
        plt.tight_layout()
        plt.show()
        """
    ),
    md(
        """
        Without `no_grad`, the update `w -= ...` would be refused: changing a leaf that requires grad in place would
        silently corrupt what autograd recorded, so PyTorch (and minitorch) forbid it:
        """
    ),
    code(
        """
        try:
            w -= 0.1
        except RuntimeError as error:
            print("RuntimeError:", error)

        with minitorch.no_grad():
            doubled = w * 2
        print("computed under no_grad: requires_grad =", doubled.requires_grad, ", grad_fn =", doubled.grad_fn)
        """
    ),
    md(
        """
        `tensor.detach()` returns the same values (sharing memory) as a tensor with **no history**: gradients do not
        flow through it. It is a "stop gradient": in `x * x.detach()` the second factor counts as a constant, so the
        gradient is `x` rather than `2x`. It is how you feed a tensor to NumPy or plotting code (as above), or keep part
        of a computation fixed (a target network in reinforcement learning, for instance).
        """
    ),
    code(
        """
        x = minitorch.tensor(3.0, requires_grad=True)
        (x * x.detach()).backward()
        print("d(x * x.detach())/dx =", x.grad.item(), "   (it would be 6 without detach)")

        frozen = x.detach()
        print("frozen requires grad:", frozen.requires_grad, "  shares memory:", frozen.data_ptr() == x.data_ptr())
        """
    ),
    md(
        """
        In the graph, the detached copy of `x` is not a leaf you can reach: the `mul` node sends a gradient to only
        one of its two inputs.
        """
    ),
    code(
        """
        x = minitorch.tensor(3.0, requires_grad=True)
        product = x * x.detach()
        widgets.GraphStepper(product, names={"x": x, "product": product})
        """
    ),
    md(
        """
        ### Writing in place

        Operations whose names end in an underscore (`add_`, `mul_`, `relu_`, `zero_`) and augmented assignments
        (`+=`) overwrite a tensor's memory instead of making a new tensor. You just saw that a leaf that requires grad
        refuses them. On other tensors autograd follows them, with two rules:

        * Every tensor has a **version counter** (`tensor._version`) that each in-place write bumps. An operation that
          saved a tensor for its backward remembers the version it saw. If the tensor was overwritten since, backward
          stops with an error instead of silently using the wrong numbers.
        * Writing through a **view** (`h[0] += 1`, `h[:, 1].mul_(2)`) changes the base tensor too, so the base gets a
          new node, `CopySlices`: "the old base, with these elements replaced by the op's result". In backward, the
          gradient of the replaced elements goes through the op's backward; the other elements pass unchanged.
        """
    ),
    code(
        """
        x = minitorch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x.exp()                       # exp saves its result: backward needs exp(x)
        print("version before:", y._version)
        y.add_(1)
        print("version after add_:", y._version)
        try:
            y.sum().backward()
        except RuntimeError as error:
            print("RuntimeError:", str(error)[:120], "...")

        h = x * 2
        h[0].mul_(x[2])                   # a write through the view h[0]: h = [2 x0 x2, 2 x1, 2 x2]
        print("h =", h.detach(), "  h.grad_fn:", h.grad_fn.name())
        h.sum().backward()
        print("x.grad =", x.grad, "  (d/dx0 = 2 x2 = 6, d/dx2 = 2 + 2 x0 = 4)")
        """
    ),
    md(
        """
        In the stepper, `CopySlices` takes two inputs: the old `h` (from `mul`) and the new values of the row (from the
        `mul` by `x[2]`, whose first input is the old row, read from the old `h` by `AsStridedBackward0`).
        """
    ),
    code(
        """
        h = x * 2
        h[0].mul_(x[2])
        widgets.GraphStepper(h.sum(), names={"x": x, "h": h})
        """
    ),
    md(
        """
        ## 7. Gradients of intermediate tensors: `retain_grad`

        Only leaves get `.grad` filled. Gradients with respect to intermediate results are computed on the way (they
        must be, for the chain rule) but are not kept, which saves memory. Reading `.grad` of a non-leaf gives `None`
        and a warning. Ask for one to be kept with `.retain_grad()` before backward:
        """
    ),
    code(
        """
        x = minitorch.tensor([1.0, 2.0], requires_grad=True)
        hidden = x * 3
        loss = (hidden**2).sum()
        loss.backward(retain_graph=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            print("hidden.grad =", hidden.grad)
        print("warning:", caught[0].message)

        x.grad = None
        hidden.retain_grad()
        loss.backward()
        print("after retain_grad: hidden.grad =", hidden.grad, " (2 * hidden);  x.grad =", x.grad, " (3 * hidden.grad)")
        """
    ),
    md(
        """
        ## 8. Inside an operation: `Function`

        Every operation is a subclass of `minitorch.autograd.Function` with two static methods:

        * `forward(ctx, inputs...)` computes the result, and saves on `ctx` what the derivative will need
          (`ctx.save_for_backward(...)`);
        * `backward(ctx, grad_output)` receives the gradient of the loss with respect to the output, and returns the
          gradient with respect to each input: the **chain rule**, `grad_input = grad_output × local derivative`.

        `Function.apply(inputs...)` runs forward (with recording off: only the op itself enters the graph, not its
        insides) and, when an input requires grad, turns `ctx` into the graph node, the result's `grad_fn`. The file
        `minitorch/autograd/function.py` explains it at the top:
        """
    ),
    code(
        """
        import minitorch.autograd.function as function_module

        print(function_module.__doc__[:1500])
        """
    ),
    md(
        """
        Built-in operations use a faster variant, `Op`, whose forward works on raw NumPy arrays; their backward still
        uses tensor operations. They live in `minitorch/ops/`, forward and backward side by side with the derivative in
        the docstring. Here are the sigmoid and the hyperbolic tangent from `minitorch/ops/pointwise/`
        (`activations.py`, `trigonometric.py`): each saves
        its *output* because the derivative is cheapest in terms of it (`σ' = σ(1 − σ)`, `tanh' = 1 − tanh²`):
        """
    ),
    code(
        """
        from minitorch.ops import pointwise

        print(inspect.getsource(pointwise.Sigmoid))
        print(inspect.getsource(pointwise.Tanh))
        """
    ),
    md(
        """
        Your own operation looks exactly the same, written as in PyTorch. Here is the cube, `y = x³`, whose derivative
        is `3x²`. The docstring's first line is what the graph stepper shows as the node's math.
        """
    ),
    code(
        '''
        class Cube(minitorch.autograd.Function):
            """y = x ** 3;  dx = grad * 3 * x ** 2."""

            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)     # backward needs x
                return x**3

            @staticmethod
            def backward(ctx, grad_output):
                (x,) = ctx.saved_tensors
                return grad_output * 3 * x**2


        x = minitorch.tensor([1.0, -2.0], requires_grad=True)
        cubed = Cube.apply(x)
        print(cubed)
        loss = cubed.sum()
        widgets.GraphStepper(loss, names={"x": x, "cubed": cubed})
        '''
    ),
    code(
        """
        print("x.grad =", x.grad, " (3 x**2)")
        """
    ),
    md(
        """
        ## 9. Is my backward right? `gradcheck`

        A wrong backward does not crash; it just gives wrong gradients, and the model learns badly or not at all.
        `minitorch.autograd.gradcheck` catches it by comparing backward with **finite differences**: nudge each input
        entry by a tiny `eps` up and down and measure how the output changes,

        $$\\frac{\\partial f}{\\partial x_j}
        \\approx \\frac{f(x + \\varepsilon e_j) - f(x - \\varepsilon e_j)}{2\\varepsilon}.$$

        This *central* difference is accurate to about `eps²`. Rounding errors need float64 here; in float32 the
        difference of two nearly equal values loses too many digits. Exercise 2 asks you to write this yourself.
        """
    ),
    code(
        '''
        inputs = minitorch.randn(4, dtype=minitorch.float64, requires_grad=True)
        print("Cube passes gradcheck:", minitorch.autograd.gradcheck(Cube.apply, (inputs,)))


        class BrokenCube(minitorch.autograd.Function):
            """y = x ** 3, with a backward that forgot the factor 3."""

            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x**3

            @staticmethod
            def backward(ctx, grad_output):
                (x,) = ctx.saved_tensors
                return grad_output * x**2


        try:
            minitorch.autograd.gradcheck(BrokenCube.apply, (inputs,))
        except RuntimeError as error:
            print(type(error).__name__, "->", str(error).splitlines()[0])
        '''
    ),
    md(
        """
        Every built-in op of minitorch is tested this way (and against PyTorch itself) in `tests/ops/`.

        ## 10. Gradients of gradients

        A backward written in tensor operations can itself be recorded: pass `create_graph=True` and the gradient
        comes back with a `grad_fn` of its own, ready to be differentiated again. `minitorch.autograd.grad(outputs,
        inputs)` returns gradients instead of adding them into `.grad`, which is handier for this.

        For `f(x) = x³` at `x = 2`: `f' = 3x² = 12`, `f'' = 6x = 12`, `f''' = 6`.
        """
    ),
    code(
        """
        x = minitorch.tensor(2.0, requires_grad=True)
        f = x**3
        (first,) = minitorch.autograd.grad(f, x, create_graph=True)
        (second,) = minitorch.autograd.grad(first, x, create_graph=True)
        (third,) = minitorch.autograd.grad(second, x)
        print(first, second, third, sep="\\n")
        """
    ),
    md(
        """
        Since each entry of `tanh(x)` depends only on its own `x`, the gradient of `tanh(x).sum()` is the derivative
        at every point at once. Three nested gradients draw tanh and its first three derivatives:
        """
    ),
    code(
        """
        grid = minitorch.linspace(-3, 3, 200, requires_grad=True)
        curves = {"tanh": grid.tanh()}
        current = curves["tanh"]
        for order in ["first derivative", "second derivative", "third derivative"]:
            (current,) = minitorch.autograd.grad(current.sum(), grid, create_graph=True)
            curves[order] = current

        plt.figure(figsize=(7, 3.2))
        for label, values in curves.items():
            plt.plot(grid.detach().numpy(), values.detach().numpy(), label=label)
        plt.axhline(0, color="gray", linewidth=0.5)
        plt.legend()
        plt.title("tanh and its derivatives, all by autograd")
        plt.show()
        """
    ),
    md(
        """
        ### Hessian-vector products

        For a function of many variables, the second derivatives form the **Hessian** matrix `H`, with
        `H[i, j] = ∂²f / ∂x_i ∂x_j`. For a million parameters it has a trillion entries: nobody builds it. What
        second-order methods need is its product with a vector, `H v`, and that costs just two backward passes:

        $$H v = \\nabla_x \\big( \\nabla_x f(x) \\cdot v \\big)$$

        First the gradient `g` with `create_graph=True`, then the gradient of the scalar `(g * v).sum()`. You will
        write it in exercise 3. `minitorch.autograd.gradgradcheck` tests second derivatives with finite differences,
        as `gradcheck` does first ones; `Cube`'s backward uses tensor operations, so it can be differentiated again:
        """
    ),
    code(
        """
        print("Cube passes gradgradcheck:", minitorch.autograd.gradgradcheck(Cube.apply, (inputs,)))
        """
    ),
    md(
        """
        ## 11. The engine, step by step

        What does `backward()` actually do? The engine in `minitorch/autograd/engine.py` counts, for each node, how many
        gradients it still waits for; runs a node once they have all arrived (the most recently created first, like
        PyTorch); hands the gradients it returns on to the next nodes; and at a leaf adds into `.grad`. It is written as
        a Python *generator* that yields after each node, and `backward()` simply runs it to the end. The graph stepper
        uses the very same generator, through `minitorch.autograd.graph.step_backward`, which is why what you see is
        what
        really happens. You can drive it yourself:
        """
    ),
    code(
        """
        a = minitorch.tensor(2.0, requires_grad=True)
        c = minitorch.tensor(-1.0, requires_grad=True)
        loss = a * c + a.exp()
        leaf_names = {id(a): "a", id(c): "c"}
        for step in graph.step_backward(loss):
            received = [None if g is None else round(g.item(), 3) for g in step.grad_outputs]
            sent = [None if g is None else round(g.item(), 3) for g in step.grad_inputs]
            leaf = f" -> added into {leaf_names[id(step.leaf)]}.grad" if step.leaf is not None else ""
            print(f"{step.node.name():<34} received {received}  sent {sent}{leaf}")
        print("a.grad =", a.grad.item(), "(c + e**a)   c.grad =", c.grad.item(), "(a)")
        """
    ),
    md(
        """
        ## 12. Exercises

        ### Exercise 1 · SiLU as a custom `Function`

        The SiLU (or "swish") activation is `silu(x) = x · σ(x)`, with the sigmoid `σ(x) = 1 / (1 + e^(−x))`.
        Complete its `forward` and `backward`:

        * `forward` computes `x * minitorch.sigmoid(x)` and saves what backward needs;
        * `backward` returns `grad_output` times the derivative of `silu` at `x`. Use the product rule and
          `σ'(x) = σ(x)(1 − σ(x))`.

        The function `silu_with_grad(x, grad_output)` below (already written) runs your `Function` forward, then
        backward with the given `grad_output` (standing for the gradient of some loss with respect to `y`), and
        returns both `y` and `x.grad`: that is what the check compares. Test your backward with `gradcheck` too.
        """
    ),
    solution(
        '''
        class SiLU(minitorch.autograd.Function):
            """y = x * sigmoid(x)."""

            @staticmethod
            def forward(ctx, x):
                ### BEGIN SOLUTION
                ctx.save_for_backward(x)
                return x * minitorch.sigmoid(x)
                ### END SOLUTION

            @staticmethod
            def backward(ctx, grad_output):
                ### BEGIN SOLUTION
                (x,) = ctx.saved_tensors
                sigmoid = minitorch.sigmoid(x)
                return grad_output * (sigmoid + x * sigmoid * (1 - sigmoid))
                ### END SOLUTION


        def silu_with_grad(x, grad_output):
            """(y, x.grad) for y = SiLU(x) and a backward pass started with grad_output, through the Function above."""
            x = x.detach().requires_grad_()
            y = SiLU.apply(x)
            y.backward(grad_output)
            return y.detach(), x.grad
        ''',
        "silu_function",
    ),
    tests(
        """
        check("ch02.silu_with_grad", silu_with_grad)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        check_hidden(
            "ch02.silu_with_grad",
            silu_with_grad,
            [
                (randn(10, seed=2000, scale=4.0), randn(10, seed=2002)),
                (randn(2, 2, 3, seed=2001), randn(2, 2, 3, seed=2003, scale=3.0)),
                (
                    np.array([-20.0, -6.0, 6.0, 20.0], dtype=np.float32),
                    np.array([1.0, -1.0, 2.0, 0.5], dtype=np.float32),
                ),
            ],
        )
        ### END HIDDEN TESTS
        """,
        "test_silu_with_grad",
    ),
    code(
        """
        # Your own check, as minitorch's tests do: float64 inputs, finite differences against your backward.
        try:
            sample = minitorch.randn(6, dtype=minitorch.float64, requires_grad=True)
            print("SiLU passes gradcheck:", minitorch.autograd.gradcheck(SiLU.apply, (sample,)))
        except NotImplementedError:
            print("Complete SiLU's forward and backward above first, then run this cell again.")
        """
    ),
    md(
        """
        ### Exercise 2 · A numerical gradient by central differences

        Write `numerical_gradient(x, eps)`: the gradient of the function `wiggly` (given below) at the float64 tensor
        `x`, estimated by central differences, entry by entry:

        `gradient[j] = (wiggly(x + eps·e_j) − wiggly(x − eps·e_j)) / (2·eps)`,
        where `e_j` is 1 at entry `j` and 0 elsewhere.

        Return a tensor of the same shape and dtype as `x`. `x` may have any shape: loop over the entries of a flattened
        copy (this is the one place in the course where a loop over entries is the point: it is what `gradcheck` does).
        Do not use autograd here; the point is an independent check of it. Leave `x` as it was: the check compares
        it before and after your call, and since `wiggly` couples every entry to the others (through `sin(sum(x))`),
        a nudge that is not undone spoils the estimates of the entries after it.
        """
    ),
    solution(
        '''
        def wiggly(x):
            """f(x) = sum(sin(x) * x**2) + sin(sum(x)): a tensor in, a 0-dimensional tensor out."""
            return (x.sin() * x**2).sum() + x.sum().sin()


        def numerical_gradient(x, eps):
            """Central-difference estimate of the gradient of wiggly at x (same shape and dtype as x)."""
            ### BEGIN SOLUTION
            flat = x.detach().reshape(-1)
            gradient = minitorch.zeros_like(flat)
            for j in range(flat.numel()):
                plus, minus = flat.clone(), flat.clone()
                plus[j] += eps
                minus[j] -= eps
                gradient[j] = (wiggly(plus.reshape(x.shape)) - wiggly(minus.reshape(x.shape))) / (2 * eps)
            return gradient.reshape(x.shape)
            ### END SOLUTION
        ''',
        "numerical_gradient",
    ),
    tests(
        """
        check("ch02.numerical_gradient", numerical_gradient)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        check_hidden(
            "ch02.numerical_gradient",
            numerical_gradient,
            [
                (randn(3, seed=2100, dtype="float64", scale=2.0), 1e-3),
                (randn(2, 2, 2, seed=2101, dtype="float64"), 1e-5),
                (np.array([0.0, np.pi, -1.5]), 1e-2),
            ],
        )
        ### END HIDDEN TESTS
        """,
        "test_numerical_gradient",
    ),
    md(
        """
        Compare your estimate with autograd: they should agree to about `eps²`.
        """
    ),
    code(
        """
        point = minitorch.randn(5, dtype=minitorch.float64, requires_grad=True)
        wiggly(point).backward()
        print("autograd:  ", point.grad)
        try:
            estimate = numerical_gradient(point.detach(), 1e-5)
            print("numerical: ", estimate)
            print("largest difference:", (point.grad - estimate).abs().max().item())
        except NotImplementedError:
            print("Complete numerical_gradient above first, then run this cell again.")
        """
    ),
    md(
        """
        ### Exercise 3 · A Hessian-vector product

        For `f(x) = log(Σ exp(x))` (the "log-sum-exp" over all entries of `x`), return `H v`, where `H` is the Hessian
        of `f` at `x` and `v` is a tensor of the same shape as `x` (both float64). Use two gradients: the first with
        `create_graph=True`, the second of `(gradient * v).sum()`. The inputs arrive without `requires_grad`: start from
        `x.detach().requires_grad_()`.
        """
    ),
    solution(
        '''
        def hessian_vector_product(x, v):
            """H v, for H the Hessian at x of f(x) = log(sum(exp(x))) over all entries; same shape as x."""
            ### BEGIN SOLUTION
            x = x.detach().requires_grad_()
            f = minitorch.logsumexp(x.reshape(-1), dim=0)
            (gradient,) = minitorch.autograd.grad(f, x, create_graph=True)
            (product,) = minitorch.autograd.grad((gradient * v).sum(), x)
            return product
            ### END SOLUTION
        ''',
        "hessian_vector_product",
    ),
    tests(
        """
        check("ch02.hessian_vector_product", hessian_vector_product)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        check_hidden(
            "ch02.hessian_vector_product",
            hessian_vector_product,
            [
                (randn(6, seed=2200, dtype="float64", scale=3.0), randn(6, seed=2201, dtype="float64")),
                (randn(3, 1, 2, seed=2202, dtype="float64"), randn(3, 1, 2, seed=2203, dtype="float64")),
                (np.array([100.0, 101.0, 99.0]), np.array([0.0, 1.0, -1.0])),
            ],
        )
        ### END HIDDEN TESTS
        """,
        "test_hessian_vector_product",
    ),
    md(
        """
        The gradient of log-sum-exp is the softmax `p`, and its Hessian is `diag(p) − p pᵀ`. With unit vectors for `v`,
        your function gives the Hessian's columns one at a time; compare with that formula:
        """
    ),
    code(
        """
        point = minitorch.tensor([0.5, -1.0, 2.0], dtype=minitorch.float64)
        p = point.softmax(dim=0)
        formula = minitorch.eye(3, dtype=minitorch.float64) * p - p[:, None] * p[None, :]   # diag(p) - p p^T
        try:
            columns = [hessian_vector_product(point, unit) for unit in minitorch.eye(3, dtype=minitorch.float64)]
            hessian = minitorch.stack(columns, dim=1)
            print(hessian)
            print("matches diag(p) - p p^T:", bool(minitorch.allclose(hessian, formula)))
        except NotImplementedError:
            print("Complete hessian_vector_product above first, then run this cell again.")
        """
    ),
    md(
        """
        ## 13. Build it: autograd from scratch

        You have used autograd; now build it. Three exercises, each a real piece of the machine, each checked against
        minitorch's own autograd on inputs you have not seen:

        * **Exercise 4**: a scalar `Value` class with `+`, `*`, `**`, `tanh`, `exp` and a `backward` that walks the
          graph in topological order: the whole of autograd in one class (the idea of micrograd).
        * **Exercise 5**: the same walk on minitorch's real graphs: the order from `grad_fn.next_functions`, and the
          loop that calls each node and accumulates into the leaves, compared with `.backward()`.
        * **Exercise 6**: the reduction that broadcasting's backward needs, and the backward of a broadcasting `mul`.

        The checks describe a graph as a small **program**: a list of steps `(op, i, j)` applied to a growing list of
        values that starts with the inputs. Op 0 appends `values[i] + values[j]`, 1 `values[i] * values[j]`,
        2 `values[i] ** j` (an integer exponent), 3 `values[i].tanh()`, 4 `values[i].exp()`; the last value is the
        result. `run_program` (already written, at the top of exercise 4's cell) runs a program on anything with
        those operations, your `Value`s or minitorch tensors; the hidden cases use programs you have not seen. Each
        exercise has hints in steps: `hint("ch02.value_program")` shows the next one each time you run it.
        """
    ),
    md(
        """
        ### Exercise 4 · A scalar `Value` with backward

        Complete the class. Each operation returns a new `Value` holding the result's number, the `Value`s it was
        computed from (`children`) and, for each child, the **local derivative** `d(result)/d(child)` at these numbers
        (`local_grads`). `backward()` fills `.grad` of every `Value` the output was computed from with
        `d(output)/d(that value)`: set the output's own gradient to 1, then go through the values so that each one
        comes **after every value computed from it** (a reverse topological order), and pass each value's gradient
        on to its children, times the local derivative. A value used twice receives two contributions: they add up.

        `value_program(program, inputs)` (below the class, already written) runs a program on `Value`s and returns the
        result and the inputs' gradients: that is what the check compares with minitorch's autograd. Use the `math`
        module (`math.tanh`, `math.exp`) for the numbers.
        """
    ),
    solution(
        '''
        import math

        ADD, MUL, POW, TANH, EXP = range(5)


        def run_program(program, values):
            """Apply the steps (op, i, j) of program (an int array of shape (steps, 3)); return the last value."""
            values = list(values)
            for op, i, j in program.tolist():
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


        class Value:
            """A scalar that remembers how it was computed: reverse-mode autodiff in one class."""

            def __init__(self, data, children=(), local_grads=()):
                self.data = float(data)
                self.grad = 0.0  # d(output) / d(self), filled by backward
                self.children = children  # the Values this one was computed from
                self.local_grads = local_grads  # d(self) / d(child), one number per child

            def __add__(self, other):
                other = other if isinstance(other, Value) else Value(other)
                ### BEGIN SOLUTION
                return Value(self.data + other.data, (self, other), (1.0, 1.0))
                ### END SOLUTION

            def __mul__(self, other):
                other = other if isinstance(other, Value) else Value(other)
                ### BEGIN SOLUTION
                return Value(self.data * other.data, (self, other), (other.data, self.data))
                ### END SOLUTION

            def __pow__(self, exponent):
                """self ** exponent, for a Python number exponent."""
                ### BEGIN SOLUTION
                return Value(self.data**exponent, (self,), (exponent * self.data ** (exponent - 1),))
                ### END SOLUTION

            def tanh(self):
                ### BEGIN SOLUTION
                result = math.tanh(self.data)
                return Value(result, (self,), (1.0 - result**2,))
                ### END SOLUTION

            def exp(self):
                ### BEGIN SOLUTION
                result = math.exp(self.data)
                return Value(result, (self,), (result,))
                ### END SOLUTION

            def backward(self):
                """Fill .grad of this Value and of every Value it was computed from: d(self) / d(that Value)."""
                ### BEGIN SOLUTION
                order, visited = [], set()

                def visit(value):
                    if id(value) in visited:
                        return
                    visited.add(id(value))
                    for child in value.children:
                        visit(child)
                    order.append(value)  # after everything it was computed from

                visit(self)
                self.grad = 1.0
                for value in reversed(order):  # every value before the values it was computed from
                    for child, local_grad in zip(value.children, value.local_grads):
                        child.grad += local_grad * value.grad
                ### END SOLUTION

            # The rest of arithmetic, built on the methods above (already written).
            def __radd__(self, other):
                return self + other

            def __rmul__(self, other):
                return self * other

            def __neg__(self):
                return self * -1

            def __sub__(self, other):
                return self + (-other)

            def __truediv__(self, other):
                return self * other**-1

            def __repr__(self):
                return f"Value(data={self.data:.4g}, grad={self.grad:.4g})"


        def value_program(program, inputs):
            """Run program on Values made from inputs; return (result, the inputs' gradients) as NumPy arrays."""
            leaves = [Value(number) for number in inputs.tolist()]
            result = run_program(program, leaves)
            result.backward()
            return np.array(result.data), np.array([leaf.grad for leaf in leaves])
        ''',
        "value_class",
    ),
    tests(
        """
        check("ch02.value_program", value_program)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        ADD, MUL, POW, TANH, EXP = range(5)  # the program's steps, as above

        check_hidden(
            "ch02.value_program",
            value_program,
            [
                (np.array([[MUL, 0, 1], [ADD, 3, 2], [TANH, 4, 0], [MUL, 5, 5]]), np.array([0.7, -1.3, 0.4])),
                (np.array([[EXP, 0, 0], [POW, 1, 2], [MUL, 2, 0], [ADD, 3, 1], [TANH, 4, 0]]), np.array([-0.6])),
                (np.array([[ADD, 0, 0], [MUL, 1, 0], [POW, 2, -2], [ADD, 3, 2]]), np.array([1.1])),
                (np.array([[TANH, 0, 0], [TANH, 1, 0], [MUL, 1, 2], [MUL, 3, 1]]), np.array([-0.9, 5.0])),
            ],
        )
        ### END HIDDEN TESTS
        """,
        "test_value_program",
    ),
    md(
        """
        Your `Value` against minitorch on the neuron `tanh(x · w + b)`: the same gradients, from forty lines of Python.
        """
    ),
    code(
        """
        neuron_program = np.array([[MUL, 0, 1], [ADD, 3, 2], [TANH, 4, 0]])  # tanh(x * w + b), inputs x, w, b
        inputs = np.array([2.0, -0.5, 0.25])
        tensors = [minitorch.tensor(v, dtype=minitorch.float64, requires_grad=True) for v in inputs]
        run_program(neuron_program, tensors).backward()
        print("minitorch: d/dx, d/dw, d/db =", [round(t.grad.item(), 6) for t in tensors])
        try:
            result, gradients = value_program(neuron_program, inputs)
            print("your Value:", "d/dx, d/dw, d/db =", [round(g, 6) for g in gradients.tolist()])
        except NotImplementedError:
            print("Complete the Value class above first, then run this cell again.")
        """
    ),
    md(
        """
        ### Exercise 5 · The engine's loop, on minitorch's graphs

        minitorch's graph is made of nodes, not `Value`s: each `grad_fn` lists where its gradients go in
        `next_functions` (pairs `(node, output_nr)`; the node is `None` for an input that needs no gradient), and a
        leaf's node is an `AccumulateGrad` whose tensor `graph.leaf_tensor(node)` returns (`None` for other nodes).
        `graph.call_node(node, gradient)` runs one node's backward, as one step of the engine does: it returns one
        gradient per entry of `next_functions` (`None` where nothing flows), already summed back to each input's
        shape when forward broadcast it (you will write that reduction yourself in exercise 6).

        Write the two halves of `backward()`:

        * `topological_order(root)`: every node reachable from `root` through `next_functions`, once each, every node
          **before** all the nodes it sends gradients to;
        * `backward_by_hand(loss)`: for a 0-d `loss`, walk `topological_order(loss.grad_fn)` starting from the gradient
          1 for the root, run each node once with the **sum** of the gradients it received, pass the results on, and
          at a leaf's node add into the tensor's `.grad` (which may still be `None`). Return nothing: like
          `loss.backward()`, it fills `.grad`.

        Do not call `.backward()` or `autograd.grad` here. `backward_program(program, a, b)` (already written) builds
        the program's graph on two leaves, sums the result, runs your `backward_by_hand` **twice** (so `.grad` must add
        up, as after two `.backward()` calls) and returns whether your order is topological (`is_topological`, also
        written for you) and the two leaves' gradients.
        """
    ),
    solution(
        '''
        from minitorch.autograd import graph


        def topological_order(root):
            """The nodes reachable from root, each before every node in its next_functions."""
            ### BEGIN SOLUTION
            order, visited = [], set()

            def visit(node):
                if node is None or node in visited:
                    return
                visited.add(node)
                for next_node, _ in node.next_functions:
                    visit(next_node)
                order.append(node)  # after every node it sends gradients to

            visit(root)
            return order[::-1]
            ### END SOLUTION


        def backward_by_hand(loss):
            """loss.backward() for a 0-d loss: fill .grad of the leaves, through topological_order and call_node."""
            ### BEGIN SOLUTION
            received = {loss.grad_fn: minitorch.ones_like(loss)}
            for node in topological_order(loss.grad_fn):
                gradient = received.pop(node, None)
                if gradient is None:
                    continue
                leaf = graph.leaf_tensor(node)
                if leaf is not None:
                    leaf.grad = gradient if leaf.grad is None else leaf.grad + gradient
                    continue
                for (next_node, _), next_gradient in zip(node.next_functions, graph.call_node(node, gradient)):
                    if next_node is None or next_gradient is None:
                        continue
                    if next_node in received:
                        next_gradient = received[next_node] + next_gradient
                    received[next_node] = next_gradient
            ### END SOLUTION


        def is_topological(order, root):
            """True when order lists every node reachable from root once, each before the nodes it sends to."""
            position = {node: index for index, node in enumerate(order)}
            reachable = graph.nodes(root)
            if len(position) != len(order) or set(position) != set(reachable):
                return False
            return all(
                position[node] < position[next_node]
                for node in reachable
                for next_node, _ in node.next_functions
                if next_node is not None
            )


        def backward_program(program, a, b):
            """(order is topological, a.grad, b.grad) for the program's result, summed, through your functions."""
            leaves = [minitorch.tensor(a, requires_grad=True), minitorch.tensor(b, requires_grad=True)]
            loss = run_program(program, leaves).sum()
            order_ok = is_topological(topological_order(loss.grad_fn), loss.grad_fn)
            backward_by_hand(loss)
            backward_by_hand(loss)  # twice, like two backward passes: .grad adds up (section 5)
            gradients = [minitorch.zeros_like(leaf) if leaf.grad is None else leaf.grad for leaf in leaves]
            return np.array(order_ok), gradients[0], gradients[1]
        ''',
        "backward_by_hand",
    ),
    tests(
        """
        check("ch02.backward_program", backward_program)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        ADD, MUL, POW, TANH, EXP = range(5)  # the program's steps, as above

        check_hidden(
            "ch02.backward_program",
            backward_program,
            [
                (
                    np.array([[MUL, 0, 1], [TANH, 2, 0], [MUL, 3, 0], [ADD, 4, 3], [EXP, 5, 0], [MUL, 6, 4]]),
                    randn(2, 3, seed=2300, dtype="float64"),
                    randn(2, 3, seed=2301, dtype="float64"),
                ),
                (
                    np.array([[ADD, 0, 1], [MUL, 2, 2], [MUL, 3, 2], [POW, 4, 2], [ADD, 5, 0]]),
                    randn(4, 1, seed=2302, dtype="float64", scale=0.5),
                    randn(3, seed=2303, dtype="float64", scale=0.5),
                ),
                (
                    np.array([[EXP, 1, 0], [MUL, 2, 2]]),
                    randn(3, seed=2304, dtype="float64"),
                    randn(3, seed=2305, dtype="float64"),
                ),
            ],
        )
        ### END HIDDEN TESTS
        """,
        "test_backward_program",
    ),
    md(
        """
        A valid order is not unique: the engine picks, among the nodes whose gradients have all arrived, the one
        created last (as PyTorch's does). Your order next to the engine's steps, on the neuron:
        """
    ),
    code(
        """
        tensors = [minitorch.tensor(v, requires_grad=True) for v in (2.0, -0.5, 0.25)]
        neuron = run_program(neuron_program, tensors)
        engine_order = [step.node.name() for step in graph.step_backward(neuron, retain_graph=True)]
        print("the engine's steps:", engine_order)
        try:
            print("your order:        ", [node.name() for node in topological_order(neuron.grad_fn)])
        except NotImplementedError:
            print("Complete topological_order above first, then run this cell again.")
        """
    ),
    md(
        """
        ### Exercise 6 · Broadcasting's backward

        When `a * b` broadcasts, an input is copied along some dimensions, and each copy contributes to the output. So
        the gradient of an input is the gradient of its product, **summed over the copies**, back down to the input's
        own shape. minitorch does this in one place, for every op (the engine reduces what a node returns); here you
        write it yourself.

        * `sum_to_shape(grad, shape)`: sum `grad` (the shape of the broadcast result) down to `shape` (the shape of an
          input that was broadcast to it). Align the shapes from the right, as broadcasting does.
        * `BroadcastMul`, a `Function` for `a * b` whose `backward` returns the two gradients already reduced to the
          shapes of `a` and `b`.

        `broadcast_mul_backward(a, b, grad_output)` (already written) calls your `forward` and `backward` **directly**,
        without the engine (which would quietly fix a gradient of the wrong shape), and returns
        `(y, grad_a, grad_b)`. Test with `gradcheck` too.
        """
    ),
    solution(
        '''
        def sum_to_shape(grad, shape):
            """grad summed down to shape: the gradient of an input of that shape that forward broadcast to grad's."""
            ### BEGIN SOLUTION
            leading = grad.dim() - len(shape)
            if leading > 0:
                grad = grad.sum(dim=tuple(range(leading)))
            stretched = tuple(dim for dim, size in enumerate(shape) if size == 1 and grad.shape[dim] != 1)
            if stretched:
                grad = grad.sum(dim=stretched, keepdim=True)
            return grad
            ### END SOLUTION


        class BroadcastMul(minitorch.autograd.Function):
            """y = a * b, with broadcasting."""

            @staticmethod
            def forward(ctx, a, b):
                ### BEGIN SOLUTION
                ctx.save_for_backward(a, b)
                return a * b
                ### END SOLUTION

            @staticmethod
            def backward(ctx, grad_output):
                ### BEGIN SOLUTION
                a, b = ctx.saved_tensors
                return sum_to_shape(grad_output * b, a.shape), sum_to_shape(grad_output * a, b.shape)
                ### END SOLUTION


        class DirectContext:
            """Stands in for ctx, so that forward and backward can be called without the engine."""

            def save_for_backward(self, *tensors):
                self.saved_tensors = tensors


        def broadcast_mul_backward(a, b, grad_output):
            """(y, grad_a, grad_b) from BroadcastMul's forward and backward, called directly."""
            ctx = DirectContext()
            y = BroadcastMul.forward(ctx, a, b)
            grad_a, grad_b = BroadcastMul.backward(ctx, grad_output)
            return y, grad_a, grad_b
        ''',
        "broadcast_mul",
    ),
    tests(
        """
        check("ch02.broadcast_mul_backward", broadcast_mul_backward)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        check_hidden(
            "ch02.broadcast_mul_backward",
            broadcast_mul_backward,
            [
                (
                    randn(2, 1, 3, seed=2400, dtype="float64"),
                    randn(4, 1, seed=2401, dtype="float64"),
                    randn(2, 4, 3, seed=2402, dtype="float64"),
                ),
                (randn(1, 1, seed=2403, dtype="float64"), randn(5, seed=2404, dtype="float64"),
                 randn(1, 5, seed=2405, dtype="float64")),
                (randn(3, 2, seed=2406, dtype="float64"), randn(3, 2, seed=2407, dtype="float64"),
                 randn(3, 2, seed=2408, dtype="float64")),
                (randn(6, 1, 1, seed=2409, dtype="float64"), randn(seed=2410, dtype="float64"),
                 randn(6, 1, 1, seed=2411, dtype="float64")),
            ],
        )
        ### END HIDDEN TESTS
        """,
        "test_broadcast_mul_backward",
    ),
    code(
        """
        # Your own check: gradcheck through the engine (float64), then the shapes your backward returns by itself.
        try:
            a = minitorch.randn(3, 1, dtype=minitorch.float64, requires_grad=True)
            b = minitorch.randn(1, 4, dtype=minitorch.float64, requires_grad=True)
            print("BroadcastMul passes gradcheck:", minitorch.autograd.gradcheck(BroadcastMul.apply, (a, b)))
            ones = minitorch.ones(3, 4, dtype=minitorch.float64)
            _, grad_a, grad_b = broadcast_mul_backward(a.detach(), b.detach(), ones)
            print("shapes from your backward:", tuple(grad_a.shape), tuple(grad_b.shape), "(want (3, 1) and (1, 4))")
        except NotImplementedError:
            print("Complete sum_to_shape and BroadcastMul above first, then run this cell again.")
        """
    ),
    md(
        """
        ## 14. Build it: `Function`, `ctx` and the engine, PyTorch's way

        Exercise 5 walked minitorch's graph in *a* topological order, calling nodes minitorch had recorded. Two pieces
        were still minitorch's: the recording (`Function.apply`, `ctx`, `AccumulateGrad`) and the scheduling
        (which node runs when). Now you write both, on a small tensor of your own, and your engine must call the
        nodes **in PyTorch's order**, not just in some valid one.

        How PyTorch's engine schedules, from its source (`torch/csrc/autograd/engine.h` and `engine.cpp`): before
        running anything it counts, for every node reachable from the root, how many edges lead into it
        (`compute_dependencies`). Each node gets an *input buffer*, where the gradients from all of its uses are
        **added up**. When a node has run,
        every next node's count goes down by one; a node whose count reaches 0 has received every gradient it will
        ever get and goes into the **ready queue**. On the CPU that queue is a priority queue (`ReadyQueue`, a
        `std::priority_queue` ordered by `CompareNodeTaskTime`, which compares `fn_->sequence_nr()` when two tasks
        have the same reentrant depth): it hands out the ready node with the **highest sequence number**,
        the number each node takes from a global counter when it is created, so the node created last runs first.
        `AccumulateGrad` nodes get the largest number there is (`UINT64_MAX`), so a leaf's `.grad` is written as soon
        as its gradient is complete; several leaves that become ready together share that number, and run in an
        order the heap leaves open.

        The chapter's tensor is deliberately small: a NumPy array (`data`) and the fields autograd needs
        (`requires_grad`, `grad`, `grad_fn`, and a leaf's cached `grad_accumulator`). As in minitorch's `Op`,
        `forward` and `backward` work on the arrays; `Function.apply` wraps them into tensors and records the graph.
        Your code reaches a tensor only through those fields and `Tensor(array)`, so another tensor class with the
        same fields can take its place later without a change to what you write.

        ### Exercise 7 · `Function.apply`, `ctx` and `AccumulateGrad`

        In the cell below, complete:

        * `Context.save_for_backward(*arrays)` and the property `saved_tensors` (what forward saved, in order);
        * `Function.apply(*arguments)`: set `ctx.needs_input_grad` (one bool per argument: a `Tensor` that requires
          grad), run `forward` on the arguments with each `Tensor` replaced by its array (numbers such as an exponent
          pass unchanged), wrap the result in a `Tensor`, and, when at least one input needs a gradient, **record**:
          `ctx.next_functions` holds one pair `(node, 0)` per tensor argument (its `grad_fn`; for a leaf that requires
          grad its `AccumulateGrad`, one per leaf, made once and kept in `leaf.grad_accumulator`; `None` for an
          input that needs no gradient), `ctx.sequence_nr` the next number of `sequence_numbers`, and the result
          `requires_grad=True` with `grad_fn = ctx`. When no input needs a gradient, nothing is recorded;
        * `AccumulateGrad.apply(gradient)`: the first gradient becomes the leaf's `.grad` (a `Tensor`), later ones
          are added to it, as PyTorch does; it returns `()`, since nothing flows further;
        * `Mul` and `Pow`: forward saves what backward needs, and backward returns `None` for an input whose
          `ctx.needs_input_grad` is False (PyTorch's own ops do not compute what nobody asked for). `Pow`'s exponent
          is a number, not a tensor: keep it on `ctx`, and return `None` for it. `Add`, `Tanh` and `Exp` are
          written for you as examples.

        `record_program(program, inputs, requires_grad)` (written for you, at the end of the cell) runs a program on
        your tensors (input `k` requires grad when `requires_grad[k]` is True) and reports what `apply` recorded: the
        result; for each step, where its node's `next_functions` lead (a value's index: the inputs first, then one per
        step; `-1` for `None`, `-2` where the op has no second input, `-3` for a step with no node); what each node
        returns when called with gradient 1; the number of `AccumulateGrad` nodes per leaf; each leaf's `.grad` after
        its `AccumulateGrad` is called with 1.5 and then 0.25; and whether the sequence numbers rise in creation
        order. The check compares all of it with minitorch's graph of the same program.
        """
    ),
    solution(
        '''
        import heapq
        import itertools


        class Tensor:
            """The chapter's small tensor: an array, and the fields autograd needs (the names PyTorch uses)."""

            def __init__(self, data, requires_grad=False):
                self.data = np.asarray(data, dtype=np.float64)
                self.requires_grad = requires_grad
                self.grad = None  # a Tensor, once backward has reached this leaf
                self.grad_fn = None  # the node that made this tensor: None for a leaf
                self.grad_accumulator = None  # a leaf's AccumulateGrad, made at its first use (PyTorch caches it too)

            def __add__(self, other):
                return Add.apply(self, other)

            def __mul__(self, other):
                return Mul.apply(self, other)

            def __pow__(self, exponent):
                return Pow.apply(self, exponent)

            def tanh(self):
                return Tanh.apply(self)

            def exp(self):
                return Exp.apply(self)

            def backward(self):
                backward(self)  # your engine, exercise 8

            def __repr__(self):
                node = f", grad_fn={self.grad_fn.name()}" if self.grad_fn is not None else ""
                return f"Tensor({self.data}{node})"


        class Node:
            """A node of the backward graph: the engine calls it with the gradient of its output."""

            sequence_nr = 0  # the creation order: among the ready nodes, PyTorch's engine runs the highest first
            next_functions = ()  # one (node or None, 0) per tensor input: where that input's gradient goes

            def name(self):
                return type(self).__name__

            def register_prehook(self, hook):
                """hook(grad_outputs) runs just before the node does (PyTorch's grad_fn.register_prehook)."""
                self.__dict__.setdefault("pre_hooks", []).append(hook)

            def __call__(self, *grad_outputs):
                for hook in self.__dict__.get("pre_hooks", ()):
                    hook(grad_outputs)
                return self.apply(*grad_outputs)


        class Context(Node):
            """ctx: what forward keeps for backward and, once apply has recorded it, the result's grad_fn."""

            def __init__(self, function, arguments):
                self.function = function  # the Function subclass whose backward this node runs
                self.is_tensor = tuple(isinstance(argument, Tensor) for argument in arguments)
                self.needs_input_grad = (False,) * len(arguments)  # apply sets the real ones

            def name(self):
                return self.function.__name__ + "Backward"

            def save_for_backward(self, *arrays):
                """Keep arrays (inputs or outputs of forward) for backward."""
                ### BEGIN SOLUTION
                self.saved_arrays = arrays
                ### END SOLUTION

            @property
            def saved_tensors(self):
                """What save_for_backward kept, as a tuple in the same order."""
                ### BEGIN SOLUTION
                return self.saved_arrays
                ### END SOLUTION

            def apply(self, grad_output):
                """backward gives one gradient per argument of forward; the graph has edges for the tensor ones."""
                gradients = self.function.backward(self, grad_output)
                gradients = gradients if isinstance(gradients, tuple) else (gradients,)
                return tuple(gradient for gradient, is_tensor in zip(gradients, self.is_tensor) if is_tensor)


        class AccumulateGrad(Node):
            """A leaf's node: the gradient that reaches it goes into the leaf's .grad."""

            sequence_nr = 2**64 - 1  # PyTorch's UINT64_MAX: a leaf's .grad is written as soon as it is complete

            def __init__(self, variable):
                self.variable = variable  # the leaf

            def apply(self, gradient):
                """Add gradient (an array) into the leaf's .grad; nothing flows further."""
                ### BEGIN SOLUTION
                leaf = self.variable
                leaf.grad = Tensor(gradient) if leaf.grad is None else Tensor(leaf.grad.data + gradient)
                return ()
                ### END SOLUTION


        sequence_numbers = itertools.count()  # PyTorch's global counter: each recorded node takes the next number


        class Function:
            """An operation: forward and backward on arrays; apply runs forward on tensors and records the node."""

            @staticmethod
            def forward(ctx, *arguments):
                raise NotImplementedError

            @staticmethod
            def backward(ctx, grad_output):
                raise NotImplementedError

            @classmethod
            def apply(cls, *arguments):
                """cls.forward on the arguments' arrays, as a Tensor; recorded when an input needs a gradient."""
                ### BEGIN SOLUTION
                ctx = Context(cls, arguments)
                ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in arguments)
                result = Tensor(cls.forward(ctx, *(a.data if isinstance(a, Tensor) else a for a in arguments)))
                if any(ctx.needs_input_grad):
                    ctx.next_functions = tuple((gradient_edge(a), 0) for a in arguments if isinstance(a, Tensor))
                    ctx.sequence_nr = next(sequence_numbers)
                    result.requires_grad, result.grad_fn = True, ctx
                return result
                ### END SOLUTION


        def gradient_edge(tensor):
            """Where tensor's gradient goes next: its grad_fn, its leaf's one AccumulateGrad, or None."""
            ### BEGIN SOLUTION
            if not tensor.requires_grad:
                return None
            if tensor.grad_fn is not None:
                return tensor.grad_fn
            if tensor.grad_accumulator is None:
                tensor.grad_accumulator = AccumulateGrad(tensor)
            return tensor.grad_accumulator
            ### END SOLUTION


        class Add(Function):
            """y = a + b;  da = grad,  db = grad (None for an input that needs no gradient)."""

            @staticmethod
            def forward(ctx, a, b):
                return a + b

            @staticmethod
            def backward(ctx, grad_output):
                return tuple(grad_output if needed else None for needed in ctx.needs_input_grad)


        class Tanh(Function):
            """y = tanh(x);  dx = grad * (1 - y**2): cheapest from the output, so forward saves y."""

            @staticmethod
            def forward(ctx, x):
                y = np.tanh(x)
                ctx.save_for_backward(y)
                return y

            @staticmethod
            def backward(ctx, grad_output):
                (y,) = ctx.saved_tensors
                return grad_output * (1 - y**2)


        class Exp(Function):
            """y = exp(x);  dx = grad * y: forward saves its output here too."""

            @staticmethod
            def forward(ctx, x):
                y = np.exp(x)
                ctx.save_for_backward(y)
                return y

            @staticmethod
            def backward(ctx, grad_output):
                (y,) = ctx.saved_tensors
                return grad_output * y


        class Mul(Function):
            """y = a * b;  da = grad * b,  db = grad * a."""

            @staticmethod
            def forward(ctx, a, b):
                ### BEGIN SOLUTION
                ctx.save_for_backward(a, b)
                return a * b
                ### END SOLUTION

            @staticmethod
            def backward(ctx, grad_output):
                ### BEGIN SOLUTION
                a, b = ctx.saved_tensors
                needs_a, needs_b = ctx.needs_input_grad
                return (grad_output * b if needs_a else None), (grad_output * a if needs_b else None)
                ### END SOLUTION


        class Pow(Function):
            """y = x ** n for a number n;  dx = grad * n * x ** (n - 1)."""

            @staticmethod
            def forward(ctx, x, exponent):
                ### BEGIN SOLUTION
                ctx.exponent = exponent
                ctx.save_for_backward(x)
                return x**exponent
                ### END SOLUTION

            @staticmethod
            def backward(ctx, grad_output):
                ### BEGIN SOLUTION
                (x,) = ctx.saved_tensors
                return grad_output * ctx.exponent * x ** (ctx.exponent - 1), None
                ### END SOLUTION


        def program_values(program, values):
            """Every value of the program on these inputs, the inputs first (run_program keeps only the last)."""
            values = list(values)
            for step in program:
                values.append(run_program(step[None], values))
            return values


        def node_labels(values, leaf_count):
            """{node: the index of its value}: each value's grad_fn, and each leaf's AccumulateGrad (its leaf's)."""
            labels = {value.grad_fn: index for index, value in enumerate(values) if value.grad_fn is not None}
            for node in list(labels):
                for next_node, _ in node.next_functions:
                    if isinstance(next_node, AccumulateGrad):
                        labels[next_node] = next(k for k in range(leaf_count) if values[k] is next_node.variable)
            return labels


        def record_program(program, inputs, requires_grad):
            """What apply recorded for the program: the six outputs the exercise's text lists."""
            leaves = [Tensor(value, requires_grad=flag) for value, flag in zip(inputs.tolist(), requires_grad.tolist())]
            values = program_values(program, leaves)
            labels = node_labels(values, len(leaves))
            edges = np.full((len(program), 2), -2)  # -2: the op has no second input
            local = np.full((len(program), 2), np.nan)  # nan: None, or no such input
            for row, value in enumerate(values[len(leaves) :]):
                if value.grad_fn is None:
                    edges[row] = -3  # no node: no input needed a gradient
                    continue
                sent = value.grad_fn(np.ones(()))
                for column, ((next_node, _), gradient) in enumerate(zip(value.grad_fn.next_functions, sent)):
                    edges[row, column] = -1 if next_node is None else labels[next_node]
                    local[row, column] = np.nan if gradient is None else gradient
            counts = np.zeros(len(leaves), dtype=np.int64)
            accumulated = np.full((len(leaves), 2), np.nan)
            for node, index in labels.items():
                if isinstance(node, AccumulateGrad):
                    counts[index] += 1
                    if counts[index] == 1:  # feed the leaf's (first) accumulator twice
                        node(np.array(1.5))
                        accumulated[index, 0] = node.variable.grad.data
                        node(np.array(0.25))
                        accumulated[index, 1] = node.variable.grad.data
            numbers = [value.grad_fn.sequence_nr for value in values if value.grad_fn is not None]
            rising = all(earlier < later for earlier, later in zip(numbers, numbers[1:]))
            return np.array(values[-1].data), edges, local, counts, accumulated, np.array(rising)
        ''',
        "function_apply",
    ),
    tests(
        """
        check("ch02.record_program", record_program)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        ADD, MUL, POW, TANH, EXP = range(5)  # the program's steps, as above

        check_hidden(
            "ch02.record_program",
            record_program,
            [
                (
                    np.array([[MUL, 0, 1], [POW, 3, -1], [ADD, 4, 2], [TANH, 5, 0], [MUL, 6, 3]]),
                    np.array([0.9, -0.6, 1.4]),
                    np.array([True, False, True]),
                ),
                (np.array([[ADD, 0, 0], [EXP, 1, 0], [MUL, 1, 2], [POW, 3, 2]]), np.array([0.3]), np.array([True])),
                (
                    np.array([[TANH, 1, 0], [EXP, 2, 0], [MUL, 3, 0], [ADD, 4, 1]]),
                    np.array([-0.8, 0.5]),
                    np.array([False, True]),
                ),
                (
                    np.array([[MUL, 1, 2], [ADD, 3, 0], [POW, 4, 3]]),
                    np.array([0.4, 1.2, -0.5]),
                    np.array([True, False, False]),
                ),
            ],
        )
        ### END HIDDEN TESTS
        """,
        "test_record_program",
    ),
    md(
        """
        Your node next to minitorch's, for `tanh(a * b)` with `b` not requiring grad: the same `next_functions`
        (an `AccumulateGrad` for `a`, `None` for `b`), and the same local gradients. (PyTorch names the node of a
        custom `Function` `MulBackward`; its built-in ops' nodes carry a version number, `MulBackward0`.)
        """
    ),
    code(
        """
        try:
            a, b = Tensor(0.5, requires_grad=True), Tensor(2.0)
            mine = (a * b).tanh()
            edges = [(node and node.name(), number) for node, number in mine.grad_fn.next_functions]
            print("yours:    ", mine.grad_fn.name(), edges)
            inner = mine.grad_fn.next_functions[0][0]
            sent = [None if gradient is None else float(gradient) for gradient in inner(np.ones(()))]
            print("           Mul sends", sent, " needs_input_grad:", inner.needs_input_grad)
        except NotImplementedError:
            print("Complete exercise 7 above first, then run this cell again.")
        a, b = minitorch.tensor(0.5, requires_grad=True), minitorch.tensor(2.0)
        theirs = (a * b).tanh()
        edges = [(node and node.name(), number) for node, number in theirs.grad_fn.next_functions]
        print("minitorch:", theirs.grad_fn.name(), edges)
        inner = theirs.grad_fn.next_functions[0][0]
        sent = [None if grad is None else grad.item() for grad in graph.call_node(inner, minitorch.ones(()))]
        print("           Mul sends", sent, " needs_input_grad:", inner.needs_input_grad)
        """
    ),
    md(
        """
        ### Exercise 8 · The engine: dependency counts and a ready queue

        Write `backward(tensor)`, the engine behind your `Tensor.backward()`, for a 0-d `tensor`, as PyTorch's does it:

        1. count, for every node reachable from `tensor.grad_fn` through `next_functions` (entries that are `None`
           lead nowhere), how many edges lead into it;
        2. keep a buffer per node, where the gradients for it are **added up**, and start with the root's: ones of the
           tensor's shape;
        3. keep the ready nodes (those whose count is 0; at first only the root) in a priority queue and always take
           the one with the **highest** `sequence_nr`; call it on its buffered gradient (`node(gradient)` returns one
           gradient per entry of its `next_functions`; an `AccumulateGrad` returns `()` and fills `.grad`), then hand
           each gradient to its next node's buffer and lower that node's count; a node whose count reaches 0 is
           ready.

        A node never runs before every gradient for it has arrived: that is what the counts are for. A depth-first
        walk does not know it; a topological order from one gives correct gradients, but calls the nodes in an order
        PyTorch does not, and the check compares the order too.

        `engine_program(program, inputs, requires_grad)` (written for you) builds the program's graph with your
        exercise 7 (so finish that first), registers a pre-hook on every node that records the node's value index
        when it is called (as you would with `grad_fn.register_prehook` in PyTorch), runs `result.backward()` and
        returns the result, the inputs' `.grad` (`nan` where it is `None`) and the order of the calls, with each run
        of `AccumulateGrad` calls sorted (PyTorch does not fix their order among themselves). The check compares it
        with minitorch's engine, which follows PyTorch's order.
        """
    ),
    solution(
        '''
        def backward(tensor):
            """Run every node below tensor once, in PyTorch's order, with the sum of the gradients sent to it."""
            ### BEGIN SOLUTION
            root = tensor.grad_fn
            waiting, seen, stack = {}, {root}, [root]
            while stack:
                node = stack.pop()
                for next_node, _ in node.next_functions:
                    if next_node is None:
                        continue
                    waiting[next_node] = waiting.get(next_node, 0) + 1
                    if next_node not in seen:
                        seen.add(next_node)
                        stack.append(next_node)
            buffers = {root: np.ones_like(tensor.data)}
            arrivals = itertools.count()
            ready = [(-root.sequence_nr, next(arrivals), root)]
            while ready:
                _, _, node = heapq.heappop(ready)
                sent = node(buffers.pop(node))
                for (next_node, _), gradient in zip(node.next_functions, sent):
                    if next_node is None:
                        continue
                    if gradient is not None:
                        buffers[next_node] = buffers[next_node] + gradient if next_node in buffers else gradient
                    waiting[next_node] -= 1
                    if waiting[next_node] == 0:
                        heapq.heappush(ready, (-next_node.sequence_nr, next(arrivals), next_node))
            ### END SOLUTION


        def canonical_order(calls, leaf_count):
            """The calls, each run of AccumulateGrad calls (labels below leaf_count) sorted: PyTorch leaves it open."""
            order, run = [], []
            for label in calls + [None]:
                if label is not None and label < leaf_count:
                    run.append(label)
                    continue
                order += sorted(run)
                run = []
                if label is not None:
                    order.append(label)
            return np.array(order, dtype=np.int64)


        def engine_program(program, inputs, requires_grad):
            """(result, the inputs' .grad with nan for None, the order your engine called the nodes in)."""
            leaves = [Tensor(value, requires_grad=flag) for value, flag in zip(inputs.tolist(), requires_grad.tolist())]
            values = program_values(program, leaves)
            calls = []
            for node, label in node_labels(values, len(leaves)).items():
                node.register_prehook(lambda grad_outputs, label=label: calls.append(label))
            values[-1].backward()
            gradients = np.array([np.nan if leaf.grad is None else float(leaf.grad.data) for leaf in leaves])
            return np.array(values[-1].data), gradients, canonical_order(calls, len(leaves))
        ''',
        "engine",
    ),
    tests(
        """
        check("ch02.engine_program", engine_program)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        ADD, MUL, POW, TANH, EXP = range(5)  # the program's steps, as above

        check_hidden(
            "ch02.engine_program",
            engine_program,
            [
                (
                    np.array([[MUL, 0, 1], [EXP, 2, 0], [TANH, 2, 0], [MUL, 4, 3], [ADD, 5, 2], [MUL, 6, 0]]),
                    np.array([0.4, -0.9]),
                    np.array([True, True]),
                ),
                (
                    np.array([[EXP, 0, 0], [TANH, 1, 0], [MUL, 2, 2], [POW, 3, 2], [MUL, 4, 3], [ADD, 5, 6]]),
                    np.array([0.2, 1.3]),
                    np.array([True, True]),
                ),
                (
                    np.array([[TANH, 2, 0], [MUL, 0, 3], [EXP, 1, 0], [MUL, 4, 5], [ADD, 6, 0], [ADD, 7, 4]]),
                    np.array([0.6, -0.4, 1.1]),
                    np.array([True, True, False]),
                ),
                (
                    np.array([[ADD, 0, 0], [MUL, 1, 1], [TANH, 2, 0], [EXP, 2, 0], [MUL, 4, 3], [MUL, 5, 3]]),
                    np.array([-0.3]),
                    np.array([True]),
                ),
            ],
        )
        ### END HIDDEN TESTS
        """,
        "test_engine_program",
    ),
    md(
        """
        Your engine's order next to minitorch's engine and next to your `topological_order` from exercise 5 (a valid
        order, but not necessarily PyTorch's), on `tanh(a)² + exp(b)²` with both branches' first steps created
        first: among the ready nodes the engine always takes the newest, so it goes back and forth between the two
        branches in the reverse of the order they were built, where a depth-first walk finishes one branch before it
        starts the other.
        """
    ),
    code(
        """
        interleaved = np.array([[TANH, 0, 0], [EXP, 1, 0], [MUL, 2, 2], [MUL, 3, 3], [ADD, 4, 5]])
        names = ["a", "b", "tanh(a)", "exp(b)", "tanh(a)²", "exp(b)²", "sum"]
        tensors = [minitorch.tensor(value, requires_grad=True) for value in (0.5, -0.3)]
        values = program_values(interleaved, tensors)
        name_of = {value.grad_fn: name for value, name in zip(values, names) if value.grad_fn is not None}


        def node_name(node):
            leaf = graph.leaf_tensor(node)
            return name_of[node] if leaf is None else names[[tensor is leaf for tensor in tensors].index(True)]


        steps = graph.step_backward(values[-1], retain_graph=True)
        print("minitorch's engine:     ", [node_name(step.node) for step in steps])
        try:
            print("your topological_order: ", [node_name(node) for node in topological_order(values[-1].grad_fn)])
        except NotImplementedError:
            print("your topological_order:  (exercise 5 is not done yet)")
        try:
            _, _, order = engine_program(interleaved, np.array([0.5, -0.3]), np.array([True, True]))
            print("your engine:            ", [names[label] for label in order])
        except NotImplementedError:
            print("your engine:             (complete exercises 7 and 8 above first, then run this cell again)")
        """
    ),
    md(
        """
        ### Your library so far

        The pieces of your own minitorch, and whether each one is yours (it passes its public checks) or still
        minitorch's. Later chapters take your pieces from this notebook once it is saved, so save it before moving
        on.
        """
    ),
    code(
        """
        from grading.library import my_library

        my_library("02_autograd")
        """
    ),
    md(
        """
        ## Summary

        * `requires_grad=True` makes minitorch **record** every operation on a tensor; each result's `grad_fn` is a node
          that knows its local derivative, linked to the nodes of its inputs (`next_functions`).
        * The graph is **built as the code runs**: loops and `if`s simply record what happened this time, and each run
          makes a new graph, freed by backward (unless `retain_graph=True`).
        * `loss.backward()` applies the chain rule from the loss back to the leaves and **adds** into their `.grad`;
          clear gradients between steps (`x.grad = None`). Non-scalars need a `gradient` argument (or `.sum()`).
        * `no_grad()` switches recording off (evaluation, parameter updates); `detach()` gives the same data without
          history (a stop-gradient); `retain_grad()` keeps an intermediate tensor's gradient.
        * In-place writes bump a tensor's **version**, so backward refuses stale saved values; a write through a view
          gives the base a `CopySlices` node.
        * A custom operation is a `minitorch.autograd.Function` with `forward` and `backward`, exactly as in PyTorch;
          built-in ops (`minitorch/ops/pointwise/` and friends) are the same idea on raw arrays. `gradcheck` compares
          a backward with central differences, in float64.
        * Backward written in tensor operations can be recorded too: `create_graph=True` gives **gradients of
          gradients**, and a Hessian-vector product costs two backward passes.
        * The engine (`minitorch/autograd/engine.py`) is a generator of steps; `backward()` runs it to the end and the
          graph stepper walks it one step at a time.
        * You built it: local derivatives stored at each operation, a reverse topological order, gradients summed per
          node and added into the leaves, and broadcast gradients summed back to their input's shape. That is all of
          reverse-mode autodiff.
        * And PyTorch's way of doing it: `Function.apply` runs forward and records `ctx` as the node, linked through
          `next_functions` to the inputs' nodes or their `AccumulateGrad`; the engine counts each node's incoming
          edges, sums its gradients in a buffer, and runs the ready node with the highest sequence number first.

        Next, **chapter 3**: devices, moving tensors to a GPU, and when that pays off.
        """
    ),
    code(
        """
        summary("ch02")
        """
    ),
]

if __name__ == "__main__":
    write("02_autograd", cells)
