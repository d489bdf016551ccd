"""Chapter 5: losses and optimizers (MSE, cross-entropy, BCE with logits; SGD to Adam; own optimizer; schedules)."""

from author import code, md, solution, tests, write

cells = [
    md(r"""
    # 5. Losses and optimizers

    Chapter 4 trained a network with two black boxes: a loss function said how wrong the model was, and an optimizer
    moved the weights. This chapter opens both.

    By the end of it you will be able to:

    * pick the loss for a task (`nn.MSELoss`, `nn.CrossEntropyLoss`, `nn.BCEWithLogitsLoss`) and say why the
      classification losses take raw *logits* and use the log-sum-exp trick;
    * explain what `optim.SGD`, SGD with momentum, `optim.Adagrad`, `optim.Adadelta`, `optim.RMSprop`, `optim.Adam`
      and `optim.ASGD` do with a gradient, and see their paths on the same loss surface;
    * write your own optimizer by subclassing `optim.Optimizer`, and then the `Optimizer` base itself (parameter
      groups, per-parameter state, `zero_grad`, a `state_dict` that loads PyTorch's);
    * change the learning rate during training with `optim.lr_scheduler` (`StepLR`, `CosineAnnealingLR`,
      `OneCycleLR`).
    """),
    code("""
    import math

    import matplotlib.pyplot as plt
    import numpy as np

    import minitorch
    import minitorch.nn as nn
    import minitorch.nn.functional as F
    import minitorch.optim as optim
    from grading import check, hint, randn, summary  # noqa: F401 (hint("<exercise>") shows hints, step by step)

    minitorch.manual_seed(0)
    """),
    md(r"""
    ## 1. A loss turns predictions into one number

    Training minimises one number, so every task needs a function from (prediction, target) to a scalar that is small
    when the prediction is good and whose gradient points somewhere useful. Losses live in
    `minitorch/nn/modules/loss.py` (the modules) and `minitorch/nn/functional/loss.py` (the math they call); each
    takes a `reduction`: `"mean"` (the default), `"sum"`, or `"none"` to keep one loss per element.

    **Regression: `nn.MSELoss`**, the mean squared error $\frac1N\sum_i (\hat y_i - y_i)^2$. Its gradient,
    $\frac2N(\hat y_i - y_i)$, is proportional to the error: big mistakes are pushed hard, small ones gently.
    """),
    code("""
    prediction = minitorch.tensor([2.5, 0.0, 2.0, 8.0])
    target = minitorch.tensor([3.0, -0.5, 2.0, 7.0])
    for reduction in ("mean", "sum", "none"):
        print(f"{reduction:>4}:", nn.MSELoss(reduction=reduction)(prediction, target))
    print("by hand:", ((prediction - target) ** 2).mean())
    """),
    md(r"""
    **Classification: `nn.CrossEntropyLoss`.** The model outputs one *logit* $z_c$ per class, any real number. The
    softmax turns them into probabilities, $p_c = e^{z_c} / \sum_k e^{z_k}$, and the loss is the negative log of the
    probability given to the right class $y$:

    $$\ell = -\log p_y = \log\sum_k e^{z_k} - z_y .$$

    The second form is how it is computed. The naive way (exponentiate, normalise, take the log) breaks as soon as a
    logit is large: in float32, $e^{89}$ is already infinite, and $\infty/\infty$ is `nan`. The **log-sum-exp trick**
    subtracts the largest logit $m$ first, which changes nothing mathematically,

    $$\log\sum_k e^{z_k} = m + \log\sum_k e^{z_k - m},$$

    but now every exponent is $\le 0$, so no term overflows, and the largest term is exactly $e^0 = 1$, so the sum
    is at least 1 and its log never sees 0. That is why the loss takes **logits, not probabilities**: given
    probabilities, it could no longer do this. (`F.log_softmax` uses the same trick, and `F.cross_entropy` equals
    `F.nll_loss(F.log_softmax(z))`. minitorch computes it as one op, `CrossEntropy` in `minitorch/ops/nn_ops.py`, next
    to `LogSoftmax`, each with its forward and backward side by side.)
    """),
    code("""
    logits = minitorch.tensor([[1000.0, 0.0, -1000.0]])
    label = minitorch.tensor([1])

    naive_probabilities = logits.exp() / logits.exp().sum(dim=1, keepdim=True)
    print("naive softmax:      ", naive_probabilities, "-> loss", -naive_probabilities[0, 1].log())

    largest = logits.max(dim=1, keepdim=True).values
    log_sum_exp = largest + (logits - largest).exp().sum(dim=1, keepdim=True).log()
    print("log-sum-exp:        ", log_sum_exp.flatten(), "-> loss", (log_sum_exp.flatten() - logits[0, 1]))
    print("F.cross_entropy:    ", F.cross_entropy(logits, label))
    print("nll_loss(log_softmax):", F.nll_loss(F.log_softmax(logits, dim=1), label))
    """),
    md(r"""
    **Two classes (or many independent yes/no labels): `nn.BCEWithLogitsLoss`.** One logit $z$ per label, the
    probability is $\sigma(z) = 1/(1+e^{-z})$, and the binary cross-entropy is
    $-[y\log\sigma(z) + (1-y)\log(1-\sigma(z))]$. Fused with the sigmoid it simplifies to a form that never
    overflows, $\max(z, 0) - zy + \log(1 + e^{-|z|})$.

    Doing it in two steps (`nn.Sigmoid` then `nn.BCELoss`) fails exactly when it matters most, on a confident
    mistake: for $z = 40$, $\sigma(z)$ rounds to exactly 1.0 in float32, $\log(1 - 1) = -\infty$, and `BCELoss` clamps
    the log at $-100$. The loss is stuck at 100 instead of 40, and the gradient is 0, so the model never learns from
    its worst mistake.
    """),
    code("""
    for name, compute in [
        ("Sigmoid + BCELoss  ", lambda z, y: nn.BCELoss()(minitorch.sigmoid(z), y)),
        ("BCEWithLogitsLoss  ", lambda z, y: nn.BCEWithLogitsLoss()(z, y)),
    ]:
        z = minitorch.tensor([40.0], requires_grad=True)   # very sure it is a 1 ...
        loss = compute(z, minitorch.tensor([0.0]))           # ... and it is a 0
        loss.backward()
        print(f"{name} loss {loss.item():6.2f}   d loss / d z = {z.grad.item():.3f}")
    """),
    md(r"""
    Why not use the mean squared error on probabilities for classification? Plot both losses against the logit, for
    a sample whose label is 1, with their slopes (computed by backward). When the model is confidently wrong ($z \ll 0$)
    the squared error on $\sigma(z)$ goes flat, so its gradient vanishes; the cross-entropy's slope tends to $-1$ and
    keeps pushing.
    """),
    code("""
    z = minitorch.linspace(-8, 8, 161).requires_grad_()
    one = minitorch.ones(161)
    curves = {
        "BCE with logits": F.binary_cross_entropy_with_logits(z, one, reduction="none"),
        "MSE on sigmoid(z)": F.mse_loss(minitorch.sigmoid(z), one, reduction="none"),
    }
    figure, (loss_axis, slope_axis) = plt.subplots(1, 2, figsize=(11, 3.3))
    for name, loss in curves.items():
        (slope,) = minitorch.autograd.grad(loss.sum(), z)       # d loss_i / d z_i for every i
        loss_axis.plot(z.detach().numpy(), loss.detach().numpy(), label=name)
        slope_axis.plot(z.detach().numpy(), slope.numpy(), label=name)
    loss_axis.set_title("loss when the label is 1")
    slope_axis.set_title("its slope d loss / d z")
    for axis in (loss_axis, slope_axis):
        axis.set_xlabel("logit z")
        axis.legend()
        axis.axhline(0, color="gray", linewidth=0.5)
    plt.tight_layout()
    plt.show()
    """),
    md(r"""
    ### Exercise 1: cross-entropy from logits, stably

    Write `cross_entropy(logits, targets)` for `logits` of shape `(N, C)` and `targets` of shape `(N,)` (class indices,
    int64): the mean over the batch of $\log\sum_k e^{z_{ik}} - z_{i,y_i}$. Use the log-sum-exp trick; the third
    public case has logits in the hundreds, where the naive formula gives `inf` or `nan`. Do not call
    `F.cross_entropy`, `F.log_softmax` or `minitorch.logsumexp`: build it from `max`, `exp`, `sum`, `log` and indexing
    (`logits[minitorch.arange(N), targets]` picks one entry per row).
    """),
    solution('''
    def cross_entropy(logits, targets):
        """Mean over the batch of logsumexp(logits[i]) - logits[i, targets[i]], computed without overflow."""
        ### BEGIN SOLUTION
        largest = logits.max(dim=1, keepdim=True).values
        log_sum_exp = largest.squeeze(1) + (logits - largest).exp().sum(dim=1).log()
        picked = logits[minitorch.arange(logits.shape[0]), targets]
        return (log_sum_exp - picked).mean()
        ### END SOLUTION
    ''', "ch05-cross-entropy"),
    tests("""
    check("ch05.cross_entropy", cross_entropy)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch05.cross_entropy", cross_entropy, [
        (randn(7, 5, seed=5101), np.random.default_rng(5102).integers(0, 5, size=7)),
        (randn(3, 2, seed=5103, scale=1000.0), np.random.default_rng(5104).integers(0, 2, size=3)),
        (randn(1, 12, seed=5105, scale=0.01), np.random.default_rng(5106).integers(0, 12, size=1)),
    ])
    ### END HIDDEN TESTS
    """, "ch05-cross-entropy-tests", points=2),
    md(r"""
    ## 2. Optimizers: what `step()` does with a gradient

    After `loss.backward()`, every parameter $p$ has a gradient $g$ = `p.grad`. An optimizer's `step()` turns it into
    a change of $p$, possibly using what it remembers from earlier steps (its `state`). The seven classics, each a
    short file in `minitorch/optim/` (`sgd.py`, `adagrad.py`, ...), with $\eta$ the learning rate:

    * `optim.SGD` remembers nothing: $p \leftarrow p - \eta g$.
    * SGD with `momentum=μ` keeps a velocity $v$: $v \leftarrow \mu v + g$, then $p \leftarrow p - \eta v$.
    * `optim.Adagrad` keeps the sum $s$ of squared gradients: $s \leftarrow s + g^2$, then
      $p \leftarrow p - \eta\, g / (\sqrt{s} + \epsilon)$.
    * `optim.RMSprop` keeps their running average instead: $s \leftarrow \alpha s + (1-\alpha) g^2$, then
      $p \leftarrow p - \eta\, g / (\sqrt{s} + \epsilon)$.
    * `optim.Adadelta` keeps running averages $s$ of $g^2$ and $u$ of its own updates squared:
      $\Delta = g \sqrt{u + \epsilon} / \sqrt{s + \epsilon}$, then $p \leftarrow p - \eta \Delta$ and
      $u \leftarrow \rho u + (1-\rho) \Delta^2$.
    * `optim.Adam` keeps running averages $m$ of $g$ and $v$ of $g^2$: $p \leftarrow p - \eta\, \hat m / (\sqrt{\hat v}
      + \epsilon)$, with $\hat m = m / (1 - \beta_1^t)$ and $\hat v = v / (1 - \beta_2^t)$ at step $t$ (exercise 3
      says why).
    * `optim.ASGD` takes SGD steps with a slowly decaying step size and keeps the average $\bar p$ of the points it
      visits; $\bar p$ is the answer.

    The ideas, in words:

    * **Momentum** is a heavy ball: the velocity accumulates gradients that agree from step to step and cancels those
      that flip sign, so it speeds along a valley floor and damps the zig-zag across it.
    * **Adagrad, RMSprop, Adadelta, Adam** give every coordinate its own step size by dividing by a running measure of
      its gradient's size: steep directions get small steps, flat ones large steps. Adagrad's sum only grows (its steps
      shrink forever); RMSprop forgets old gradients (an exponential average); Adadelta also scales by the size of its
      past updates, so it needs no real learning rate (`lr=1.0` by default); Adam is RMSprop plus momentum, with a
      *bias correction* because its averages start at 0.
    * **ASGD** (averaged SGD) takes plain SGD steps but keeps the average of the points it visits (`state["ax"]`),
      which is less noisy than the last point.

    ### A race on two loss surfaces

    The helper below runs each optimizer from the same start on a function of two numbers $(x, y)$, records the path,
    and draws it over the contour lines. First a long, narrow bowl, $f = x^2/100 + y^2$: a hundred times steeper
    across than along (the curvatures are 2 and 0.02), the shape of real loss surfaces near a minimum. Every optimizer
    gets 60 steps and a learning rate chosen by hand to suit it (each algorithm measures its step differently, so one
    shared `lr` would be unfair).
    """),
    code("""
    def race(surface, start, contenders, steps, view):
        \"\"\"Run each optimizer on surface(p) from start; plot the paths over contours and the loss per step.\"\"\"
        (x_low, x_high), (y_low, y_high) = view
        grid_x, grid_y = np.meshgrid(np.linspace(x_low, x_high, 200), np.linspace(y_low, y_high, 200))
        heights = surface(minitorch.tensor(np.stack([grid_x, grid_y]))).numpy()
        panels = len(contenders) + 1                     # one per optimizer, and the losses
        columns = min(panels, 4)
        rows = math.ceil(panels / columns)
        figure, axes = plt.subplots(rows, columns, figsize=(3.8 * columns, 3.3 * rows), squeeze=False)
        results = {}
        for axis, (name, make_optimizer) in zip(axes.flat, contenders.items()):
            point = minitorch.tensor(start, requires_grad=True)
            optimizer = make_optimizer([point])
            path, losses = [list(start)], []
            for _ in range(steps):
                optimizer.zero_grad()
                loss = surface(point)
                loss.backward()
                optimizer.step()
                path.append(point.tolist())
                losses.append(loss.item())
            path = np.array(path)
            results[name] = losses
            axis.contour(grid_x, grid_y, heights, levels=np.geomspace(heights.min() + 1e-3, heights.max(), 18),
                         colors="lightgray", linewidths=0.7)
            axis.plot(path[:, 0], path[:, 1], ".-", markersize=3, linewidth=1)
            axis.plot(*path[0], "ko")
            axis.plot(*path[-1], "r*", markersize=10)
            lr = optimizer.param_groups[0]["lr"]
            axis.set_title(f"{name} (lr={lr:g})\\nloss after {steps} steps: {losses[-1]:.2g}", fontsize=9)
            axis.set_xlim(x_low, x_high)
            axis.set_ylim(y_low, y_high)
        loss_axis = axes.flat[len(contenders)]
        for name, losses in results.items():
            loss_axis.plot(losses, label=name)
        loss_axis.set_yscale("log")
        loss_axis.set_xlabel("step")
        loss_axis.set_title("loss", fontsize=9)
        loss_axis.legend(fontsize=7)
        plt.tight_layout()
        plt.show()
        return results


    def narrow_bowl(p):
        return p[0] ** 2 / 100 + p[1] ** 2

    bowl_contenders = {
        "SGD": lambda params: optim.SGD(params, lr=0.9),
        "SGD + momentum 0.9": lambda params: optim.SGD(params, lr=0.2, momentum=0.9),
        "Adagrad": lambda params: optim.Adagrad(params, lr=1.0),
        "Adadelta": lambda params: optim.Adadelta(params, lr=30.0),
        "RMSprop": lambda params: optim.RMSprop(params, lr=0.1),
        "Adam": lambda params: optim.Adam(params, lr=0.3),
        "ASGD": lambda params: optim.ASGD(params, lr=0.9, t0=20),
    }
    bowl = race(narrow_bowl, [-9.0, 1.5], bowl_contenders, steps=60, view=[(-10, 2), (-2, 2)])
    """),
    md(r"""
    What to look for:

    * **SGD** is limited by the steep direction: its step along each axis is `lr` times that axis's slope, so the
      learning rate must stay below $2/2 = 1$ or the bounce across $y$ grows without end. At `lr=0.9` it bounces from
      wall to wall in $y$, and along the gentle $x$ it moves only $0.9 \times 0.02 = 1.8\%$ of the way per step: after
      60 steps it is still far from the minimum.
    * **Momentum** accumulates the small, consistent pull along $x$ into speed, while the alternating pushes in $y$
      cancel: it overshoots, swings back, and ends much closer.
    * The **adaptive** methods (Adagrad, RMSprop, Adam, Adadelta) divide each coordinate's step by the size of its
      gradient, so both coordinates move at a similar pace whatever their steepness: they head diagonally first.
      Adam's momentum makes it overshoot and curl back; Adadelta starts slowly while its record of past updates
      builds up.
    * **ASGD** takes SGD's steps (the same path); what it adds is the average of the points visited after step `t0`,
      kept in `optimizer.state[p]["ax"]`. Averaging pays off when gradients are noisy (mini-batches) and the last
      point jitters around the minimum.

    A harder surface: Rosenbrock's banana, $f = (1-x)^2 + 100(y-x^2)^2$, from its classic start $(-1.2, 1)$: a curved
    valley whose floor is easy to reach and hard to follow to the minimum at $(1, 1)$.
    """),
    code("""
    def rosenbrock(p):
        return (1 - p[0]) ** 2 + 100 * (p[1] - p[0] ** 2) ** 2

    banana_contenders = {
        "SGD": lambda params: optim.SGD(params, lr=1e-3),
        "SGD + momentum 0.9": lambda params: optim.SGD(params, lr=1e-3, momentum=0.9),
        "Adagrad": lambda params: optim.Adagrad(params, lr=1.5),
        "Adadelta": lambda params: optim.Adadelta(params, lr=10.0),
        "RMSprop": lambda params: optim.RMSprop(params, lr=0.01),
        "Adam": lambda params: optim.Adam(params, lr=0.2),
        "ASGD": lambda params: optim.ASGD(params, lr=1e-3, t0=100),
    }
    banana = race(rosenbrock, [-1.2, 1.0], banana_contenders, steps=300, view=[(-1.6, 1.4), (-0.6, 2.6)])
    """),
    md(r"""
    Everyone reaches the valley floor within a few steps; following it to $(1, 1)$ is the hard part. SGD's learning
    rate is capped by the steep walls, so it crawls along the floor; momentum builds up speed along it, and so does
    Adam (momentum plus per-coordinate scaling). Adagrad's first step is `lr` in every coordinate ($g/\sqrt{g^2} =
    \pm 1$), a leap out of the valley, after which its ever-shrinking steps creep along. RMSprop and Adadelta, at these
    learning rates, move slowly down the floor. No optimizer wins everywhere, and the learning rate matters as much as
    the algorithm (try changing a few above). In practice Adam with its defaults is the usual first try because it is
    forgiving about scale; well-tuned SGD with momentum often generalises as well or better on large vision models.
    Both are worth knowing.

    The next two exercises are the update rules themselves, as functions of tensors. Each returns the new parameter
    *and* the new state, the way `optim.SGD` and `optim.Adam` keep their state in `optimizer.state[p]`.

    ### Exercise 2: one step of SGD with momentum

    Write `sgd_momentum_step(param, grad, velocity, lr, momentum)` returning the tuple `(new_param, new_velocity)`,
    with PyTorch's convention (`minitorch/optim/sgd.py`): the velocity sums gradients, and the learning rate is applied
    at the step,

    $$v \leftarrow \mu\, v + g, \qquad p \leftarrow p - \eta\, v .$$

    (Some textbooks write $v \leftarrow \mu v - \eta g;\ p \leftarrow p + v$ instead: the same path for a constant
    learning rate, but a different velocity, and it behaves differently when a schedule changes $\eta$.)
    """),
    solution('''
    def sgd_momentum_step(param, grad, velocity, lr, momentum):
        """Return (new_param, new_velocity) after one step of SGD with momentum (PyTorch's convention)."""
        ### BEGIN SOLUTION
        new_velocity = momentum * velocity + grad
        return param - lr * new_velocity, new_velocity
        ### END SOLUTION
    ''', "ch05-sgd-momentum"),
    tests("""
    check("ch05.sgd_momentum_step", sgd_momentum_step)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch05.sgd_momentum_step", sgd_momentum_step, [
        (randn(6, seed=5201), randn(6, seed=5202), randn(6, seed=5203), 0.5, 0.5),
        (randn(2, 2, seed=5204), randn(2, 2, seed=5205), randn(2, 2, seed=5206), 0.03, 0.99),
    ])
    ### END HIDDEN TESTS
    """, "ch05-sgd-momentum-tests", points=2),
    md(r"""
    ### Exercise 3: one step of Adam

    Write `adam_step(param, grad, exp_avg, exp_avg_sq, step, lr, beta1, beta2, eps)` returning
    `(new_param, new_exp_avg, new_exp_avg_sq)`. `step` is the number of this step, starting at 1 (it is what the bias
    correction uses). As in `minitorch/optim/adam.py`:

    $$m \leftarrow \beta_1 m + (1-\beta_1) g, \qquad v \leftarrow \beta_2 v + (1-\beta_2) g^2,$$
    $$\hat m = \frac{m}{1-\beta_1^{t}}, \qquad \hat v = \frac{v}{1-\beta_2^{t}}, \qquad
      p \leftarrow p - \eta\,\frac{\hat m}{\sqrt{\hat v} + \epsilon}.$$

    Return the new $m$ and $v$ themselves, not the corrected $\hat m$, $\hat v$ (those are recomputed every step).
    Why correct at all? Both averages start at 0, so after one step $m = (1-\beta_1) g$: ten times too small with
    $\beta_1 = 0.9$. Dividing by $1-\beta_1^t$ undoes exactly that shrinkage, and the correction fades as $t$ grows.
    """),
    solution('''
    def adam_step(param, grad, exp_avg, exp_avg_sq, step, lr, beta1, beta2, eps):
        """Return (new_param, new_exp_avg, new_exp_avg_sq) after Adam's step number `step` (1 for the first)."""
        ### BEGIN SOLUTION
        exp_avg = beta1 * exp_avg + (1 - beta1) * grad
        exp_avg_sq = beta2 * exp_avg_sq + (1 - beta2) * grad * grad
        corrected_avg = exp_avg / (1 - beta1 ** step)
        corrected_avg_sq = exp_avg_sq / (1 - beta2 ** step)
        return param - lr * corrected_avg / (corrected_avg_sq.sqrt() + eps), exp_avg, exp_avg_sq
        ### END SOLUTION
    ''', "ch05-adam-step"),
    tests("""
    check("ch05.adam_step", adam_step)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch05.adam_step", adam_step, [
        (randn(5, seed=5301), randn(5, seed=5302), randn(5, seed=5303, scale=0.2),
         np.abs(randn(5, seed=5304, scale=0.2)), 3, 0.05, 0.9, 0.999, 1e-8),
        (randn(3, 3, seed=5305), randn(3, 3, seed=5306), np.zeros((3, 3), dtype=np.float32),
         np.zeros((3, 3), dtype=np.float32), 1, 0.001, 0.5, 0.9, 1e-3),
        (randn(4, seed=5307), randn(4, seed=5308), randn(4, seed=5309), np.abs(randn(4, seed=5310)),
         1000, 0.1, 0.9, 0.99, 1e-8),
    ])
    ### END HIDDEN TESTS
    """, "ch05-adam-step-tests", points=3),
    md(r"""
    ## 3. Writing your own optimizer

    Every optimizer in `minitorch.optim` (and in `torch.optim`) is a subclass of **`optim.Optimizer`**, and yours can
    be too. The base class (`minitorch/optim/optimizer.py`) does the bookkeeping:

    * `__init__(params, defaults)` sorts the parameters into `self.param_groups`: a list of dicts, each with its
      `"params"` and its options, missing options filled in from `defaults`. Groups let one optimizer give, say, the
      last layer a larger learning rate:
      `optim.SGD([{"params": body.parameters()}, {"params": head.parameters(), "lr": 0.1}], lr=0.01)`.
    * `self.state[p]` is a dict per parameter, empty at first, for whatever the algorithm must remember;
      `state_dict()` and `load_state_dict()` save and restore groups and state for you.
    * `zero_grad()` resets the gradients.

    You write `step()`: loop over the groups and their parameters, skip those without a gradient, and update each in
    place (`param.add_(...)`) under `no_grad`, so the model keeps the same tensor objects and no graph is recorded.
    Here is **Lion** (2023), found by an automated search over update rules: step by the *sign* of a blend of momentum
    and gradient, so every coordinate moves by exactly $\pm\eta$.
    """),
    code("""
    class Lion(optim.Optimizer):
        \"\"\"Lion: p -= lr * sign(beta1 * m + (1 - beta1) * g), then m = beta2 * m + (1 - beta2) * g.\"\"\"

        def __init__(self, params, lr=1e-4, betas=(0.9, 0.99)):
            if lr <= 0:
                raise ValueError(f"Invalid learning rate: {lr}")
            super().__init__(params, {"lr": lr, "betas": betas})

        @minitorch.no_grad()
        def step(self, closure=None):
            loss = None
            if closure is not None:                  # some optimizers re-evaluate the loss; keep the API
                with minitorch.enable_grad():
                    loss = closure()
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                for param in group["params"]:
                    if param.grad is None:
                        continue
                    state = self.state[param]
                    if not state:                    # first step: create the momentum
                        state["exp_avg"] = minitorch.zeros_like(param)
                    exp_avg = state["exp_avg"]
                    direction = (beta1 * exp_avg + (1 - beta1) * param.grad).sign()
                    param.add_(direction, alpha=-group["lr"])
                    exp_avg.mul_(beta2).add_(param.grad, alpha=1 - beta2)
            return loss


    lion_bowl = race(narrow_bowl, [-9.0, 1.5], {
        "Lion": lambda params: Lion(params, lr=0.15),
        "Adam": bowl_contenders["Adam"],
        "SGD + momentum 0.9": bowl_contenders["SGD + momentum 0.9"],
    }, steps=60, view=[(-10, 2), (-2, 2)])
    """),
    md(r"""
    Lion's path is made of steps of exactly $\eta$ in each coordinate (diagonal moves, whatever the steepness), and
    its state saves like any other optimizer's:
    """),
    code("""
    weight = minitorch.tensor([1.0, -2.0], requires_grad=True)
    lion = Lion([weight], lr=0.1)
    (weight ** 2).sum().backward()
    lion.step()
    print("after one step:", weight.detach(), "(each coordinate moved by exactly lr)")
    print("state_dict:", lion.state_dict())
    """),
    md(r"""
    ## 4. Learning-rate schedules

    A large learning rate explores quickly but cannot settle into a narrow minimum; a small one settles but crawls.
    Schedules get both by changing the rate during training. A scheduler (`minitorch/optim/lr_scheduler.py`) wraps an
    optimizer and rewrites `group["lr"]` each time you call `scheduler.step()`, after `optimizer.step()`: once per
    epoch for most, once per batch for `OneCycleLR`.

    * **`StepLR(step_size, gamma)`**: multiply by `gamma` every `step_size` steps (a staircase).
    * **`CosineAnnealingLR(T_max, eta_min)`**: follow half a cosine from the initial rate down to `eta_min` at step
      `T_max`: $\eta_t = \eta_{\min} + (\eta_0 - \eta_{\min})\,\frac{1 + \cos(\pi t / T_{\max})}{2}$.
    * **`OneCycleLR(max_lr, total_steps)`**: warm up from `max_lr / 25` to `max_lr` over the first 30% of training,
      then anneal down to almost nothing; momentum moves the opposite way. Warm-up protects the first steps, when
      the weights are random and gradients large.
    """),
    code("""
    def schedule(make_scheduler, steps=100, **optimizer_options):
        weight = minitorch.zeros(1, requires_grad=True)
        optimizer = optim.SGD([weight], lr=0.1, **optimizer_options)
        scheduler = make_scheduler(optimizer)
        rates, momenta = [], []
        for _ in range(steps):
            rates.append(optimizer.param_groups[0]["lr"])
            momenta.append(optimizer.param_groups[0]["momentum"])
            optimizer.step()          # (a real loop computes a loss and gradients first)
            scheduler.step()
        return rates, momenta

    schedulers = {
        "StepLR(step_size=30, gamma=0.5)": lambda o: optim.lr_scheduler.StepLR(o, step_size=30, gamma=0.5),
        "CosineAnnealingLR(T_max=100, eta_min=0.005)":
            lambda o: optim.lr_scheduler.CosineAnnealingLR(o, T_max=100, eta_min=0.005),
        "OneCycleLR(max_lr=0.1, total_steps=100)":
            lambda o: optim.lr_scheduler.OneCycleLR(o, max_lr=0.1, total_steps=100),
    }
    figure, (rate_axis, momentum_axis) = plt.subplots(1, 2, figsize=(12, 3.4))
    for name, make_scheduler in schedulers.items():
        rates, momenta = schedule(make_scheduler, momentum=0.9)
        rate_axis.plot(rates, label=name)
        momentum_axis.plot(momenta, label=name)
    rate_axis.set_title("learning rate")
    momentum_axis.set_title("momentum (OneCycleLR cycles it too)")
    for axis in (rate_axis, momentum_axis):
        axis.set_xlabel("scheduler.step() calls")
        axis.legend(fontsize=8)
    plt.tight_layout()
    plt.show()
    """),
    md(r"""
    Does it matter? The digits classifier of chapter 4, trained for 4 epochs with a few of the optimizers of this
    chapter, with and without a schedule (every run starts from the same weights and sees the same batches):
    """),
    code("""
    from sklearn.datasets import load_digits

    digits = load_digits()
    images = minitorch.tensor(digits.data / 16.0, dtype=minitorch.float32)
    targets = minitorch.tensor(digits.target)
    epochs, batch_size = 4, 64
    batches_per_epoch = math.ceil(len(targets) / batch_size)

    def train_digits(make_optimizer, make_scheduler=None):
        minitorch.manual_seed(0)                      # same initial weights and batch order for every run
        model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))
        optimizer = make_optimizer(model.parameters())
        scheduler = make_scheduler(optimizer) if make_scheduler else None
        losses = []
        for _epoch in range(epochs):
            order = minitorch.randperm(len(targets))
            for start in range(0, len(targets), batch_size):
                batch = order[start:start + batch_size]
                optimizer.zero_grad()
                loss = F.cross_entropy(model(images[batch]), targets[batch])
                loss.backward()
                optimizer.step()
                if scheduler is not None:
                    scheduler.step()                  # per batch here
                losses.append(loss.item())
        return losses

    runs = {
        "SGD lr=0.1": train_digits(lambda p: optim.SGD(p, lr=0.1)),
        "SGD lr=0.1, momentum 0.9": train_digits(lambda p: optim.SGD(p, lr=0.1, momentum=0.9)),
        "Adam lr=0.01": train_digits(lambda p: optim.Adam(p, lr=0.01)),
        "Adam + OneCycleLR(max_lr=0.02)": train_digits(
            lambda p: optim.Adam(p, lr=0.01),
            lambda o: optim.lr_scheduler.OneCycleLR(o, max_lr=0.02, total_steps=epochs * batches_per_epoch)),
    }
    for name, losses in runs.items():
        smooth = np.convolve(losses, np.ones(15) / 15, mode="valid")
        plt.plot(np.arange(14, len(losses)), smooth, label=f"{name}: last {np.mean(losses[-15:]):.3f}")
    plt.yscale("log")
    plt.xlabel("step")
    plt.ylabel("cross-entropy (average of 15 batches)")
    plt.legend(fontsize=8)
    plt.show()
    """),
    md(r"""
    After the same 4 epochs, plain SGD at this learning rate has barely started, while momentum and Adam are far
    ahead, and the one-cycle schedule (warm up, then anneal) ends lowest. With more epochs the gaps narrow, but on a
    fixed budget of steps the choice of optimizer and schedule shows.

    ### Exercise 4: a cosine schedule's value

    Write `cosine_lr(step, total_steps, base_lr, min_lr)` returning (as a Python float) the learning rate that
    `CosineAnnealingLR(optimizer, T_max=total_steps, eta_min=min_lr)` gives at `step`, for an optimizer created with
    `lr=base_lr`: $\eta_{\min} + (\eta_0 - \eta_{\min})\,(1 + \cos(\pi\,t / T))/2$. `math.cos` and `math.pi` are enough.
    """),
    solution('''
    def cosine_lr(step, total_steps, base_lr, min_lr):
        """The cosine-annealed learning rate at `step`: base_lr at 0, min_lr at total_steps."""
        ### BEGIN SOLUTION
        return min_lr + (base_lr - min_lr) * (1 + math.cos(math.pi * step / total_steps)) / 2
        ### END SOLUTION
    ''', "ch05-cosine-lr"),
    tests("""
    check("ch05.cosine_lr", cosine_lr)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch05.cosine_lr", cosine_lr, [
        (3, 7, 0.5, 0.0), (60, 80, 3e-4, 1e-5), (1, 1000, 1.0, 0.9), (33, 33, 0.2, 0.05),
    ])
    ### END HIDDEN TESTS
    """, "ch05-cosine-lr-tests", points=1),
    md(r"""
    ## 5. Build it: a loss's backward, and an optimizer

    Two pieces of the machinery, written by you and checked against minitorch's own (`F.cross_entropy` with
    autograd, and `optim.AdamW`) on inputs you have not seen.

    ### Exercise 5: softmax cross-entropy with its own backward

    Autograd would differentiate your exercise 1 through every operation. But the gradient of cross-entropy with
    respect to the logits has a closed form worth deriving once, on paper: write one sample's loss as a function of
    its logits and differentiate it with respect to each logit. Then complete `SoftmaxCrossEntropy`, a `Function`
    whose `forward(ctx, logits, targets)` returns the **mean** cross-entropy (stably: logits may be in the
    hundreds) and saves what backward needs, and whose `backward(ctx, grad_output)` returns the gradient for the
    logits from your formula (times `grad_output`, the chain rule) and `None` for the targets (integers have no
    gradient). No autograd inside: the formula is the point.

    `softmax_cross_entropy_with_grad(logits, targets, scale)` (already written) runs your `Function`, back-propagates
    `scale * loss`, and returns the loss and the logits' gradient. `gradcheck` it too.
    `hint("ch05.softmax_cross_entropy_with_grad")` gives hints step by step.
    """),
    solution('''
    class SoftmaxCrossEntropy(minitorch.autograd.Function):
        """The mean cross-entropy of logits (N, C) against class indices targets (N,)."""

        @staticmethod
        def forward(ctx, logits, targets):
            ### BEGIN SOLUTION
            shifted = logits - logits.max(dim=1, keepdim=True).values
            log_probabilities = shifted - shifted.exp().sum(dim=1, keepdim=True).log()
            one_hot = F.one_hot(targets, logits.shape[1]).to(logits.dtype)
            ctx.save_for_backward(log_probabilities.exp(), one_hot)
            return -(log_probabilities * one_hot).sum() / logits.shape[0]
            ### END SOLUTION

        @staticmethod
        def backward(ctx, grad_output):
            ### BEGIN SOLUTION
            probabilities, one_hot = ctx.saved_tensors
            return grad_output * (probabilities - one_hot) / probabilities.shape[0], None
            ### END SOLUTION


    def softmax_cross_entropy_with_grad(logits, targets, scale):
        """(loss, d(scale * loss)/d(logits)) through SoftmaxCrossEntropy."""
        logits = logits.detach().requires_grad_()
        loss = SoftmaxCrossEntropy.apply(logits, targets)
        (loss * scale).backward()
        return loss.detach(), logits.grad
    ''', "ch05-softmax-cross-entropy"),
    tests("""
    check("ch05.softmax_cross_entropy_with_grad", softmax_cross_entropy_with_grad)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch05.softmax_cross_entropy_with_grad", softmax_cross_entropy_with_grad, [
        (randn(8, 10, seed=5300, dtype="float64", scale=3.0), np.arange(8) % 10, 0.5),
        (randn(1, 2, seed=5301, dtype="float64"), np.array([1]), 1.0),
        (randn(4, 6, seed=5302, dtype="float64", scale=1000.0), np.array([5, 0, 0, 3]), -1.0),
    ])
    ### END HIDDEN TESTS
    """, "ch05-softmax-cross-entropy-tests", points=2),
    code("""
    try:
        logits = minitorch.randn(5, 4, dtype=minitorch.float64, requires_grad=True)
        labels = minitorch.tensor([0, 3, 1, 1, 2])
        print("SoftmaxCrossEntropy passes gradcheck:",
              minitorch.autograd.gradcheck(lambda z: SoftmaxCrossEntropy.apply(z, labels), (logits,)))
    except NotImplementedError:
        print("Complete SoftmaxCrossEntropy above first, then run this cell again.")
    """),
    md(r"""
    ### Exercise 6: AdamW as an `Optimizer`

    Write `MyAdamW`, a subclass of `optim.Optimizer` like `Lion` above, with PyTorch's AdamW update (Loshchilov and
    Hutter's *decoupled* weight decay: the parameter shrinks by a factor $1 - \text{lr}\cdot\lambda$ before the Adam
    step, and the gradient is left alone, unlike the L2 penalty of `Adam(weight_decay=...)`):

    $$p \leftarrow p\,(1 - \text{lr}\,\lambda);\quad m \leftarrow \beta_1 m + (1-\beta_1) g;\quad
      v \leftarrow \beta_2 v + (1-\beta_2) g^2;\quad
      p \leftarrow p - \text{lr}\,\frac{m / (1-\beta_1^t)}{\sqrt{v / (1-\beta_2^t)} + \epsilon}$$

    with $t$ the parameter's step count, from 1. Every parameter **group** has its own `lr`, `betas`, `eps` and
    `weight_decay`; every parameter keeps its state in `self.state[param]` under PyTorch's keys `"step"`,
    `"exp_avg"` ($m$) and `"exp_avg_sq"` ($v$), so that `state_dict()` saves it and `load_state_dict()` resumes a
    run. A parameter whose `.grad` is `None` is skipped.

    `adamw_run_of_my_optimizer(...)` (already written) runs your optimizer for a few steps with fixed gradients on two
    parameters in two groups (the second with half the learning rate and no decay, and no gradient at its first
    step), and in runs of six steps or more rebuilds the optimizer from its `state_dict()` half-way; the check
    compares every step with `optim.AdamW`.
    """),
    solution('''
    class MyAdamW(optim.Optimizer):
        """AdamW: decoupled weight decay, then Adam's bias-corrected step."""

        def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
            super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay})

        @minitorch.no_grad()
        def step(self, closure=None):
            ### BEGIN SOLUTION
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                for param in group["params"]:
                    if param.grad is None:
                        continue
                    state = self.state[param]
                    if not state:
                        state["step"] = 0
                        state["exp_avg"] = minitorch.zeros_like(param)
                        state["exp_avg_sq"] = minitorch.zeros_like(param)
                    state["step"] += 1
                    param.mul_(1 - group["lr"] * group["weight_decay"])
                    state["exp_avg"].mul_(beta1).add_(param.grad, alpha=1 - beta1)
                    state["exp_avg_sq"].mul_(beta2).add_(param.grad * param.grad, alpha=1 - beta2)
                    corrected_avg = state["exp_avg"] / (1 - beta1 ** state["step"])
                    corrected_avg_sq = state["exp_avg_sq"] / (1 - beta2 ** state["step"])
                    param.sub_(group["lr"] * corrected_avg / (corrected_avg_sq.sqrt() + group["eps"]))
            ### END SOLUTION


    def adamw_run_of_my_optimizer(first, second, first_grads, second_grads, learning_rate, weight_decay):
        """first's value after each step, second's at the end, and first's exp_avg_sq, with MyAdamW."""
        first = minitorch.tensor(first, requires_grad=True)
        second = minitorch.tensor(second, requires_grad=True)

        def make():
            groups = [{"params": [first]}, {"params": [second], "lr": learning_rate / 2, "weight_decay": 0.0}]
            return MyAdamW(groups, lr=learning_rate, betas=(0.9, 0.99), eps=1e-8, weight_decay=weight_decay)

        optimizer, trajectory, steps = make(), [], len(first_grads)
        for step in range(steps):
            if steps >= 6 and step == steps // 2:  # stop and resume, as a long training run would
                saved = optimizer.state_dict()
                optimizer = make()
                optimizer.load_state_dict(saved)
            first.grad = minitorch.tensor(first_grads[step])
            second.grad = None if step == 0 else minitorch.tensor(second_grads[step])
            optimizer.step()
            trajectory.append(first.detach().clone())
        return minitorch.stack(trajectory), second.detach().clone(), optimizer.state[first]["exp_avg_sq"].clone()
    ''', "ch05-adamw"),
    tests("""
    check("ch05.adamw_run", adamw_run_of_my_optimizer)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch05.adamw_run", adamw_run_of_my_optimizer, [
        (randn(5, seed=5400), randn(1, seed=5401), randn(8, 5, seed=5402), randn(8, 1, seed=5403), 0.3, 0.2),
        (randn(2, 3, seed=5404), randn(2, seed=5405), randn(2, 2, 3, seed=5406, scale=1e-3), randn(2, 2, seed=5407),
         0.01, 1.0),
    ])
    ### END HIDDEN TESTS
    """, "ch05-adamw-tests", points=3),
    code("""
    # Your optimizer next to optim.AdamW, training the same small model for 50 steps.
    def train_with(optimizer_class):
        minitorch.manual_seed(0)
        model = nn.Linear(4, 1)
        inputs, targets = minitorch.randn(32, 4), minitorch.randn(32, 1)
        optimizer = optimizer_class(model.parameters(), lr=0.05, weight_decay=0.1)
        for _ in range(50):
            optimizer.zero_grad()
            loss = F.mse_loss(model(inputs), targets)
            loss.backward()
            optimizer.step()
        return loss.item()


    print(f"optim.AdamW: final loss {train_with(optim.AdamW):.6f}")
    try:
        print(f"MyAdamW:     final loss {train_with(MyAdamW):.6f}")
    except NotImplementedError:
        print("Complete MyAdamW above first, then run this cell again.")
    """),
    md(r"""
    ### Exercise 7: the `Optimizer` base, and AdamW on it

    `MyAdamW` stood on minitorch's `optim.Optimizer`. Now write that base class too, with PyTorch's behaviour, and
    put your AdamW on it:

    * `add_param_group(group)` (called by `__init__`, already written, once per group): the group becomes a dict
      whose `"params"` is a list and whose missing options are filled in from `self.defaults`; a tensor already in
      another group is refused with PyTorch's `ValueError("some parameters appear in more than one parameter
      group")`;
    * `self.state` maps each **parameter** (the tensor object itself, not its position) to its dict;
    * `zero_grad(set_to_none=True)` sets every `.grad` to `None`; with `set_to_none=False` it fills them with
      zeros instead, in place;
    * `state_dict()` returns PyTorch's format, a dict that refers to no tensor of the model:
      `{"state": {0: {...}, 1: {...}}, "param_groups": [{"lr": ..., ..., "params": [0, 1]}, {..., "params": [2]}]}`,
      each parameter replaced by its position counted across all the groups; the state's tensors are copies;
    * `load_state_dict(state_dict)` maps those numbers back onto this optimizer's own parameters, group by group,
      restores their state (copies) and the groups' saved options (`lr`, `betas`, ...): a `state_dict` saved by
      `torch.optim.AdamW`, with all its extra keys, loads and continues exactly as PyTorch would;
    * `AdamW.step()`: the update of exercise 6 (you may start from your `MyAdamW.step`), reading every option
      from the parameter's group. PyTorch saves `"step"` as a 0-d tensor: read it with `float(...)`.

    `optimizer_report_of_mine(...)` (below the classes) runs your AdamW on three parameters in two groups (the second
    with half the learning rate and no decay) and compares everything above with `optim.AdamW`: groups, defaults,
    the refusal, the steps, the state, the `state_dict`, a resumed run and a run resumed from PyTorch's format.
    `hint("ch05.optimizer_base")` gives hints step by step.
    """),
    solution('''
    import minitorch
    from grading.library.optim import optimizer_report  # the report the check compares


    class Optimizer:
        """optim.Optimizer's bookkeeping: parameter groups, per-parameter state, zero_grad, state_dict."""

        def __init__(self, params, defaults):
            self.defaults = defaults
            self.state = {}  # parameter -> its dict (PyTorch uses a defaultdict(dict))
            self.param_groups = []
            groups = list(params)
            if not isinstance(groups[0], dict):  # a plain list of tensors is one group
                groups = [{"params": groups}]
            for group in groups:
                self.add_param_group(group)

        def add_param_group(self, param_group):
            """Append the group: params as a list, options from the defaults; a tensor in two groups refused."""
            ### BEGIN SOLUTION
            group = dict(param_group)
            group["params"] = list(group["params"])
            for name, default in self.defaults.items():
                group.setdefault(name, default)
            taken = {id(param) for other in self.param_groups for param in other["params"]}
            if any(id(param) in taken for param in group["params"]):
                raise ValueError("some parameters appear in more than one parameter group")
            self.param_groups.append(group)
            ### END SOLUTION

        def zero_grad(self, set_to_none=True):
            """Every .grad to None, or (set_to_none=False) filled with zeros in place."""
            ### BEGIN SOLUTION
            for group in self.param_groups:
                for param in group["params"]:
                    if param.grad is None:
                        continue
                    if set_to_none:
                        param.grad = None
                    else:
                        param.grad.zero_()
            ### END SOLUTION

        def state_dict(self):
            """{"state": {index: copies}, "param_groups": [options, "params" as indices]}: PyTorch's format."""
            ### BEGIN SOLUTION
            index_of = {}
            for group in self.param_groups:
                for param in group["params"]:
                    index_of.setdefault(id(param), len(index_of))
            groups = []
            for group in self.param_groups:
                saved = {key: value for key, value in group.items() if key != "params"}
                saved["params"] = [index_of[id(param)] for param in group["params"]]
                groups.append(saved)
            state = {}
            for param, entry in self.state.items():
                state[index_of[id(param)]] = {
                    key: value.clone() if isinstance(value, minitorch.Tensor) else value for key, value in entry.items()
                }
            return {"state": state, "param_groups": groups}
            ### END SOLUTION

        def load_state_dict(self, state_dict):
            """Map the indices back onto this optimizer's parameters; restore their state (copies) and options."""
            ### BEGIN SOLUTION
            saved_groups = state_dict["param_groups"]
            if len(saved_groups) != len(self.param_groups):
                raise ValueError("loaded state dict has a different number of parameter groups")
            param_of = {}
            for saved, group in zip(saved_groups, self.param_groups):
                if len(saved["params"]) != len(group["params"]):
                    raise ValueError(
                        "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"
                    )
                param_of.update(zip(saved["params"], group["params"]))
            restored_state = {
                param_of[index]: {
                    key: value.clone() if isinstance(value, minitorch.Tensor) else value for key, value in entry.items()
                }
                for index, entry in state_dict["state"].items()
            }
            restored_groups = [
                {**{key: value for key, value in saved.items() if key != "params"}, "params": group["params"]}
                for saved, group in zip(saved_groups, self.param_groups)
            ]
            self.state, self.param_groups = restored_state, restored_groups
            ### END SOLUTION

        def step(self):
            raise NotImplementedError("a subclass writes step()")


    class AdamW(Optimizer):
        """AdamW on your Optimizer: decoupled weight decay, then Adam's bias-corrected step."""

        def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
            super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay})

        @minitorch.no_grad()
        def step(self):
            """One AdamW update of every parameter that has a gradient, with its group's options."""
            ### BEGIN SOLUTION
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                for param in group["params"]:
                    if param.grad is None:
                        continue
                    state = self.state.setdefault(param, {})
                    if not state:
                        state["step"] = 0.0
                        state["exp_avg"] = minitorch.zeros_like(param)
                        state["exp_avg_sq"] = minitorch.zeros_like(param)
                    state["step"] = float(state["step"]) + 1
                    step = state["step"]
                    param.mul_(1 - group["lr"] * group["weight_decay"])
                    state["exp_avg"].mul_(beta1).add_(param.grad, alpha=1 - beta1)
                    state["exp_avg_sq"].mul_(beta2).add_(param.grad * param.grad, alpha=1 - beta2)
                    corrected_avg = state["exp_avg"] / (1 - beta1**step)
                    corrected_avg_sq = state["exp_avg_sq"] / (1 - beta2**step)
                    param.sub_(group["lr"] * corrected_avg / (corrected_avg_sq.sqrt() + group["eps"]))
            ### END SOLUTION


    def optimizer_report_of_mine(values, split, grads, learning_rate, weight_decay):
        """What the check compares, for your AdamW on your Optimizer."""
        return optimizer_report(AdamW, values, split, grads, learning_rate, weight_decay)
    ''', "ch05-optimizer"),
    tests("""
    check("ch05.optimizer_base", optimizer_report_of_mine)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch05.optimizer_base", optimizer_report_of_mine, [
        (randn(9, seed=5600), np.array([4, 4]), randn(5, 9, seed=5601), 0.2, 0.05),
        (randn(3, seed=5602), np.array([1, 1]), randn(8, 3, seed=5603, scale=1e-3), 0.003, 2.0),
        (randn(12, seed=5604), np.array([2, 7]), randn(2, 12, seed=5605, scale=5.0), 0.5, 0.0),
    ])
    ### END HIDDEN TESTS
    """, "ch05-optimizer-tests", points=3),
    md(r"""
    Your optimizer in use: `use("AdamW")` hands out your AdamW if it passes its public checks, and minitorch's
    `optim.AdamW` otherwise (saying so in one line). The same small model as above, trained for 50 steps, stopped
    after 25 and resumed from the `state_dict`:
    """),
    code("""
    from grading.library import my_library, use

    YourAdamW = use("AdamW")
    minitorch.manual_seed(0)
    model = nn.Linear(4, 1)
    inputs, targets = minitorch.randn(32, 4), minitorch.randn(32, 1)
    decay, no_decay = [model.weight], [model.bias]
    optimizer = YourAdamW([{"params": decay}, {"params": no_decay, "weight_decay": 0.0}], lr=0.05, weight_decay=0.1)
    for step in range(50):
        if step == 25:   # stop and resume, as a long run does
            saved = optimizer.state_dict()
            optimizer = YourAdamW([{"params": decay}, {"params": no_decay}], lr=0.05, weight_decay=0.1)
            optimizer.load_state_dict(saved)
        optimizer.zero_grad()
        loss = F.mse_loss(model(inputs), targets)
        loss.backward()
        optimizer.step()
    print("groups after resuming:", [(group["lr"], group["weight_decay"]) for group in optimizer.param_groups])
    print(f"final loss {loss.item():.6f}; the saved state_dict's params: "
          f"{[group['params'] for group in saved['param_groups']]}")
    """),
    md(r"""
    ### Your library so far

    The pieces of your own minitorch, and whether each one is yours (it passes its public checks) or still
    minitorch's. Later chapters take your pieces from this notebook once it is saved, so save it before moving on.
    """),
    code("""
    my_library("05_losses_and_optimizers")
    """),
    md(r"""
    ## Summary

    * A loss reduces (prediction, target) to one number: `nn.MSELoss` for regression, `nn.CrossEntropyLoss` for one
      class among many, `nn.BCEWithLogitsLoss` for yes/no labels. The classification losses take **logits** so they
      can use the log-sum-exp trick ($m + \log\sum e^{z-m}$) and stay finite and informative when the model is
      confidently wrong.
    * `optim.SGD` follows the gradient; momentum adds a velocity; `optim.Adagrad`, `optim.RMSprop`, `optim.Adadelta`
      and `optim.Adam` rescale each coordinate by the size of its gradients; `optim.ASGD` averages the iterates. The
      learning rate must suit the algorithm.
    * A new optimizer is a subclass of `optim.Optimizer` with `defaults`, per-parameter `self.state`, and an in-place
      `step()` under `no_grad`.
    * `optim.Optimizer` is bookkeeping you can write: groups completed from the defaults, state keyed by the
      parameter, `zero_grad`, and a `state_dict` that names parameters by position, so a run resumes anywhere
      (even from PyTorch's own).
    * `optim.lr_scheduler` changes the learning rate as training goes: `StepLR`, `CosineAnnealingLR`, `OneCycleLR`
      (call `scheduler.step()` after `optimizer.step()`).
    """),
    code("""
    summary("ch05")
    """),
]

write("05_losses_and_optimizers", cells)
