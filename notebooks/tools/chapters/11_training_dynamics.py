"""Chapter 11: training dynamics and debugging (gradient monitor, vanishing and exploding gradients, initialisation,
gradient clipping, dropout, batch norm, anomaly detection, overfitting one batch)."""

from author import code, md, solution, tests, write

cells = [
    md(r"""
    # 11. Training dynamics and debugging

    A network that does not learn rarely says why. The loss stays flat, or turns into `nan`, or the model is perfect
    on the training data and poor on anything else. This chapter is about looking inside while it trains, and about
    the standard remedies.

    By the end of this chapter you will be able to:

    * watch each layer's gradients during training with the **gradient monitor** (`widgets.GradientMonitor`), and
      recognise **vanishing** and **exploding** gradients;
    * explain why sigmoid layers with a careless initialisation barely learn, and fix it with ReLU and
      **Kaiming initialisation** (`nn.init.kaiming_normal_`; `nn.init.xavier_uniform_` for tanh and sigmoid);
    * tame exploding gradients with **gradient clipping** (`nn.utils.clip_grad_norm_`);
    * use **dropout** (`nn.Dropout`) and know why it behaves differently in `train()` and `eval()` mode;
    * speed up training of a deep network with **batch normalisation** (`nn.BatchNorm1d`), and derive and write
      its backward pass by hand;
    * find the operation that produced a `nan` gradient with **anomaly detection**
      (`minitorch.autograd.detect_anomaly`);
    * check a training setup by **overfitting one small batch**.
    """),
    code("""
    import math
    import warnings

    import matplotlib.pyplot as plt
    import numpy as np
    from sklearn.datasets import load_digits

    import minitorch
    import minitorch.nn as nn
    import minitorch.nn.functional as F
    import minitorch.optim as optim
    import widgets
    from grading import check, hint, randn, summary  # noqa: F401 (hint("<exercise>") shows hints, step by step)

    digits = load_digits()                                         # 1,797 images of 8x8 pixels, bundled with sklearn
    order = np.random.default_rng(0).permutation(len(digits.target))
    images = minitorch.tensor(digits.data[order] / 16.0, dtype=minitorch.float32)
    labels = minitorch.tensor(digits.target[order])
    train_images, train_labels = images[:1400], labels[:1400]
    test_images, test_labels = images[1400:], labels[1400:]
    print("train", tuple(train_images.shape), "test", tuple(test_images.shape))
    """),
    md(r"""
    Two helpers used all through the chapter: `deep_mlp` stacks `depth` hidden layers of the same width, each a
    `Linear` followed by an activation, with the weights started by `initialise`; `train` runs plain SGD on random
    mini-batches of the digits and returns the losses. Every call of `train` draws the *same* mini-batches (its own
    seeded generator), so differences between runs come from the models, not from luck; it stops early if the loss
    stops being a finite number.
    """),
    code("""
    def deep_mlp(activation, initialise=None, depth=10, width=64, batch_norm=False):
        layers, fan_in = [], 64
        for _ in range(depth):
            linear = nn.Linear(fan_in, width)
            if initialise is not None:
                initialise(linear.weight)
                nn.init.zeros_(linear.bias)
            layers.append(linear)
            if batch_norm:
                layers.append(nn.BatchNorm1d(width))
            layers.append(activation())
            fan_in = width
        layers.append(nn.Linear(width, 10))
        return nn.Sequential(*layers)


    def train(model, steps=60, lr=0.1, max_norm=None, batch_size=64):
        generator = minitorch.Generator().manual_seed(0)           # the same mini-batches for every model
        optimizer = optim.SGD(model.parameters(), lr=lr)
        model.train()
        losses = []
        for _ in range(steps):
            batch = minitorch.randint(0, len(train_labels), (batch_size,), generator=generator)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(train_images[batch]), train_labels[batch])
            loss.backward()
            if max_norm is not None:
                nn.utils.clip_grad_norm_(model.parameters(), max_norm)
            optimizer.step()
            losses.append(loss.item())
            if not math.isfinite(losses[-1]):                      # diverged: nothing more to learn from it
                break
        return losses
    """),
    md(r"""
    ## 1. Gradients travel backward through every layer

    Backward applies the chain rule layer by layer, from the loss to the input. For a stack
    $h_{k} = f(W_k h_{k-1})$, the gradient reaching layer $k$ is the gradient of layer $k+1$ multiplied by
    $W_{k+1}^\top$ and by the slope $f'$ of the activation. Ten layers, ten such factors, *multiplied*: if each
    shrinks the gradient a little, the first layers get almost nothing (**vanishing gradients**); if each grows it a
    little, they get enormous updates (**exploding gradients**).

    The sigmoid's slope is at most $\frac14$ (at 0) and much smaller away from 0. Ten sigmoid layers multiply the
    gradient by at most $(1/4)^{10} \approx 10^{-6}$ from the activations alone.

    The **gradient monitor** shows this while a model trains. It hooks into every parameter
    (`register_post_accumulate_grad_hook`: called each time backward stores a gradient) and records, per layer and per
    step, the gradient norm $\lVert g\rVert = \sqrt{\sum g^2}$ over the layer's parameters, and how much each optimizer
    step changes the weights. The training loop does not change. Its code is in `widgets/gradients.py`.

    Below: ten sigmoid layers with `nn.Linear`'s default initialisation. Display the monitor first, then train; the
    charts update when the training cell finishes.
    """),
    code("""
    minitorch.manual_seed(0)
    sigmoid_model = deep_mlp(nn.Sigmoid)                          # nn.Linear's default weights
    sigmoid_monitor = widgets.GradientMonitor(sigmoid_model)
    sigmoid_monitor
    """),
    code("""
    sigmoid_losses = train(sigmoid_model)
    print(f"loss: {sigmoid_losses[0]:.3f} at the start, {sigmoid_losses[-1]:.3f} after {len(sigmoid_losses)} steps "
          f"(guessing gives ln 10 = {math.log(10):.3f})")
    for flag in sigmoid_monitor.flags()[:4]:
        print(flag)
    """),
    md(r"""
    Compare the two losses printed above with $\ln 10$, the loss of a uniform guess over 10 classes: a loss that
    stays near it means the network has learnt next to nothing. The first chart shows why: the layers' gradient norms
    are spread over many orders of magnitude, and the flags name the layers whose norm fell below the monitor's
    "vanishing" threshold ($10^{-6}$): those get essentially no signal.

    Now the usual modern recipe: **ReLU** (slope exactly 1 wherever it is active) and **Kaiming initialisation**
    (weights scaled so that the signal keeps its size through each ReLU layer; section 2 derives it).
    """),
    code("""
    minitorch.manual_seed(0)
    relu_model = deep_mlp(nn.ReLU, lambda weight: nn.init.kaiming_normal_(weight, nonlinearity="relu"))
    relu_monitor = widgets.GradientMonitor(relu_model)
    relu_losses = train(relu_model)
    print(f"loss: {relu_losses[0]:.3f} at the start, lowest {min(relu_losses):.3f}, {relu_losses[-1]:.3f} after "
          f"{len(relu_losses)} steps")
    print("flags:", relu_monitor.flags() or "none")
    relu_monitor
    """),
    md(r"""
    The two side by side: the gradient norm of each layer at the first step (read from the monitors' `history`), and
    the losses.
    """),
    code("""
    def first_step_norms(monitor):
        return [monitor.history[0].layers[name].grad_norm for name in monitor.layers]

    # The monitor names a layer by its place in the model and its type ("0 (Linear)": model[0], nearest the input);
    # the plot uses the same names.
    layer_names = sigmoid_monitor.layers
    figure, (norms_axis, loss_axis) = plt.subplots(1, 2, figsize=(11, 3.6))
    positions = range(len(layer_names))
    norms_axis.semilogy(positions, first_step_norms(sigmoid_monitor), "o-", label="sigmoid, default init")
    norms_axis.semilogy(positions, first_step_norms(relu_monitor), "o-", label="ReLU, Kaiming init")
    norms_axis.set_xticks(positions, [name.split(" ")[0] for name in layer_names])
    norms_axis.set_xlabel("layer, named as in the monitor (0 = model[0], nearest the input)")
    norms_axis.set_ylabel("gradient norm at step 1")
    norms_axis.legend()
    loss_axis.plot(sigmoid_losses, label="sigmoid, default init")
    loss_axis.plot(relu_losses, label="ReLU, Kaiming init")
    loss_axis.set_xlabel("step")
    loss_axis.set_ylabel("cross-entropy")
    loss_axis.legend()
    plt.tight_layout()
    plt.show()

    for label, monitor in [("sigmoid, default init", sigmoid_monitor), ("ReLU, Kaiming init", relu_monitor)]:
        norms = first_step_norms(monitor)
        ratios = [earlier / later for earlier, later in zip(norms, norms[1:])]
        print(f"{label}: layer {layer_names[0]} gets {norms[0]:.2g}, layer {layer_names[-1]} gets {norms[-1]:.2g}; "
              f"a layer's norm over the next layer's, median {np.median(ratios):.2g}")
    sigmoid_monitor.detach()                                      # remove the hooks: the models train unobserved
    relu_monitor.detach()
    """),
    md(r"""
    Read the last two lines: the median ratio says by how much a layer's gradient shrinks (below 1) or grows (above 1)
    compared with the layer after it. With sigmoids it is well below 1 and the losses barely move; with ReLU and
    Kaiming it is close to 1: every layer gets a gradient of about the same size, and the loss falls well below
    $\ln 10$ (its lowest value is printed above; plain SGD on small random mini-batches is noisy at this learning rate,
    so the last step's loss may lie well above the lowest, as the loss chart shows).

    ### Exercise 1: per-layer gradient norms

    Write `layer_grad_norms(model)`, what the monitor computes: for every module of `model` that *owns* parameters
    (go through `model.modules()` and take `module.parameters(recurse=False)`, so a `Sequential` does not count its
    children's), the norm of all its parameters' gradients together,
    $\sqrt{\sum_{\text{parameters}} \sum g^2}$ (weight and bias in one number). Return a 1-d tensor with one norm per
    such module, in the order of `model.modules()`.

    `mlp_gradient_norms` is given: it builds a small `Linear → Tanh → Linear` model with the weights of the check's
    cases, runs one backward pass and calls your function.
    """),
    solution('''
    def layer_grad_norms(model):
        """A 1-d tensor: for each module that owns parameters, sqrt(sum of its gradients squared)."""
        ### BEGIN SOLUTION
        norms = []
        for module in model.modules():
            grads = [parameter.grad for parameter in module.parameters(recurse=False) if parameter.grad is not None]
            if grads:
                norms.append(minitorch.sqrt(sum((grad ** 2).sum() for grad in grads)))
        return minitorch.stack(norms)
        ### END SOLUTION


    def mlp_gradient_norms(x, target, w1, b1, w2, b2):
        """Given: Linear -> Tanh -> Linear with these weights, one backward pass of the MSE loss, then your function."""
        model = nn.Sequential(nn.Linear(w1.shape[1], w1.shape[0]), nn.Tanh(), nn.Linear(w2.shape[1], w2.shape[0]))
        with minitorch.no_grad():
            for layer, weight, bias in ((model[0], w1, b1), (model[2], w2, b2)):
                layer.weight.copy_(weight)
                layer.bias.copy_(bias)
        F.mse_loss(model(x), target).backward()
        return layer_grad_norms(model)
    ''', "ch11-layer-grad-norms"),
    tests("""
    check("ch11.layer_grad_norms", mlp_gradient_norms)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch11.layer_grad_norms", mlp_gradient_norms, [
        (randn(5, 2, seed=11101), randn(5, 3, seed=11102), randn(4, 2, seed=11103), randn(4, seed=11104),
         randn(3, 4, seed=11105), randn(3, seed=11106)),
        (randn(32, 6, seed=11107), randn(32, 2, seed=11108), randn(8, 6, seed=11109, scale=3.0),
         randn(8, seed=11110), randn(2, 8, seed=11111, scale=0.01), randn(2, seed=11112)),
    ])
    ### END HIDDEN TESTS
    """, "ch11-layer-grad-norms-tests", points=2),
    md(r"""
    ## 2. Initialisation: keeping the signal the same size

    A `Linear` layer with `fan_in` inputs adds up `fan_in` products $w_i x_i$. With independent weights of variance
    $\sigma^2$ and inputs of variance $v$, the sum has variance $\text{fan\_in}\,\sigma^2 v$. To keep the variance
    of the signal the same from layer to layer, choose $\sigma^2 = 1/\text{fan\_in}$, times a **gain** that makes up
    for what the activation does:

    * **Kaiming** (He et al., 2015), for ReLU: ReLU zeroes half of its inputs, which halves the second moment, so
      gain $=\sqrt 2$: $\sigma = \sqrt{2/\text{fan\_in}}$. `nn.init.kaiming_normal_(w, nonlinearity="relu")` draws
      from $\mathcal N(0, \sigma^2)$; `kaiming_uniform_` from $U(-a, a)$ with the same standard deviation.
    * **Xavier / Glorot** (2010), for tanh and sigmoid: a compromise between keeping the forward signal
      ($1/\text{fan\_in}$) and the backward gradient ($1/\text{fan\_out}$):
      $\sigma = \text{gain}\cdot\sqrt{2/(\text{fan\_in}+\text{fan\_out})}$. `nn.init.xavier_uniform_(w, gain=...)`.

    A uniform distribution on $[-a, a]$ has standard deviation $a/\sqrt3$, so the uniform versions use the bound
    $a = \sqrt3\,\sigma$. `nn.init.calculate_gain(name)` gives the gains ($\sqrt2$ for `"relu"`, $5/3$ for `"tanh"`, 1
    for `"sigmoid"` and `"linear"`). The code is in `minitorch/nn/init.py`. A quick check of what they draw:
    """),
    code("""
    weight = minitorch.empty(256, 512)                            # (out_features, in_features): fan_in 512, fan_out 256
    nn.init.kaiming_normal_(weight, nonlinearity="relu")
    print(f"kaiming_normal_: std {weight.std().item():.4f}, formula sqrt(2 / 512) = {math.sqrt(2 / 512):.4f}")
    nn.init.xavier_uniform_(weight)
    print(f"xavier_uniform_: largest |w| {weight.abs().max().item():.4f}, "
          f"bound sqrt(3) * sqrt(2 / (512 + 256)) = {math.sqrt(3) * math.sqrt(2 / 768):.4f}")
    print("gains:", {name: round(nn.init.calculate_gain(name), 4) for name in ["linear", "sigmoid", "tanh", "relu"]})
    """),
    md(r"""
    How the size of the signal evolves through 20 ReLU layers of width 256 (no training, one forward pass of random
    inputs), for three scales of the same normal initialisation:
    """),
    code("""
    def activation_spread(std, depth=20, width=256):
        signal, spreads = minitorch.randn(128, width), []
        with minitorch.no_grad():
            for _ in range(depth):
                weight = minitorch.randn(width, width) * std
                signal = minitorch.relu(signal @ weight.T)
                spreads.append(signal.pow(2).mean().sqrt().item())   # root mean square of the activations
        return spreads

    minitorch.manual_seed(0)
    kaiming_std = math.sqrt(2 / 256)
    for label, std in [("Kaiming: sqrt(2 / fan_in)", kaiming_std), ("1.5 x Kaiming", 1.5 * kaiming_std),
                       ("Xavier (gain 1): sqrt(2 / (fan_in + fan_out))", math.sqrt(2 / 512))]:
        plt.semilogy(range(1, 21), activation_spread(std), marker="o", label=label)
    plt.xlabel("layer")
    plt.ylabel("size of the activations (RMS)")
    plt.title("20 ReLU layers")
    plt.legend()
    plt.show()
    """),
    md(r"""
    Kaiming keeps the signal at the same size; Xavier's scale (right for tanh, whose slope is 1 near 0) halves the
    second moment at every ReLU, so the signal fades geometrically; 1.5 times Kaiming multiplies it by 1.5 per layer,
    and the signal (and the gradients on the way back) grow without bound. The gradients follow the same pattern:
    section 3 shows what that does to training.

    ### Exercise 2: the initialisation bounds

    Write `init_bounds(fan_in, fan_out, gain)` returning two numbers `(xavier_bound, kaiming_bound)`: the bound $a$ of
    the uniform distribution $U(-a, a)$ that `nn.init.xavier_uniform_(w, gain=gain)` draws from, and the one that
    `kaiming_uniform_` draws from (mode `fan_in`, with the same `gain`). Use `math.sqrt`.
    """),
    solution('''
    def init_bounds(fan_in, fan_out, gain):
        """(xavier_bound, kaiming_bound) of the uniform initialisations with this gain."""
        ### BEGIN SOLUTION
        xavier_std = gain * math.sqrt(2.0 / (fan_in + fan_out))
        kaiming_std = gain / math.sqrt(fan_in)
        return math.sqrt(3.0) * xavier_std, math.sqrt(3.0) * kaiming_std
        ### END SOLUTION
    ''', "ch11-init-bounds"),
    tests("""
    check("ch11.init_bounds", init_bounds)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch11.init_bounds", init_bounds, [(784, 128, 1.0), (10, 2000, 2.0 ** 0.5), (1, 1, 0.5)])
    ### END HIDDEN TESTS
    """, "ch11-init-bounds-tests", points=1),
    md(r"""
    ## 3. Exploding gradients and gradient clipping

    The same ten-layer ReLU network, but initialised too large (a standard deviation of 0.3 instead of
    Kaiming's $\sqrt{2/64} \approx 0.18$): each layer multiplies the signal by about 1.7 on the way forward, and the
    gradient flowing back by about as much on the way back. A weight's gradient is the product of the two (the
    layer's input times the gradient arriving at its output), so the growth may show less *across* the layers than
    in the size of *every* layer's gradient. Below: the first loss, each layer's weight-gradient norm at the first step
    (layers named as the monitor names them), the ratio between the first and the last, the size compared with the
    Kaiming network of section 1, and then the losses of plain SGD. Look at those sizes, and at the step where the
    loss stops being a finite number (it overflows to `inf`, then `nan`: the printout finds the step).

    (minitorch computes with NumPy, which warns when a number overflows to `inf`; PyTorch does not warn. The
    `np.errstate` block only silences those warnings.)
    """),
    code("""
    minitorch.manual_seed(0)
    big_model = deep_mlp(nn.ReLU, lambda weight: nn.init.normal_(weight, std=0.3))
    first_loss = F.cross_entropy(big_model(train_images[:64]), train_labels[:64])
    first_loss.backward()
    linear_layers = [(f"{name} (Linear)", layer) for name, layer in big_model.named_children()
                     if isinstance(layer, nn.Linear)]
    norms = [layer.weight.grad.norm().item() for _, layer in linear_layers]
    print(f"first loss {first_loss.item():.1f}; weight gradient norms:")
    print("  " + ", ".join(f"{name}: {norm:.3g}" for (name, _), norm in zip(linear_layers, norms)))
    print(f"layer {linear_layers[0][0]}'s gradient is {norms[0] / norms[-1]:.2g} times layer {linear_layers[-1][0]}'s")
    kaiming_norms = first_step_norms(relu_monitor)               # section 1's ReLU network, Kaiming's scale
    print(f"the median layer's gradient is {np.median(norms) / np.median(kaiming_norms):.0f} times the median layer's "
          "of section 1's Kaiming-initialised network")
    big_model.zero_grad()

    with np.errstate(over="ignore", invalid="ignore"):
        exploding_losses = train(big_model, lr=0.05)
    print("losses of the first steps:", [round(loss, 1) for loss in exploding_losses[:6]])
    finite_steps = next((step for step, loss in enumerate(exploding_losses) if not math.isfinite(loss)), None)
    print("the loss is no longer finite from step", finite_steps, "on" if finite_steps is not None else
          "(it stayed finite in this run)")
    """),
    md(r"""
    **Gradient clipping** caps the size of an update. `nn.utils.clip_grad_norm_(model.parameters(), max_norm)`
    computes the norm of all gradients together, as if they were one long vector,

    $$\lVert g\rVert = \sqrt{\textstyle\sum_{\text{all parameters}} \sum g^2},$$

    and if it is above `max_norm`, multiplies every gradient by $\text{max\_norm} / (\lVert g\rVert + 10^{-6})$. The
    *direction* of the step is kept; only its length is limited. It goes between `loss.backward()` and
    `optimizer.step()`, and returns the norm before clipping (worth logging). The code is in
    `minitorch/nn/utils/clip_grad.py`. Same model, same start, clipped at 5:
    """),
    code("""
    minitorch.manual_seed(0)
    clipped_model = deep_mlp(nn.ReLU, lambda weight: nn.init.normal_(weight, std=0.3))
    clipped_losses = train(clipped_model, lr=0.05, max_norm=5.0)

    finite = [loss if math.isfinite(loss) else np.nan for loss in exploding_losses]
    plt.semilogy(finite, label="no clipping (stops where the loss becomes nan)")
    plt.semilogy(clipped_losses, label="clip_grad_norm_(max_norm=5)")
    plt.xlabel("step")
    plt.ylabel("cross-entropy")
    plt.legend()
    plt.show()
    print(f"clipped: loss {clipped_losses[0]:.1f} -> {clipped_losses[-1]:.3f}")
    """),
    md(r"""
    Clipping does not fix the bad initialisation; it keeps training alive while the network finds its way to a
    reasonable region. It is standard for recurrent networks and transformers, where a single unlucky batch can produce
    a huge gradient. (`nn.utils.clip_grad_value_` clamps each entry instead, which changes the direction.)

    ### Exercise 3: clipping by the total norm

    Write `clip_gradients(grad_a, grad_b, max_norm)` for a model with two parameters whose gradients are `grad_a` and
    `grad_b`. Return `(clipped_a, clipped_b, total_norm)`: `total_norm` is the norm of both gradients together (a 0-d
    tensor, before clipping); the clipped gradients are both multiplied by
    $\min\big(1,\ \text{max\_norm} / (\text{total\_norm} + 10^{-6})\big)$. Use tensor operations, not
    `clip_grad_norm_`.
    """),
    solution('''
    def clip_gradients(grad_a, grad_b, max_norm):
        """(grad_a * c, grad_b * c, total_norm) with c = min(1, max_norm / (total_norm + 1e-6))."""
        ### BEGIN SOLUTION
        total_norm = minitorch.sqrt((grad_a ** 2).sum() + (grad_b ** 2).sum())
        coefficient = minitorch.clamp(max_norm / (total_norm + 1e-6), max=1.0)
        return grad_a * coefficient, grad_b * coefficient, total_norm
        ### END SOLUTION
    ''', "ch11-clip-gradients"),
    tests("""
    check("ch11.clip_gradients", clip_gradients)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch11.clip_gradients", clip_gradients, [
        (randn(4, 4, seed=11301, scale=3.0), randn(4, seed=11302), 0.5),
        (randn(6, seed=11303, scale=1e-3), randn(1, 6, seed=11304, scale=1e-3), 1.0),
        (randn(2, 3, 2, seed=11305), randn(7, seed=11306, scale=100.0), 10.0),
    ])
    ### END HIDDEN TESTS
    """, "ch11-clip-gradients-tests", points=2),
    md(r"""
    ## 4. Dropout: training with a random half of the network

    A big network trained on little data **overfits**: it memorises the training set (loss near 0) and does worse on
    new data than it could. **Dropout** (Srivastava et al., 2014) zeroes each activation with probability `p` at every
    training step, a different random set each time, so no unit can rely on any particular other unit being there.

    The surviving activations are multiplied by $1/(1-p)$, so that the *expected* value of each output equals its
    input. That is what lets the network be used without dropout at test time: in **`model.eval()`** mode
    `nn.Dropout` does nothing at all, and in `model.train()` mode it drops. Forgetting `model.eval()` before
    evaluating is a classic bug: predictions then change from one call to the next.
    """),
    code("""
    dropout = nn.Dropout(p=0.5)
    x = minitorch.ones(2, 8)
    minitorch.manual_seed(1)
    print("train mode:\\n", dropout(x))
    print("mean over many draws:", dropout(minitorch.ones(100_000)).mean().item(), "(the input's mean is 1)")
    dropout.eval()
    print("eval mode:\\n", dropout(x))
    """),
    md(r"""
    An experiment: only 150 training images, a network with far more weights than that (two hidden layers of 128;
    the count is printed below), trained with Adam for 100 full-batch steps, with and without `Dropout(0.5)` after
    each hidden layer. The loss on the held-out test images is measured
    every 10 steps (in `eval()` mode).
    """),
    code("""
    few_images, few_labels = train_images[:150], train_labels[:150]

    def test_loss_curve(p):
        minitorch.manual_seed(0)
        model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Dropout(p), nn.Linear(128, 128), nn.ReLU(),
                              nn.Dropout(p), nn.Linear(128, 10))
        if p == 0:
            print(f"{sum(parameter.numel() for parameter in model.parameters()):,} weights, 150 training images")
        optimizer = optim.Adam(model.parameters(), lr=5e-3)
        steps, test_losses = [], []
        for step in range(101):
            model.train()
            optimizer.zero_grad()
            loss = F.cross_entropy(model(few_images), few_labels)
            loss.backward()
            optimizer.step()
            if step % 10 == 0:
                model.eval()
                with minitorch.no_grad():
                    steps.append(step)
                    test_losses.append(F.cross_entropy(model(test_images), test_labels).item())
        return steps, test_losses, loss.item()

    for p in [0.0, 0.5]:
        steps, test_losses, train_loss = test_loss_curve(p)
        best = int(np.argmin(test_losses))
        plt.plot(steps, test_losses, label=f"Dropout({p}): final training loss {train_loss:.3f}")
        rise = test_losses[-1] - test_losses[best]
        print(f"p={p}: final training loss {train_loss:.3f}; test loss lowest {test_losses[best]:.3f} at step "
              f"{steps[best]}, final {test_losses[-1]:.3f} ({rise:+.3f} from the lowest)")
    plt.ylim(0, 0.6)
    plt.xlabel("step")
    plt.ylabel("test cross-entropy")
    plt.legend()
    plt.show()
    """),
    md(r"""
    What to look for in the two lines above. **Overfitting** shows as a training loss near 0 together with a test
    loss that, after its lowest point, creeps back up (a positive difference from the lowest, reached early): the
    model grows more confident about the training images, including in ways that are wrong for new ones. Dropout
    makes the training task harder (half the units are missing at every step), so its training loss stays higher;
    compare where its test loss is lowest, and how low, with the run without dropout. On a problem this small the
    difference is modest, and a different seed moves it; it grows with the size of the network compared to the data.

    ### Exercise 4: dropout's forward pass

    Write `dropout_forward(x, keep_mask, p, training)`. `keep_mask` is a boolean tensor of `x`'s shape (`True` where
    the unit survives; `nn.Dropout` draws it at random, here it is given so the answer is checkable). In training,
    return `x` with the dropped entries set to 0 and the kept ones divided by `1 - p`; when `training` is `False`,
    return `x` unchanged.
    """),
    solution('''
    def dropout_forward(x, keep_mask, p, training):
        """Training: x * keep_mask / (1 - p); evaluation: x."""
        ### BEGIN SOLUTION
        if not training:
            return x
        return x * keep_mask / (1 - p)
        ### END SOLUTION
    ''', "ch11-dropout-forward"),
    tests("""
    check("ch11.dropout_forward", dropout_forward)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch11.dropout_forward", dropout_forward, [
        (randn(3, 4, 2, seed=11401), np.random.default_rng(11402).random((3, 4, 2)) < 0.7, 0.3, True),
        (randn(5, seed=11403), np.random.default_rng(11404).random(5) < 0.1, 0.9, True),
        (randn(4, 4, seed=11405), np.random.default_rng(11406).random((4, 4)) < 0.5, 0.5, False),
    ])
    ### END HIDDEN TESTS
    """, "ch11-dropout-forward-tests", points=2),
    md(r"""
    (`nn.Dropout` calls `F.dropout`, whose op in `minitorch/ops/nn_ops.py` draws the mask, saves it, and multiplies
    the gradient by the same mask and scale in backward: a dropped unit gets no gradient.)

    ## 5. Batch normalisation

    **`nn.BatchNorm1d(num_features)`** (Ioffe and Szegedy, 2015) normalises each feature over the batch: for each of
    the `num_features` columns it subtracts the batch's mean and divides by the batch's standard deviation, then
    multiplies by a learnable scale $\gamma$ (`weight`) and adds a learnable shift $\beta$ (`bias`):

    $$y = \gamma\,\frac{x - \mathrm{mean}_B(x)}{\sqrt{\mathrm{var}_B(x) + \epsilon}} + \beta \quad (B: \text{batch})$$

    Whatever the layers before it do to the scale of the signal, the next layer gets inputs of a steady size. In
    `eval()` mode there may be no batch (one image at a time), so it uses running averages of the means and variances
    seen in training (the buffers `running_mean` and `running_var`) instead.
    """),
    code("""
    minitorch.manual_seed(0)
    batch_norm = nn.BatchNorm1d(3)
    batch = minitorch.randn(32, 3) * minitorch.tensor([1.0, 10.0, 0.1]) + minitorch.tensor([5.0, -3.0, 0.0])
    output = batch_norm(batch)                                   # train mode: the batch's own statistics
    print("per-feature mean after:", output.mean(dim=0).detach().numpy().round(4))
    print("per-feature std after: ", output.std(dim=0, correction=0).detach().numpy().round(4))
    print("running_mean (moved 10% towards the batch mean):", batch_norm.running_mean.numpy().round(3))
    batch_norm.eval()
    print("eval mode uses the running statistics; first row:", batch_norm(batch)[0].detach().numpy().round(3))
    """),
    md(r"""
    The effect on training: six ReLU layers with `nn.Linear`'s default initialisation (which shrinks the signal a
    little at every layer, chapter 4), trained with the same SGD as before, with and without a `BatchNorm1d` after
    each `Linear`.
    """),
    code("""
    minitorch.manual_seed(0)
    plain_losses = train(deep_mlp(nn.ReLU, depth=6))
    minitorch.manual_seed(0)
    normalised_losses = train(deep_mlp(nn.ReLU, depth=6, batch_norm=True))

    plt.plot(plain_losses, label="6 ReLU layers")
    plt.plot(normalised_losses, label="6 ReLU layers with BatchNorm1d")
    plt.xlabel("step")
    plt.ylabel("cross-entropy")
    plt.legend()
    plt.show()
    print(f"after {len(plain_losses)} steps: {plain_losses[-1]:.3f} without, {normalised_losses[-1]:.3f} with batch "
          f"norm (guessing: ln 10 = {math.log(10):.3f})")
    for label, losses in [("without", plain_losses), ("with", normalised_losses)]:
        below = next((step for step, loss in enumerate(losses) if loss < 1.0), None)
        print(f"{label} batch norm, first step with a loss below 1.0:", below if below is not None else "none")
    """),
    md(r"""
    Compare the two final losses with $\ln 10$ and the step at which each first fell below 1.0 (printed above): the
    gap between them is what normalising each layer's inputs buys this network. Batch norm also allows larger
    learning rates and makes training less sensitive to the initialisation. Its costs: the output for one sample
    depends on the others in its batch (tiny batches give noisy statistics), and
    `train()` / `eval()` must be set correctly. The implementation is in `minitorch/nn/modules/batchnorm.py` and
    `F.batch_norm` in `minitorch/nn/functional/normalization.py`.
    """),
    md(r"""
    ### Exercise 5: batch normalisation, forward and backward by hand

    Autograd differentiates `nn.BatchNorm1d` through half a dozen operations. Do it yourself, as a good exercise in
    backpropagation: every input of a column affects every output of that column, through the batch mean and the
    batch variance.

    Write `batchnorm_forward_backward(x, gamma, beta, grad_output)` for `x` of shape `(N, C)` in training mode:
    the forward pass (per feature: the batch mean, the **biased** variance, dividing by `N`, `eps = 1e-5`; then the
    scale `gamma` and the shift `beta`), and the backward pass for `grad_output` (the gradient of some loss with
    respect to `y`): return `(y, grad_x, grad_gamma, grad_beta)`. **No autograd**: derive the gradients on paper
    first (for `grad_x`, follow the three paths from `x` to `y`: directly, through the mean, through the variance,
    and simplify), then compute them with tensor operations. The check compares with `F.batch_norm` and autograd.
    `hint("ch11.batchnorm_forward_backward")` gives hints step by step.
    """),
    solution('''
    def batchnorm_forward_backward(x, gamma, beta, grad_output):
        """BatchNorm1d in training mode, by hand: (y, grad_x, grad_gamma, grad_beta)."""
        ### BEGIN SOLUTION
        mean = x.mean(dim=0)
        variance = ((x - mean) ** 2).mean(dim=0)
        inverse_std = 1.0 / (variance + 1e-5).sqrt()
        normalised = (x - mean) * inverse_std
        y = gamma * normalised + beta
        grad_beta = grad_output.sum(dim=0)
        grad_gamma = (grad_output * normalised).sum(dim=0)
        grad_normalised = grad_output * gamma
        grad_x = inverse_std * (
            grad_normalised - grad_normalised.mean(dim=0) - normalised * (grad_normalised * normalised).mean(dim=0)
        )
        return y, grad_x, grad_gamma, grad_beta
        ### END SOLUTION
    ''', "ch11-batchnorm-by-hand"),
    tests("""
    check("ch11.batchnorm_forward_backward", batchnorm_forward_backward)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch11.batchnorm_forward_backward", batchnorm_forward_backward, [
        (randn(32, 6, seed=11500, dtype="float64", scale=10.0), randn(6, seed=11501, dtype="float64"),
         randn(6, seed=11502, dtype="float64"), randn(32, 6, seed=11503, dtype="float64")),
        (randn(2, 3, seed=11504, dtype="float64"), randn(3, seed=11505, dtype="float64"),
         randn(3, seed=11506, dtype="float64"), randn(2, 3, seed=11507, dtype="float64")),
    ])
    ### END HIDDEN TESTS
    """, "ch11-batchnorm-by-hand-tests", points=3),
    code("""
    # Your backward against autograd's, on a fresh batch: the largest difference should be around 1e-15.
    batch = minitorch.randn(10, 4, dtype=minitorch.float64, requires_grad=True)
    scale = minitorch.randn(4, dtype=minitorch.float64, requires_grad=True)
    shift = minitorch.randn(4, dtype=minitorch.float64, requires_grad=True)
    upstream = minitorch.randn(10, 4, dtype=minitorch.float64)
    F.batch_norm(batch, None, None, scale, shift, training=True).backward(upstream)
    try:
        inputs = (batch.detach(), scale.detach(), shift.detach(), upstream)
        _, grad_x, grad_gamma, grad_beta = batchnorm_forward_backward(*inputs)
        pairs = (("x", grad_x, batch.grad), ("gamma", grad_gamma, scale.grad), ("beta", grad_beta, shift.grad))
        for name, mine, reference in pairs:
            print(f"grad_{name}: largest difference from autograd {(mine - reference).abs().max().item():.1e}")
    except NotImplementedError:
        print("Complete batchnorm_forward_backward above first, then run this cell again.")
    """),
    md(r"""
    ## 6. Anomaly detection: which operation made the `nan`?

    A `nan` in a gradient spreads to every gradient computed from it, and the optimizer then writes `nan` into the
    weights: from that step on, everything is `nan`, and the error surfaces far from its cause. A classic cause: the
    square root of a value that is sometimes negative, "guarded" by `where`.
    """),
    code("""
    x = minitorch.tensor([4.0, 1.0, -1.0], requires_grad=True)
    y = minitorch.where(x > 0, x.sqrt(), minitorch.zeros_like(x))   # the forward values are all fine ...
    print("y =", y)
    y.sum().backward()
    print("x.grad =", x.grad, " ... but the gradient is not")
    """),
    md(r"""
    `where` picked 0 for the negative entry, but `sqrt` was still computed there (`nan`), and backward goes through
    *both* branches: `where` sends a gradient of 0 to `sqrt`'s output at that entry, and `SqrtBackward0` multiplies it
    by $\frac{1}{2\sqrt{x}}$, which is `nan`; $0 \times \text{nan} = \text{nan}$.

    In a real model this is one `nan` among thousands of operations. **`minitorch.autograd.detect_anomaly()`** finds
    it: inside the block every operation remembers where (which line of your code) it was created, and the engine
    checks every gradient it computes. The first `nan` stops backward with an error naming the node, and a warning
    shows the line of the *forward* pass that created it. It slows everything down, so turn it on only to debug. (The
    engine's check is in `minitorch/autograd/engine.py`, the switch in `minitorch/autograd/anomaly_mode.py`.)
    """),
    code("""
    x = minitorch.tensor([4.0, 1.0, -1.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with minitorch.autograd.detect_anomaly():
                y = minitorch.where(x > 0, x.sqrt(), minitorch.zeros_like(x))
                y.sum().backward()
        except RuntimeError as error:
            print("RuntimeError:", error)
    for warning in caught:
        lines = str(warning.message).rstrip().splitlines()
        if "Traceback of forward call" in lines[0]:       # the warning lists the whole stack: show its end
            print("\\nUserWarning:", lines[0], "\\n  ...\\n" + "\\n".join(lines[-4:]))
    """),
    md(r"""
    The fix is to never compute the bad value, even in the branch that is thrown away: take the square root of a
    value that is always valid, for example `x.clamp(min=0).sqrt()`, or put a harmless value in with a first `where`
    (`minitorch.where(x > 0, x, 1).sqrt()`).
    """),
    code("""
    x = minitorch.tensor([4.0, 1.0, -1.0], requires_grad=True)
    y = minitorch.where(x > 0, minitorch.where(x > 0, x, minitorch.ones_like(x)).sqrt(), minitorch.zeros_like(x))
    y.sum().backward()
    print("y =", y.detach(), " x.grad =", x.grad)
    """),
    md(r"""
    ## 7. The first sanity check: overfit one small batch

    Before training a model for hours, check that it *can* learn: take one small batch (16 images) and train on it
    alone. A correct model, loss and training loop drive the loss on that batch to nearly 0 within a few dozen
    steps, memorising it (the final losses are printed below). If it cannot, something in the setup is broken,
    whatever the data: a wrong loss, a bad learning rate, parameters that are not updated, labels that do not match
    their inputs.

    Below, the check on a correct setup and on a buggy one. The bug is a real classic: the optimizer was created,
    then the model was created again (say, by re-running a cell), so the optimizer updates the parameters of a model
    that is no longer used.
    """),
    code("""
    one_batch_images, one_batch_labels = train_images[:16], train_labels[:16]

    def overfit(model, optimizer, steps=80):
        losses = []
        for _ in range(steps):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(one_batch_images), one_batch_labels)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        return losses

    def small_model():
        return nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))

    minitorch.manual_seed(0)
    model = small_model()
    correct_losses = overfit(model, optim.Adam(model.parameters(), lr=1e-2))

    model = small_model()
    optimizer = optim.Adam(model.parameters(), lr=1e-2)
    model = small_model()                                        # the bug: a new model, the optimizer has the old one
    buggy_losses = overfit(model, optimizer)

    plt.semilogy(correct_losses, label="correct setup")
    plt.semilogy(buggy_losses, label="optimizer holds another model's parameters")
    plt.xlabel("step")
    plt.ylabel("loss on the one batch")
    plt.legend()
    plt.show()
    print(f"final loss: correct {correct_losses[-1]:.4f}, buggy {buggy_losses[-1]:.4f}")
    """),
    md(r"""
    The correct setup memorises the 16 images; the buggy one never moves. When training misbehaves, a short checklist
    built from this chapter:

    1. **Overfit one small batch.** If it fails, debug the setup (loss, optimizer, data pairing) before anything else.
    2. **Watch the gradients** (`widgets.GradientMonitor`, or `layer_grad_norms` from exercise 1): norms near 0 in the
       first layers mean vanishing gradients (change the activation or the initialisation, add normalisation); huge or
       growing norms mean exploding gradients (lower the learning rate, clip, fix the initialisation).
    3. **`nan` anywhere?** Run one step under `detect_anomaly()` to find the operation, then keep bad values out of
       *both* branches of a `where`.
    4. **Training loss fine, validation loss bad?** Overfitting: more data or augmentation (chapter 6), dropout,
       weight decay, a smaller model, stopping early. And check `model.eval()` at evaluation time.

    ## Summary

    * Backward multiplies one factor per layer: the gradients of a deep stack vanish or explode unless each layer
      keeps the signal's size. The gradient monitor shows each layer's gradient norm while training.
    * Initialisation sets that size: Kaiming ($\sigma = \sqrt{2/\text{fan\_in}}$) for ReLU, Xavier
      ($\text{gain}\cdot\sqrt{2/(\text{fan\_in}+\text{fan\_out})}$) for tanh and sigmoid; uniform bounds are
      $\sqrt3\,\sigma$.
    * `clip_grad_norm_` rescales all gradients together when their total norm is above `max_norm`, between
      `backward()` and `step()`.
    * `Dropout` zeroes units at random and scales the rest by $1/(1-p)$ in `train()` mode, and does nothing in
      `eval()` mode; `BatchNorm1d` normalises each feature over the batch (running statistics in `eval()`), which
      makes deep networks train much faster.
    * `detect_anomaly()` names the backward node that produced a `nan` and the forward line that created it.
    * Overfitting one small batch is the first check of any training setup.
    """),
    code("""
    summary("ch11")
    """),
]

write("11_training_dynamics", cells)
