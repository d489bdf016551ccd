"""Chapter 4: building networks (nn.Module, Parameter, Linear, activations, Sequential, init; the training step)."""

from author import code, md, solution, tests, write

cells = [
    md(r"""
    # 4. Building networks

    So far you have pushed tensors through operations by hand and asked autograd for gradients. A neural
    network is the same thing, organised: a function with many parameters, split into reusable pieces.

    By the end of this chapter you will be able to:

    * write your own layer as an `nn.Module` whose `nn.Parameter`s are found automatically;
    * use `nn.Linear`, the activation functions and `nn.Sequential` to assemble a multi-layer perceptron (MLP);
    * read and restore a model's weights with `state_dict` and `load_state_dict`, and choose their starting
      values with `nn.init`;
    * name the four steps of training (assemble the graph, forward, loss, backward) and watch each of them
      happen on a tiny model;
    * train a network on real images (scikit-learn's handwritten digits) with `optim.SGD` and plot its loss;
    * build the `Module` machinery yourself: registration in `__setattr__`, `named_parameters`, `state_dict` with
      PyTorch's key names, `load_state_dict`, and `train`/`eval` through a nested model.
    * complete it with buffers (saved or not), forward hooks, `to(dtype)` that keeps every parameter's identity, and a
      strict `load_state_dict`, then train a model on your own `MyModule`.

    Everything here is written with PyTorch's names: replace `import minitorch` by `import torch` and the code runs
    unchanged.
    """),
    code("""
    import matplotlib.pyplot as plt
    import numpy as np

    import minitorch
    import minitorch.nn as nn
    import minitorch.optim as optim
    import widgets
    from grading import check, hint, randn, summary  # noqa: F401 (hint("<exercise>") shows hints, step by step)

    minitorch.manual_seed(0)   # the same random weights on every run
    """),
    md(r"""
    ## 1. A model is a function with parameters

    A **parameter** is a tensor the training will change. `nn.Parameter` is a subclass of `Tensor` that does two
    things: it sets `requires_grad=True` (autograd will compute its gradient), and it marks the tensor as *belonging
    to a model*, so the model can list it.
    """),
    code("""
    weight = nn.Parameter(minitorch.randn(2, 3))
    print(type(weight).__name__, "| a Tensor:", isinstance(weight, minitorch.Tensor))
    print("requires_grad:", weight.requires_grad)
    weight
    """),
    md(r"""
    An **`nn.Module`** is a container for parameters and the code that uses them. You write two methods:

    * `__init__`: call `super().__init__()` first, then create the parameters and sub-modules as attributes;
    * `forward(x)`: compute the output from the input with tensor operations.

    Assigning a `Parameter` (or another `Module`) to an attribute registers it: `Module.__setattr__` files it into the
    module's `_parameters` (or `_modules`) dictionary. That is how `model.parameters()` can later hand every
    parameter, however deeply nested, to an optimizer. Read it in `minitorch/nn/modules/module.py`: `__setattr__`,
    `named_parameters` and `__call__` are short.
    """),
    code("""
    class Affine(nn.Module):
        \"\"\"y = x @ weight.T + bias, written by hand.\"\"\"

        def __init__(self, in_features, out_features):
            super().__init__()
            self.weight = nn.Parameter(minitorch.randn(out_features, in_features) * 0.1)   # registered
            self.bias = nn.Parameter(minitorch.zeros(out_features))                       # registered
            self.note = "plain attributes are not parameters"                             # not registered

        def forward(self, x):
            return x @ self.weight.T + self.bias


    layer = Affine(3, 2)
    for name, parameter in layer.named_parameters():
        print(f"{name:6s} shape {tuple(parameter.shape)}  requires_grad={parameter.requires_grad}")

    x = minitorch.randn(4, 3)
    print("output shape:", layer(x).shape)   # call the module, not layer.forward(x): __call__ runs hooks, then forward
    """),
    md(r"""
    ## 2. `nn.Linear`: the workhorse

    `nn.Linear(in_features, out_features)` is the module above, done properly:

    $$y = x W^\top + b, \qquad W \text{ of shape } (\text{out}, \text{in}), \quad b \text{ of shape } (\text{out},).$$

    Every row of $W$ is one output unit's weights, which is why the weight is stored as (out, in) and transposed in
    the product. `x` may have any number of leading dimensions: a batch of vectors `(N, in)` or a batch of
    sequences `(N, T, in)` all work; only the last dimension is mixed. The weights start uniform in
    $\pm 1/\sqrt{\text{in}}$ so the outputs neither explode nor vanish (section 5 says why).

    The module lives in `minitorch/nn/modules/linear.py`; it calls `linear` in
    `minitorch/ops/nn_ops.py` (`F.linear`), which runs one fused op defined beside it, `Linear`:
    the matrix product and the bias in one node (PyTorch calls it `AddmmBackward0`), with its forward and backward
    side by side.
    """),
    code("""
    linear = nn.Linear(4, 3)
    print(linear)
    print("weight", tuple(linear.weight.shape), "bias", tuple(linear.bias.shape))
    print("largest |weight|:", round(linear.weight.abs().max().item(), 3), "<= 1/sqrt(4) =", 1 / np.sqrt(4))

    x = minitorch.randn(2, 4)
    by_hand = x @ linear.weight.T + linear.bias
    print("same as by hand:", minitorch.allclose(linear(x), by_hand))
    print("leading dimensions are kept:", linear(minitorch.randn(5, 7, 4)).shape)
    """),
    md(r"""
    ### Exercise 1: a Linear layer's forward

    Write `linear_forward(x, weight, bias)` returning `x @ weight.T + bias`, for `weight` of shape
    `(out_features, in_features)`, `bias` of shape `(out_features,)` and `x` of shape `(..., in_features)`. Use tensor
    operations (`@`, `.T`, `+`), not `nn.Linear` or `F.linear`.
    """),
    solution('''
    def linear_forward(x, weight, bias):
        """Return x @ weight.T + bias (the leading dimensions of x are kept)."""
        ### BEGIN SOLUTION
        return x @ weight.T + bias
        ### END SOLUTION
    ''', "ch04-linear-forward"),
    tests("""
    check("ch04.linear_forward", linear_forward)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch04.linear_forward", linear_forward, [
        (randn(3, 2, seed=4101), randn(4, 2, seed=4102), randn(4, seed=4103)),
        (randn(2, 2, 5, seed=4104), randn(1, 5, seed=4105), randn(1, seed=4106)),
        (randn(5, seed=4107), randn(3, 5, seed=4108), randn(3, seed=4109)),
    ])
    ### END HIDDEN TESTS
    """, "ch04-linear-forward-tests", points=2),
    md(r"""
    ## 3. Activations: why a network needs something that is not linear

    Two linear layers in a row are still one linear layer: $(x W_1^\top + b_1) W_2^\top + b_2 = x (W_2 W_1)^\top +
    (b_1 W_2^\top + b_2)$. However many you stack, the network can only draw straight boundaries. An **activation
    function** between layers breaks the linearity, and then stacking pays off.
    """),
    code("""
    first, second = nn.Linear(3, 5), nn.Linear(5, 2)
    x = minitorch.randn(4, 3)
    collapsed_weight = second.weight @ first.weight                   # (2, 3): one layer doing the work of two
    collapsed_bias = first.bias @ second.weight.T + second.bias
    one_layer = x @ collapsed_weight.T + collapsed_bias
    print("two linear layers == one:", minitorch.allclose(second(first(x)), one_layer, atol=1e-6))
    """),
    md(r"""
    The usual activations, and their slopes. The slopes are computed by autograd: for `y = f(x)` applied element by
    element, the gradient of `y.sum()` with respect to `x` is $f'(x)$ at every point at once. The slope is what
    backward multiplies the incoming gradient by, so where it is 0 (ReLU for $x<0$) or nearly 0 (sigmoid and tanh far
    from 0) no gradient gets through.
    """),
    code("""
    activations = {
        "ReLU": nn.ReLU(), "LeakyReLU(0.1)": nn.LeakyReLU(0.1), "GELU": nn.GELU(),
        "Sigmoid": nn.Sigmoid(), "Tanh": nn.Tanh(),
    }
    figure, (values_axis, slopes_axis) = plt.subplots(1, 2, figsize=(11, 3.6))
    for name, activation in activations.items():
        x = minitorch.linspace(-4, 4, 201).requires_grad_()
        y = activation(x)
        y.sum().backward()                       # x.grad[i] = f'(x[i])
        values_axis.plot(x.detach().numpy(), y.detach().numpy(), label=name)
        slopes_axis.plot(x.detach().numpy(), x.grad.numpy(), label=name)
    values_axis.set_title("f(x)")
    slopes_axis.set_title("f'(x), computed by backward")
    for axis in (values_axis, slopes_axis):
        axis.axhline(0, color="gray", linewidth=0.5)
        axis.set_xlabel("x")
        axis.legend(fontsize=8)
    plt.tight_layout()
    plt.show()
    """),
    md(r"""
    * **ReLU** $\max(x, 0)$: cheap, slope exactly 1 for positive inputs, so deep stacks keep their gradients. The
      default choice for hidden layers. Its risk: a unit whose input is always negative gets no gradient and "dies".
    * **LeakyReLU** and **GELU** keep a little slope for negative inputs.
    * **Sigmoid** squashes to $(0, 1)$ (a probability) and **Tanh** to $(-1, 1)$; their slopes are at most 0.25 and 1
      and fade away from 0, which is why deep stacks of them learn slowly (chapter 11 measures it).

    Each exists both as a module (`nn.ReLU()`, handy inside `nn.Sequential`) and as a function
    (`minitorch.nn.functional.relu(x)`, or `minitorch.relu(x)`); the module just calls the function. The forward and
    backward of `Relu`, `Tanh` and `Sigmoid` sit side by side in `minitorch/ops/pointwise/activations.py` and
    `trigonometric.py`.

    ## 4. `nn.Sequential` and looking inside a model

    `nn.Sequential(a, b, c)` is a module whose forward is `c(b(a(x)))`. It names its children `0`, `1`, `2`, ... (or
    by the names you give it with an `OrderedDict`), and a parameter's full name is the path to it:
    `0.weight` is the weight of child `0`.
    """),
    code("""
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))
    print(model)
    for name, parameter in model.named_parameters():
        print(f"  {name:9s} {str(tuple(parameter.shape)):9s} {parameter.numel():5d} numbers")
    print("parameters in all:", sum(parameter.numel() for parameter in model.parameters()))
    print("model[0] is the first Linear:", model[0])
    """),
    md(r"""
    **`state_dict()`** is the model's memory: an ordered dictionary from parameter (and buffer) names to tensors.
    Saving a model means saving this dictionary (`minitorch.save(model.state_dict(), path)`); restoring it means
    building the same architecture and calling **`load_state_dict`**. The names must match, which is why they are
    paths. The tensors in a `state_dict` share memory with the parameters but do not record gradients.
    """),
    code("""
    state = model.state_dict()
    print(list(state.keys()))
    print("requires_grad in the state_dict:", state["0.weight"].requires_grad)

    copy = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))   # fresh random weights
    x = minitorch.randn(3, 64)
    print("before loading, same outputs:", minitorch.allclose(model(x), copy(x)))
    print(copy.load_state_dict(state))
    print("after loading, same outputs: ", minitorch.allclose(model(x), copy(x)))
    """),
    md(r"""
    ## 5. `nn.init`: where the weights start

    Training starts from the initial weights, and a bad start can stall it before it begins. The idea behind the
    standard schemes: keep the *spread* of the signal the same from layer to layer. A layer with `fan_in` inputs sums
    `fan_in` products, so if each weight has variance $\sigma^2$ the output's variance is about
    $\text{fan\_in}\cdot\sigma^2$ times the input's. Choosing $\sigma^2 \approx 1/\text{fan\_in}$ (LeCun) or
    $2/(\text{fan\_in}+\text{fan\_out})$ (Xavier/Glorot, `nn.init.xavier_uniform_`), times a *gain* that makes up for
    what the activation removes (`nn.init.calculate_gain("tanh")` is 5/3), keeps it near 1.
    `nn.init.kaiming_normal_` is the version for ReLU (gain $\sqrt 2$, since ReLU zeroes half the signal).
    `nn.Linear`'s own default, uniform in $\pm 1/\sqrt{\text{fan\_in}}$, has a variance of only
    $1/(3\,\text{fan\_in})$, so each layer multiplies the spread by at most $1/\sqrt 3 \approx 0.58$: harmless in a
    shallow network, a vanishing signal in a deep stack.

    The functions in `nn.init` end with `_`: they overwrite a tensor in place (under `no_grad`, so the change is not
    recorded in a graph). Below, ten `tanh` layers of width 256, started four ways: the standard deviation of the
    activations shows the signal dying out, saturating, or travelling through intact.
    """),
    code("""
    def activation_spread(initialise, depth=10, width=256):
        layers = [nn.Linear(width, width) for _ in range(depth)]
        for layer in layers:
            initialise(layer.weight)
            nn.init.zeros_(layer.bias)
        signal, spreads = minitorch.randn(512, width), []
        with minitorch.no_grad():
            for layer in layers:
                signal = minitorch.tanh(layer(signal))
                spreads.append(signal.std().item())
        return spreads

    schemes = {
        "nn.Linear's default": lambda w: None,                        # keep the weights Linear started with
        "normal_(std=0.01): too small": lambda w: nn.init.normal_(w, std=0.01),
        "normal_(std=1): too large": lambda w: nn.init.normal_(w, std=1.0),
        "xavier_uniform_(gain=5/3)": lambda w: nn.init.xavier_uniform_(w, gain=nn.init.calculate_gain("tanh")),
    }
    for label, initialise in schemes.items():
        spreads = activation_spread(initialise)
        ratio = (spreads[-1] / spreads[0]) ** (1 / (len(spreads) - 1))
        print(f"{label:30s} std after layer 1: {spreads[0]:.3g}, after layer 10: {spreads[-1]:.3g}, "
              f"per layer x{ratio:.2f}")
        plt.plot(range(1, 11), spreads, marker="o", label=label)
    plt.yscale("log")
    plt.xlabel("layer")
    plt.ylabel("std of the activations")
    plt.legend()
    plt.title("10 tanh layers")
    plt.show()
    """),
    md(r"""
    With `std=0.01` each layer multiplies the spread by about $\sqrt{256}\times 0.01 = 0.16$: after a few layers
    nothing is left. With `std=1` every tanh is saturated at $\pm 1$, where its slope is 0, so backward would send
    almost nothing back. `nn.Linear`'s default shrinks the spread layer after layer (the printed factor per layer is a
    little under 0.58, since tanh shrinks it a little more). Xavier's scale with tanh's gain keeps the spread steady.

    ### Exercise 2: a two-layer MLP's forward

    Write `mlp_forward(x, w1, b1, w2, b2)`: a hidden layer `relu(x @ w1.T + b1)` followed by an output layer
    `hidden @ w2.T + b2`, with no activation after the output layer. You may reuse your `linear_forward` and use
    `minitorch.relu` (or build ReLU yourself).
    """),
    solution('''
    def mlp_forward(x, w1, b1, w2, b2):
        """Linear(w1, b1) -> ReLU -> Linear(w2, b2), given the weights."""
        ### BEGIN SOLUTION
        hidden = minitorch.relu(x @ w1.T + b1)
        return hidden @ w2.T + b2
        ### END SOLUTION
    ''', "ch04-mlp-forward"),
    tests("""
    check("ch04.mlp_forward", mlp_forward)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch04.mlp_forward", mlp_forward, [
        (randn(3, 6, seed=4201), randn(5, 6, seed=4202), randn(5, seed=4203), randn(2, 5, seed=4204),
         randn(2, seed=4205)),
        (randn(4, 2, 3, seed=4206), randn(7, 3, seed=4207), randn(7, seed=4208), randn(4, 7, seed=4209),
         randn(4, seed=4210)),
    ])
    ### END HIDDEN TESTS
    """, "ch04-mlp-forward-tests", points=2),
    md(r"""
    ## 6. The four steps of training, made visible

    Every training step, in every framework, is the same four steps, then an update:

    1. **Assemble the graph.** The model's parameters are the *leaves* of the graph to come: tensors you created,
       with `requires_grad=True`. Building the model (`nn.Sequential(...)`) decides which operations forward will
       record.
    2. **Forward.** Run the model on a batch. Each operation computes its output *and* records a node
       (`AddmmBackward0`, `TanhBackward0`, ...) that remembers its inputs and what it needs for its derivative. The
       graph is built as the code runs (it is *dynamic*: an `if` in `forward` can change it from one batch to the next).
    3. **Loss.** Compare the output with the target; one number says how wrong the model is. It is the graph's root.
    4. **Backward.** `loss.backward()` walks the graph from the root back to the leaves, applying the chain rule at
       each node, and stores $\partial\,\text{loss}/\partial p$ in every parameter's `.grad`.

    Then the **optimizer step** moves every parameter a little against its gradient.

    `widgets.GraphStepper.capture` runs one training step of a tiny MLP (2 inputs, 3 hidden units, 2 classes) while
    watching it. Frame 0 shows the assembled leaves; then one frame per forward operation, grouped in a box per module
    (`0` is the first Linear, `1` the Tanh, `2` the second Linear); the last forward frame is the loss; then one frame
    per backward step, in the order the real engine runs them. Press **next** or **play**, or drag the slider; click a
    node for its values. Choose modules under **fold** to collapse each into one box; on a small screen, where the
    whole graph would not be readable, the modules start folded: open one by choosing it under **fold**. (The
    drawing needs Graphviz; without it the widget says so, and the captions printed below tell the same story.)
    """),
    code("""
    tiny = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 2))       # step 1: assemble
    points = minitorch.tensor([[0.5, -1.0], [1.5, 0.2], [-0.3, 0.8], [1.0, 1.0]])
    labels = minitorch.tensor([0, 1, 1, 0])
    loss_function = nn.CrossEntropyLoss()

    def training_loss(points, labels):
        logits = tiny(points)                                  # step 2: forward
        loss = loss_function(logits, labels)                   # step 3: loss
        return loss

    stepper = widgets.GraphStepper.capture(training_loss, points, labels, model=tiny)   # step 4 runs inside
    stepper
    """),
    code("""
    import textwrap

    for frame in range(stepper.frame_count):   # the captions in words, shortened to one line each
        print(f"[{frame:2d}] {textwrap.shorten(stepper.caption(frame), 150, placeholder=' ...')}")
    """),
    md(r"""
    Building the stepper ran the real `loss.backward()`, so every parameter now holds its gradient. The update is one
    line per parameter, $p \leftarrow p - \text{lr}\cdot\nabla_p$, which is exactly what `optim.SGD.step()` does (read
    `minitorch/optim/sgd.py`).
    """),
    code("""
    print("tiny[0].weight.grad =\\n", tiny[0].weight.grad)
    with minitorch.no_grad():
        loss_before = training_loss(points, labels).item()
    weight_before = tiny[0].weight.detach().clone()
    optimizer = optim.SGD(tiny.parameters(), lr=0.5)
    optimizer.step()
    print("moved by -lr * grad:", minitorch.allclose(tiny[0].weight - weight_before, -0.5 * tiny[0].weight.grad))
    with minitorch.no_grad():
        print(f"loss before the step {loss_before:.4f}, after {training_loss(points, labels).item():.4f}")
    """),
    md(r"""
    One detail to remember: **gradients accumulate**. `backward()` *adds* into `.grad` (so that a parameter used twice
    gets both contributions). Before each new backward pass you reset them with `optimizer.zero_grad()`, or the
    gradients of every earlier batch pile up. The training loop is therefore always:

    ```python
    for inputs, targets in batches:
        optimizer.zero_grad()                  # forget the last batch's gradients
        loss = loss_function(model(inputs), targets)   # forward and loss (the graph is assembled as this runs)
        loss.backward()                        # gradients into every parameter's .grad
        optimizer.step()                       # move the parameters
    ```

    ## 7. A real task: handwritten digits

    `sklearn.datasets.load_digits` ships with scikit-learn (nothing to download): 1797 images of handwritten digits,
    8×8 pixels with values 0 to 16, and their labels 0 to 9. Each image becomes a vector of 64 numbers, scaled to
    $[0, 1]$. We keep 300 images aside to test on: a model is only good if it is right on images it never trained on.
    """),
    code("""
    from sklearn.datasets import load_digits

    digits = load_digits()
    order = np.random.default_rng(0).permutation(len(digits.target))   # shuffle once, the same way every run
    images = minitorch.tensor(digits.data[order] / 16.0, dtype=minitorch.float32)
    targets = minitorch.tensor(digits.target[order])
    train_images, train_targets = images[:-300], targets[:-300]
    test_images, test_targets = images[-300:], targets[-300:]
    print("train", tuple(train_images.shape), "test", tuple(test_images.shape), targets.dtype)

    figure, axes = plt.subplots(1, 10, figsize=(10, 1.3))
    for axis, image, target in zip(axes, images[:10], targets[:10]):
        axis.imshow(image.reshape(8, 8).numpy(), cmap="gray_r")
        axis.set_title(int(target))
        axis.axis("off")
    plt.show()
    """),
    md(r"""
    The model is the 64 → 32 → 10 MLP from section 4: ten outputs, one *logit* (an unnormalised score) per digit.
    `nn.CrossEntropyLoss` turns the logits into probabilities with a softmax and measures how much probability the
    right digit got (chapter 5 opens it up). Each step trains on a **mini-batch** of 64 images chosen at random: a
    noisy but cheap estimate of the gradient over the whole set. One pass over the training set is an *epoch*.
    """),
    code("""
    minitorch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))
    loss_function = nn.CrossEntropyLoss()
    optimizer = optim.SGD(model.parameters(), lr=0.2)

    def accuracy(model, images, targets):
        with minitorch.no_grad():                  # evaluation: no graph needed
            return (model(images).argmax(dim=1) == targets).float().mean().item()

    batch_size, losses, test_accuracy = 64, [], []
    for _epoch in range(15):
        model.train()
        shuffled = minitorch.randperm(len(train_targets))
        for start in range(0, len(shuffled), batch_size):
            batch = shuffled[start:start + batch_size]
            optimizer.zero_grad()
            loss = loss_function(model(train_images[batch]), train_targets[batch])
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        model.eval()
        test_accuracy.append(accuracy(model, test_images, test_targets))
    print(f"{len(losses)} steps; final test accuracy {test_accuracy[-1]:.1%}")
    """),
    code("""
    steps_per_epoch = len(losses) // len(test_accuracy)
    smoothed = np.convolve(losses, np.ones(20) / 20, mode="valid")
    figure, (loss_axis, accuracy_axis) = plt.subplots(1, 2, figsize=(11, 3.5))
    loss_axis.plot(losses, alpha=0.35, label="each mini-batch")
    loss_axis.plot(np.arange(19, len(losses)), smoothed, label="average of 20")
    loss_axis.set_yscale("log")
    loss_axis.set_xlabel("step")
    loss_axis.set_ylabel("cross-entropy")
    loss_axis.legend()
    accuracy_axis.plot(np.arange(1, len(test_accuracy) + 1) * steps_per_epoch, test_accuracy, marker="o")
    accuracy_axis.set_xlabel("step")
    accuracy_axis.set_ylabel("test accuracy")
    accuracy_axis.set_ylim(0, 1)
    plt.tight_layout()
    plt.show()
    """),
    md(r"""
    The loss of one mini-batch is noisy (each batch is a different sample), but its average falls steadily, and the
    accuracy on the 300 unseen images climbs above 90% within a few epochs. The model's mistakes are worth a look:
    """),
    code("""
    with minitorch.no_grad():
        predictions = model(test_images).argmax(dim=1)
    wrong = (predictions != test_targets).nonzero().flatten()[:8]
    mistakes = (predictions != test_targets).sum().item()
    print(f"{len(wrong)} of the {mistakes} mistakes, shown as 'predicted (true)':")
    figure, axes = plt.subplots(1, max(len(wrong), 1), figsize=(1.2 * max(len(wrong), 1), 1.5), squeeze=False)
    for axis, index in zip(axes[0], wrong.tolist()):
        axis.imshow(test_images[index].reshape(8, 8).numpy(), cmap="gray_r")
        axis.set_title(f"{predictions[index].item()} ({test_targets[index].item()})")
        axis.axis("off")
    plt.show()
    """),
    md(r"""
    ### Exercise 3: one full training step, by hand

    Write `sgd_step(x, target, weight, bias, lr)`: one step of gradient descent for a linear model with the mean
    squared error, with autograd doing the derivatives:

    1. make `weight` and `bias` leaves that require gradients (the inputs are fresh copies, so switching that on
       is fine; their values must stay as they are);
    2. forward: the linear model's prediction $x W^\top + b$, then the mean squared error against `target`;
    3. backward, which fills `weight.grad` and `bias.grad`;
    4. the update $W' = W - \text{lr} \cdot \partial L / \partial W$, and likewise for the bias, **without recording
       it**: the new parameters must be leaves with no `grad_fn`, as an optimizer's parameters are (section 6 of
       chapter 2 showed the tool for this).

    Return the tuple `(new_weight, new_bias, loss)`, the loss as a 0-d tensor detached from its graph. The check
    tells you if a returned tensor is still part of the graph. `hint("ch04.sgd_step")` gives hints step by step.
    """),
    solution('''
    def sgd_step(x, target, weight, bias, lr):
        """One SGD step on a linear model with the MSE loss: return (new_weight, new_bias, loss)."""
        ### BEGIN SOLUTION
        weight = weight.requires_grad_()
        bias = bias.requires_grad_()
        prediction = x @ weight.T + bias
        loss = ((prediction - target) ** 2).mean()
        loss.backward()
        with minitorch.no_grad():
            return weight - lr * weight.grad, bias - lr * bias.grad, loss.detach()
        ### END SOLUTION
    ''', "ch04-sgd-step"),
    tests("""
    check("ch04.sgd_step", sgd_step)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch04.sgd_step", sgd_step, [
        (randn(10, 4, seed=4301), randn(10, 3, seed=4302), randn(3, 4, seed=4303), randn(3, seed=4304), 0.3),
        (randn(1, 2, seed=4305), randn(1, 1, seed=4306), randn(1, 2, seed=4307), randn(1, seed=4308), 1.0),
    ])
    ### END HIDDEN TESTS
    """, "ch04-sgd-step-tests", points=3),
    md(r"""
    ## 8. Build it: the `Module` machinery

    Every model in this chapter leaned on `nn.Module` to find its parameters, name them, save and load them, and
    switch modes. None of that is magic: it is a class with two dictionaries and a few short walks over them.

    ### Exercise 4: your own `Module`

    Complete `Module` below, with PyTorch's behaviour:

    * `__setattr__`: assigning an `nn.Parameter` files it in `self._parameters`, assigning a `Module` files it in
      `self._modules`, and in every case the attribute is still set (so `self.weight` reads back); other values
      (numbers, strings) are just attributes;
    * `named_parameters()`: pairs `(name, parameter)` for the module's own parameters **first**, then each child's,
      in the order the children were assigned, with a child's names prefixed by its attribute name and a dot
      (`rest.first.weight`), at any depth; a parameter reachable twice (a shared layer) is listed **once**, under
      the first name; `parameters()` gives the same parameters without names;
    * `state_dict()`: a dictionary from every path to the parameter's values, detached; unlike `named_parameters`,
      a shared parameter appears under **each** of its paths (PyTorch's rule); `load_state_dict(state)` copies the
      values in, without recording anything;
    * `train(mode=True)` sets `self.training` on the module and every module inside it and returns the module;
      `eval()` is `train(False)`.

    The check builds the same nested model (chains of small `Affine` layers, below the class) on your `Module` and on
    minitorch's `nn.Module`, and compares the names, the values, a `load_state_dict` round trip and the training
    flags. `hint("ch04.module_report")` gives hints step by step.
    """),
    solution('''
    class Module:
        """The machinery of nn.Module: registration, listing, saving and loading, train and eval."""

        def __init__(self):
            object.__setattr__(self, "_parameters", {})
            object.__setattr__(self, "_modules", {})
            object.__setattr__(self, "training", True)

        def __setattr__(self, name, value):
            ### BEGIN SOLUTION
            if isinstance(value, nn.Parameter):
                self._parameters[name] = value
            elif isinstance(value, Module):
                self._modules[name] = value
            object.__setattr__(self, name, value)
            ### END SOLUTION

        def named_parameters(self, prefix="", seen=None):
            ### BEGIN SOLUTION
            seen = set() if seen is None else seen
            for name, parameter in self._parameters.items():
                if id(parameter) not in seen:
                    seen.add(id(parameter))
                    yield prefix + name, parameter
            for child_name, child in self._modules.items():
                yield from child.named_parameters(prefix + child_name + ".", seen)
            ### END SOLUTION

        def parameters(self):
            ### BEGIN SOLUTION
            for _, parameter in self.named_parameters():
                yield parameter
            ### END SOLUTION

        def state_dict(self, prefix=""):
            ### BEGIN SOLUTION
            state = {prefix + name: parameter.detach() for name, parameter in self._parameters.items()}
            for child_name, child in self._modules.items():
                state.update(child.state_dict(prefix + child_name + "."))
            return state
            ### END SOLUTION

        def load_state_dict(self, state):
            ### BEGIN SOLUTION
            own = self.state_dict()
            with minitorch.no_grad():
                for name, values in state.items():
                    own[name].copy_(values)
            ### END SOLUTION

        def train(self, mode=True):
            ### BEGIN SOLUTION
            self.training = mode
            for child in self._modules.values():
                child.train(mode)
            return self
            ### END SOLUTION

        def eval(self):
            return self.train(False)


    # The models the check builds on your Module (already written).
    class Affine(Module):
        def __init__(self, weight, bias):
            super().__init__()
            self.weight = nn.Parameter(weight)
            self.bias = nn.Parameter(bias)
            self.note = "a plain attribute: not registered"


    class Chain(Module):
        def __init__(self, first, gain, rest=None):
            super().__init__()
            self.first = first
            self.has_rest = rest is not None  # a plain attribute
            if rest is not None:
                self.rest = rest
            self.gain = nn.Parameter(gain)  # assigned last, listed first: a module's own parameters come first


    def build_chain(sizes, values, share):
        """Chain(Affine, gain, Chain(...)) for the layer sizes, filled from values (cycled); share: reuse layer 1."""
        sizes = [int(size) for size in sizes.tolist()]
        needed = sum(sizes[i + 1] * sizes[i] + sizes[i + 1] + 1 for i in range(len(sizes) - 1))
        pool = iter(np.resize(values.astype(np.float32), needed).tolist())

        def take(*shape):
            count = int(np.prod(shape))
            return minitorch.tensor(np.array([next(pool) for _ in range(count)], dtype=np.float32).reshape(shape))

        layers = [Affine(take(sizes[i + 1], sizes[i]), take(sizes[i + 1])) for i in range(len(sizes) - 1)]
        gains = [take(1) for _ in layers]
        if share and len(layers) > 1:
            layers[-1] = layers[0]
        model = None
        for layer, gain in zip(reversed(layers), reversed(gains)):
            model = Chain(layer, gain, model)
        return model


    def chain_modules(model):
        """Every module of the chain, outside in, found by attribute name."""
        found, stack = [], [model]
        while stack:
            module = stack.pop()
            found.append(module)
            if isinstance(module, Chain):
                stack.extend([module.rest, module.first] if module.has_rest else [module.first])
        return found


    def name_codes(names):
        """The names as rows of 64 UTF-8 bytes, zero-padded: a graded answer holds arrays; the check reads names."""
        codes = np.zeros((len(names), 64), dtype=np.uint8)
        for row, name in enumerate(names):
            codes[row, : len(name.encode())] = list(name.encode())
        return codes


    def module_report_of_my_module(sizes, values, new_values, share):
        """(name codes, state_dict key codes, values, values after load_state_dict, training flags)."""
        model = build_chain(sizes, values, share)
        names = [name for name, _ in model.named_parameters()]
        flat = minitorch.cat([parameter.detach().reshape(-1) for parameter in model.parameters()])
        state = model.state_dict()
        model.load_state_dict(build_chain(sizes, new_values, share).state_dict())
        loaded = minitorch.cat([parameter.detach().reshape(-1) for parameter in model.parameters()])
        model.eval()
        after_eval = [module.training for module in chain_modules(model)]
        model.train()
        after_train = [module.training for module in chain_modules(model)]
        return name_codes(names), name_codes(state), flat, loaded, np.array(after_eval + after_train)
    ''', "ch04-module"),
    tests("""
    check("ch04.module_report", module_report_of_my_module)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch04.module_report", module_report_of_my_module, [
        (np.array([5, 4, 3, 2, 1]), randn(40, seed=4400), randn(40, seed=4401), 0),
        (np.array([3, 3, 3]), randn(9, seed=4402), randn(9, seed=4403), 1),
        (np.array([1, 6]), randn(5, seed=4404), randn(5, seed=4405), 0),
    ])
    ### END HIDDEN TESTS
    """, "ch04-module-tests", points=3),
    md(r"""
    Your names next to minitorch's `nn.Module`, on a chain three deep whose last layer is its first:
    """),
    code("""
    class ReferenceAffine(nn.Module):
        def __init__(self, weight, bias):
            super().__init__()
            self.weight, self.bias = nn.Parameter(weight), nn.Parameter(bias)


    class ReferenceChain(nn.Module):
        def __init__(self, first, gain, rest=None):
            super().__init__()
            self.first = first
            if rest is not None:
                self.rest = rest
            self.gain = nn.Parameter(gain)


    shared = ReferenceAffine(minitorch.ones(2, 2), minitorch.zeros(2))
    reference_model = ReferenceChain(shared, minitorch.ones(1), ReferenceChain(ReferenceAffine(minitorch.ones(2, 2),
        minitorch.zeros(2)), minitorch.ones(1), ReferenceChain(shared, minitorch.ones(1))))
    print("nn.Module:   ", [name for name, _ in reference_model.named_parameters()])
    print("  state_dict:", list(reference_model.state_dict()))
    try:
        mine = build_chain(np.array([2, 2, 2, 2]), np.ones(12), share=1)
        print("your Module: ", [name for name, _ in mine.named_parameters()])
        print("  state_dict:", list(mine.state_dict()))
    except NotImplementedError:
        print("Complete Module above first, then run this cell again.")
    """),
    md(r"""
    ## 9. Build it: buffers, hooks, `to` and a strict `state_dict`

    A model holds more than its parameters. BatchNorm keeps running statistics, a transformer a causal mask: tensors
    that belong to the model, move with it to another dtype or device, and (some of them) are saved with it, but
    that no optimizer may touch. Those are **buffers**, registered with `register_buffer(name, tensor,
    persistent=True)`; a non-persistent buffer (a mask recomputed from the configuration) moves with the model but
    is not saved. A **forward hook** lets code outside the model watch (or change) what a module returns, without
    editing its `forward`: the monitors of chapter 11 are hooks. And `model.to(minitorch.float64)` has to reach
    every tensor at every depth *without* replacing the parameters: an optimizer made before the call holds
    those very objects.

    ### Exercise 5: `MyModule`, your `Module` complete

    Complete `MyModule` below, a new class (copy what you need from exercise 4's `Module`), with PyTorch's behaviour:

    * `__setattr__` files an `nn.Parameter` in `self._parameters`, a `MyModule` in `self._modules`, a tensor assigned
      to an existing buffer's name in `self._buffers`, and anything else as a plain attribute. Unlike exercise 4,
      the registered values live *only* in the dictionaries, as in PyTorch: `__getattr__` (already written) finds
      them there;
    * `register_buffer(name, tensor, persistent=True)` files a buffer and remembers whether it is saved;
    * `named_parameters()` as in exercise 4 (buffers are not parameters), and `named_buffers()` the same way for
      buffers, persistent or not;
    * `register_forward_hook(hook)` returns a handle whose `remove()` takes the hook out again; `__call__` runs
      `forward`, then every hook as `hook(module, args, output)` in the order they were registered, and a hook
      that returns something other than `None` replaces the output (the next hook sees the new one);
    * `_apply(fn)` applies `fn` to every parameter and buffer, in every child: a parameter keeps its identity (give
      it new data: `parameter.data = fn(parameter)`), a buffer is replaced in its dictionary; `to(dtype)` (already
      written) is `_apply` with a conversion;
    * `state_dict()` maps every path to its tensor, detached: parameters (a shared one under each of its paths)
      and the **persistent** buffers; `load_state_dict(state, strict=True)` refuses a dictionary with missing or
      unexpected keys with PyTorch's error (`RuntimeError: Error(s) in loading state_dict for Block:` then a line
      `Missing key(s) in state_dict: "a", "b". ` or `Unexpected key(s) in state_dict: ...`), and otherwise copies
      every value in place without recording anything.

    The check builds trees of small modules on your `MyModule` and on minitorch's `nn.Module` (with buffers of every
    kind, and a weight shared between two modules), registers hooks, calls `to(minitorch.float64)`, saves and
    loads, and compares what each shows; names are compared as their positions in the sorted list of the tree's
    paths (the cell after the check prints your names on a model of its own). `hint("ch04.module_machinery")`
    gives hints step by step.
    """),
    solution('''
    import minitorch
    import minitorch.nn as nn
    from grading.library.module import machinery_report  # the report the check compares


    class RemovableHandle:
        """Returned by register_forward_hook: remove() takes the hook out again."""

        def __init__(self, hooks, key):
            self.hooks, self.key = hooks, key

        def remove(self):
            """Take the hook out of the dictionary (a second call changes nothing)."""
            ### BEGIN SOLUTION
            self.hooks.pop(self.key, None)
            ### END SOLUTION


    class MyModule:
        """nn.Module's machinery: parameters, buffers, children, forward hooks, _apply/to, state_dict."""

        def __init__(self):
            object.__setattr__(self, "_parameters", {})
            object.__setattr__(self, "_buffers", {})
            object.__setattr__(self, "_non_persistent_buffers", set())
            object.__setattr__(self, "_modules", {})
            object.__setattr__(self, "_forward_hooks", {})
            object.__setattr__(self, "_next_hook", 0)
            object.__setattr__(self, "training", True)

        def __getattr__(self, name):
            # called only when the usual lookup fails: parameters, buffers and children live in the dictionaries
            for store in ("_parameters", "_buffers", "_modules"):
                values = self.__dict__.get(store, {})
                if name in values:
                    return values[name]
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

        def __setattr__(self, name, value):
            """File a Parameter, a MyModule or a tensor for an existing buffer in its dictionary; else set it."""
            ### BEGIN SOLUTION
            if isinstance(value, nn.Parameter):
                self._parameters[name] = value
            elif isinstance(value, MyModule):
                self._modules[name] = value
            elif name in self._buffers:
                self._buffers[name] = value
            else:
                object.__setattr__(self, name, value)
            ### END SOLUTION

        def register_buffer(self, name, tensor, persistent=True):
            """File a buffer; remember the names of the buffers state_dict must leave out."""
            ### BEGIN SOLUTION
            self._buffers[name] = tensor
            if persistent:
                self._non_persistent_buffers.discard(name)
            else:
                self._non_persistent_buffers.add(name)
            ### END SOLUTION

        def named_parameters(self, prefix="", seen=None):
            """(path, parameter) pairs: own first, then each child's; a parameter seen before is skipped."""
            ### BEGIN SOLUTION
            seen = set() if seen is None else seen
            for name, parameter in self._parameters.items():
                if id(parameter) not in seen:
                    seen.add(id(parameter))
                    yield prefix + name, parameter
            for child_name, child in self._modules.items():
                yield from child.named_parameters(prefix + child_name + ".", seen)
            ### END SOLUTION

        def parameters(self):
            for _, parameter in self.named_parameters():
                yield parameter

        def named_buffers(self, prefix=""):
            """(path, buffer) pairs, persistent or not, own first, then each child's."""
            ### BEGIN SOLUTION
            yield from ((prefix + name, buffer) for name, buffer in self._buffers.items())
            for child_name, child in self._modules.items():
                yield from child.named_buffers(prefix + child_name + ".")
            ### END SOLUTION

        def register_forward_hook(self, hook):
            """Keep hook(module, args, output) under a new key; return a RemovableHandle for it."""
            ### BEGIN SOLUTION
            key = self._next_hook
            object.__setattr__(self, "_next_hook", key + 1)
            self._forward_hooks[key] = hook
            return RemovableHandle(self._forward_hooks, key)
            ### END SOLUTION

        def __call__(self, *args):
            """forward(*args), then every hook in registration order; a non-None result replaces the output."""
            ### BEGIN SOLUTION
            output = self.forward(*args)
            for hook in list(self._forward_hooks.values()):
                result = hook(self, args, output)
                if result is not None:
                    output = result
            return output
            ### END SOLUTION

        def _apply(self, fn):
            """fn on every parameter (new data, same object) and buffer (replaced), in every child; return self."""
            ### BEGIN SOLUTION
            for child in self._modules.values():
                child._apply(fn)
            with minitorch.no_grad():
                for parameter in self._parameters.values():
                    parameter.data = fn(parameter)
            for name, buffer in self._buffers.items():
                self._buffers[name] = fn(buffer)
            return self
            ### END SOLUTION

        def to(self, dtype):
            return self._apply(lambda tensor: tensor.to(dtype) if tensor.is_floating_point() else tensor)

        def state_dict(self, prefix=""):
            """{path: tensor.detach()}: every parameter path and the persistent buffers, then each child's."""
            ### BEGIN SOLUTION
            state = {prefix + name: parameter.detach() for name, parameter in self._parameters.items()}
            for name, buffer in self._buffers.items():
                if name not in self._non_persistent_buffers:
                    state[prefix + name] = buffer.detach()
            for child_name, child in self._modules.items():
                state.update(child.state_dict(prefix + child_name + "."))
            return state
            ### END SOLUTION

        def load_state_dict(self, state, strict=True):
            """Refuse missing or unexpected keys (strict) in PyTorch's words; then copy each value in place."""
            ### BEGIN SOLUTION
            own = self.state_dict()
            missing = [key for key in own if key not in state]
            unexpected = [key for key in state if key not in own]
            if strict and (missing or unexpected):
                errors = [
                    f"{kind} key(s) in state_dict: " + ", ".join(f'"{key}"' for key in keys) + ". "
                    for kind, keys in (("Missing", missing), ("Unexpected", unexpected))
                    if keys
                ]
                heading = f"Error(s) in loading state_dict for {type(self).__name__}:\\n\\t"
                raise RuntimeError(heading + "\\n\\t".join(errors))
            with minitorch.no_grad():
                for key, values in state.items():
                    if key in own:
                        own[key].copy_(values)
            return missing, unexpected
            ### END SOLUTION


    def module_machinery_report(structure, values, new_values, x):
        """What the check compares, for a tree of small modules built on your MyModule."""
        return machinery_report(MyModule, structure, values, new_values, x)
    ''', "ch04-module-machinery"),
    tests("""
    check("ch04.module_machinery", module_machinery_report)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch04.module_machinery", module_machinery_report, [
        (np.array([(-1, 4, 2, -1), (0, 1, 1, -1), (0, 2, 4, -1), (1, 3, 3, 0), (2, 1, 0, 1)]),
         randn(11, seed=4500), randn(11, seed=4501), randn(5, seed=4502)),
        (np.array([(-1, 2, 0, -1), (0, 2, 7, -1), (0, 3, 0, -1), (2, 1, 2, -1), (2, 2, 1, 1), (0, 1, 4, -1)]),
         randn(11, seed=4503), randn(11, seed=4504), randn(1, seed=4505)),
        (np.array([(-1, 5, 7, -1)]), randn(5, seed=4506), randn(5, seed=4507), randn(3, seed=4508)),
    ])
    ### END HIDDEN TESTS
    """, "ch04-module-machinery-tests", points=3),
    md(r"""
    Your `MyModule` at work: `use("MyModule")` hands out your class if it passes its public checks, and minitorch's
    `nn.Module` otherwise (saying so in one line). A digit classifier built on it keeps a buffer of how often
    each hidden unit fires, filled by a forward hook; it moves to float64 with `to`, trains with `optim.SGD` on
    `parameters()` (the buffers stay out of the optimizer's reach), and is copied through `state_dict`.
    """),
    code("""
    from grading.library import my_library, use

    Base = use("MyModule")


    class Layer(Base):
        def __init__(self, in_features, out_features):
            super().__init__()
            self.weight = nn.Parameter(minitorch.randn(out_features, in_features) / in_features ** 0.5)
            self.bias = nn.Parameter(minitorch.zeros(out_features))

        def forward(self, x):
            return x @ self.weight.T + self.bias


    class DigitNet(Base):
        def __init__(self):
            super().__init__()
            self.hidden = Layer(64, 32)
            self.out = Layer(32, 10)
            self.register_buffer("fired", minitorch.zeros(32))                         # saved with the model
            self.register_buffer("last_input", minitorch.zeros(64), persistent=False)  # moves with it, not saved

        def forward(self, x):
            return self.out(minitorch.relu(self.hidden(x)))


    minitorch.manual_seed(0)
    net = DigitNet()
    weight_object = net.hidden.weight
    net.to(minitorch.float64)
    print("after to(float64):", net.hidden.weight.dtype, net.fired.dtype, "| the same weight object:",
          net.hidden.weight is weight_object)


    def count_firing(module, args, output):   # a forward hook: watches the hidden layer's output
        with minitorch.no_grad():
            net.fired.add_((output > 0).to(minitorch.float64).sum(dim=0))


    handle = net.hidden.register_forward_hook(count_firing)
    optimizer = optim.SGD(net.parameters(), lr=0.2)
    train_images64, test_images64 = train_images.to(minitorch.float64), test_images.to(minitorch.float64)
    for _epoch in range(3):
        shuffled = minitorch.randperm(len(train_targets))
        for start in range(0, len(shuffled), 64):
            batch = shuffled[start:start + 64]
            optimizer.zero_grad()
            loss_function(net(train_images64[batch]), train_targets[batch]).backward()
            optimizer.step()
    handle.remove()
    print("parameters:", [name for name, _ in net.named_parameters()])
    print("buffers:   ", [name for name, _ in net.named_buffers()])
    print(f"test accuracy after 3 epochs: {accuracy(net, test_images64, test_targets):.1%}; hidden units that "
          f"never fired: {int((net.fired == 0).sum().item())} of 32")
    copy = DigitNet().to(minitorch.float64)
    copy.load_state_dict(net.state_dict())
    print("state_dict keys:", list(net.state_dict()))
    print("the copy answers as the original:", minitorch.allclose(copy(test_images64), net(test_images64)))
    """),
    md(r"""
    ### Your library so far

    The pieces of your own minitorch, and whether each one is yours (it passes its public checks) or still
    minitorch's. Later chapters take your pieces from this notebook once it is saved, so save it before moving on.
    """),
    code("""
        my_library("04_networks")
    """),
    md(r"""
    ## Summary

    * `nn.Parameter` is a tensor that requires grad and belongs to a model; assigning one (or a sub-module) to an
      attribute of an `nn.Module` registers it, and `parameters()` / `named_parameters()` find it.
    * `nn.Linear` computes $xW^\top + b$ with $W$ of shape (out, in); activations (`nn.ReLU`, `nn.Tanh`, ...) between
      layers are what make depth useful; `nn.Sequential` chains modules.
    * `state_dict()` maps parameter paths to tensors; `load_state_dict` restores them into the same architecture.
    * `nn.init` sets starting weights in place; scales near $1/\text{fan\_in}$ keep the signal alive through depth.
    * A training step: assemble the graph, forward, loss, backward (then `optimizer.step()` and `zero_grad()`).
    * `nn.Module` is two dictionaries filled by `__setattr__` and short recursive walks over them: you wrote one.
    * Buffers are the model's tensors that are not trained (saved only when persistent); forward hooks watch or
      replace a module's output; `to` reaches every tensor at every depth and keeps each parameter's identity;
      a strict `load_state_dict` refuses missing and unexpected keys: you wrote those too.

    Next, chapter 5 opens the two pieces used here as black boxes: the loss function and the optimizer.
    """),
    code("""
    summary("ch04")
    """),
]

write("04_networks", cells)
