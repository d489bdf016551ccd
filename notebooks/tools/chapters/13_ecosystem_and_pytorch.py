"""Chapter 13: the ecosystem and the way to PyTorch (NumPy, DLPack, SciPy, scikit-learn; the same code on minitorch
and on PyTorch; weights across the two)."""

from author import code, md, solution, tests, write

cells = [
    md(r"""
    # 13. The ecosystem and the way to PyTorch

    A tensor library is rarely used alone. Data arrives as NumPy arrays, SciPy has optimisers refined over decades,
    scikit-learn has the tools to compare models honestly, and sooner or later the code should run on PyTorch
    itself. This chapter connects minitorch to all of them.

    By the end of it you will be able to:

    * move data between minitorch and NumPy without copying (`from_numpy`, `.numpy()`, `np.asarray`, NumPy's
      functions on tensors) and between libraries with **DLPack** (`minitorch.from_dlpack`);
    * hand a loss and its autograd gradient to **SciPy**'s optimisers (`minitorch.interop.scipy`);
    * use a network as a **scikit-learn** estimator in a `Pipeline`, with `cross_val_score` and `GridSearchCV`
      (`minitorch.interop.sklearn`);
    * run the *same* training code on minitorch and on PyTorch, from the same initial weights, and get the same
      losses;
    * save weights in one library and load them in the other: `minitorch.save` writes PyTorch's own file format.
    """),
    code("""
    import importlib.util
    import pickle
    import tempfile
    import zipfile
    from pathlib import Path

    import matplotlib.pyplot as plt
    import numpy as np

    import minitorch
    import minitorch.nn as nn
    import minitorch.nn.functional as F
    from grading import check, hint, randn, summary  # noqa: F401 (hint("<exercise>") shows hints, step by step)

    # PyTorch is optional for this chapter: the side-by-side sections need it, everything else runs without it.
    torch = None
    if importlib.util.find_spec("torch") is None:
        print("PyTorch is not installed: the side-by-side sections explain what they would show.\\n"
              "To run them: pip install torch (the CPU build is enough).")
    else:
        try:
            import torch
            print("PyTorch", torch.__version__, "is installed: the side-by-side sections will run.")
        except Exception as error:  # installed but broken (a missing library, too little memory)
            print(f"PyTorch is installed but does not import ({type(error).__name__}: {error}); skipping it.")
    """),
    md(r"""
    ## 1. NumPy: the same memory, seen twice

    A minitorch tensor on the CPU *is* a NumPy array plus autograd information (look at `Tensor._data` in
    `minitorch/_tensor.py`). So the bridge is free:

    * `minitorch.from_numpy(array)` wraps the array: no copy, changes show on both sides;
    * `tensor.numpy()` returns the array inside: no copy either;
    * `np.asarray(tensor)` works through the `__array__` protocol (also without a copy);
    * NumPy's functions (*ufuncs* such as `np.exp`, `np.maximum`) accept tensors and return tensors, as with PyTorch,
      through `__array_wrap__`.

    `minitorch.tensor(array)` instead always copies, like `torch.tensor`.
    """),
    code("""
    array = np.arange(6.0).reshape(2, 3)
    shared = minitorch.from_numpy(array)          # shares memory
    copied = minitorch.tensor(array)              # copies
    array[0, 0] = 100.0
    print("from_numpy sees the change:", shared[0, 0].item(), "| tensor() does not:", copied[0, 0].item())
    shared[1, 2] = -1.0
    print("and the other way:", array[1, 2])
    print("np.shares_memory(shared.numpy(), array):", np.shares_memory(shared.numpy(), array),
          "| np.asarray too:", np.shares_memory(np.asarray(shared), array))
    print("np.exp(tensor) ->", type(np.exp(shared)).__name__, "| array + tensor ->", type(np.ones(3) + shared).__name__)
    print("dtypes map one to one: NumPy float32 ->", minitorch.from_numpy(np.zeros(2, dtype=np.float32)).dtype,
          "| minitorch.int64 -> NumPy", minitorch.zeros(2, dtype=minitorch.int64).numpy().dtype)
    """),
    md(r"""
    Two cases refuse, with PyTorch's messages. A tensor that requires gradients: NumPy would see the numbers but not
    the graph, so changes made in NumPy would silently escape autograd; call `.detach()` first. A tensor on a GPU:
    its memory is on the card, and NumPy can only read host memory; call `.cpu()` first (a copy). Hence the idiom
    you will see everywhere in PyTorch code: `tensor.detach().cpu().numpy()`.
    """),
    code("""
    weights = minitorch.ones(3, requires_grad=True)
    try:
        weights.numpy()
    except RuntimeError as error:
        print("RuntimeError:", error)
    print(weights.detach().cpu().numpy())
    if minitorch.cuda.is_available():
        on_gpu = minitorch.ones(3, device="cuda")
        try:
            on_gpu.numpy()
        except TypeError as error:
            print("TypeError:", error)
    else:
        print("(no GPU here: on one, .numpy() of a cuda tensor raises TypeError and asks for .cpu() first)")
    """),
    md(r"""
    ## 2. DLPack: sharing memory between libraries

    NumPy's protocol only covers the CPU. **DLPack** is a tiny C structure (a pointer, a shape, strides, a dtype and
    a device) that NumPy, PyTorch, CuPy, JAX and TensorFlow all understand. `minitorch.from_dlpack(other)` asks the
    other library for that structure and wraps the same memory; `torch.from_dlpack(minitorch_tensor)` and
    `np.from_dlpack(minitorch_tensor)` go the other way. No copy in either direction, on the CPU or on a GPU (where
    it is the standard way to share device memory between libraries). The whole implementation is short:
    `minitorch/_dlpack.py`.
    """),
    code("""
    array = np.zeros(4, dtype=np.float32)
    through_dlpack = minitorch.from_dlpack(array)
    through_dlpack[0] = 5.0
    print("NumPy array after writing through minitorch:", array)
    back = np.from_dlpack(minitorch.arange(3.0))
    print("np.from_dlpack(minitorch tensor):", back, type(back).__name__)

    if torch is not None:
        mt = minitorch.zeros(3)
        pt = torch.from_dlpack(mt)               # a PyTorch tensor on minitorch's memory
        pt += 1                                  # written by PyTorch...
        print("minitorch tensor after PyTorch wrote to it:", mt)   # ...seen by minitorch
        pt2 = torch.arange(3.0)
        print("minitorch.from_dlpack(torch tensor):", minitorch.from_dlpack(pt2))
    else:
        print("(with PyTorch: torch.from_dlpack(t) shares a minitorch tensor's memory, and back)")
    """),
    md(r"""
    ## 3. SciPy: its optimisers, minitorch's gradients

    `scipy.optimize.minimize` has optimisers that beat plain gradient descent on small, smooth problems: L-BFGS
    (a quasi-Newton method that builds a picture of the curvature from the last few gradients), conjugate gradients,
    trust-region methods. They need a function that returns the loss **and its gradient** as a float64 NumPy
    vector. Autograd makes the gradient free; `minitorch.interop.scipy` packs the two together. Its docstring:
    """),
    code("""
    import scipy.optimize

    from minitorch.interop import scipy as mt_scipy

    print(mt_scipy.__doc__)
    print(mt_scipy.value_and_grad.__doc__)
    """),
    md(r"""
    The classic test is **Rosenbrock's function** $f(x, y) = (1 - x)^2 + 100\,(y - x^2)^2$: its minimum at $(1, 1)$
    lies at the bottom of a long, curved, almost flat valley, where gradient descent crawls. Below, L-BFGS with
    minitorch's exact gradients, against two ways of doing without gradients: Nelder-Mead (a simplex that only
    compares values) and L-BFGS with gradients estimated by finite differences (one extra function call per
    coordinate for every gradient, and less accurate).
    """),
    code("""
    def rosenbrock(x):
        return ((1 - x[:-1]) ** 2 + 100 * (x[1:] - x[:-1] ** 2) ** 2).sum()

    start = np.array([-1.2, 1.0])
    path = [start]
    with_gradients = mt_scipy.minimize(rosenbrock, start, method="L-BFGS-B", callback=lambda xk: path.append(xk.copy()))

    def value_only(x):                               # what SciPy gets without autograd
        return rosenbrock(minitorch.tensor(x)).item()

    simplex = scipy.optimize.minimize(value_only, start, method="Nelder-Mead", options={"xatol": 1e-8, "fatol": 1e-12})
    finite_differences = scipy.optimize.minimize(value_only, start, method="L-BFGS-B")
    for name, result in [("L-BFGS, autograd gradient", with_gradients), ("Nelder-Mead, no gradient", simplex),
                         ("L-BFGS, finite differences", finite_differences)]:
        print(f"{name:27s} x = {np.round(result.x, 6)}  function calls: {result.nfev:4d}  f = {result.fun:.1e}")

    grid_x, grid_y = np.meshgrid(np.linspace(-2, 2, 200), np.linspace(-1, 3, 200))
    surface = (1 - grid_x) ** 2 + 100 * (grid_y - grid_x ** 2) ** 2
    plt.contour(grid_x, grid_y, np.log10(surface + 1e-3), levels=25, cmap="viridis")
    path = np.array(path)
    plt.plot(path[:, 0], path[:, 1], "o-", color="tab:red", markersize=3, label=f"L-BFGS ({len(path) - 1} steps)")
    plt.plot(1, 1, "*", color="black", markersize=14, label="minimum (1, 1)")
    plt.legend()
    plt.title("Rosenbrock's valley (log scale)")
    plt.show()
    """),
    md(r"""
    ### Exercise 1: a value-and-gradient function for SciPy

    Write `rosenbrock_value_and_grad(x)` yourself, the function that `mt_scipy.value_and_grad(rosenbrock)` builds:
    given a float64 NumPy vector `x` (any length ≥ 2), return the pair `(value, gradient)` where `value` is the
    Rosenbrock function at `x` as a Python `float` and `gradient` is its gradient as a float64 NumPy array of the
    same shape, computed by minitorch's autograd. (`rosenbrock` above works on any 1-D tensor.)
    """),
    solution('''
    def rosenbrock_value_and_grad(x):
        """(f(x), gradient of f at x) for SciPy: a float and a float64 NumPy array."""
        ### BEGIN SOLUTION
        point = minitorch.tensor(x, dtype=minitorch.float64, requires_grad=True)
        loss = ((1 - point[:-1]) ** 2 + 100 * (point[1:] - point[:-1] ** 2) ** 2).sum()
        loss.backward()
        return loss.item(), point.grad.numpy()
        ### END SOLUTION
    ''', "ch13-rosenbrock-value-and-grad"),
    tests("""
    check("ch13.rosenbrock_value_and_grad", rosenbrock_value_and_grad)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch13.rosenbrock_value_and_grad", rosenbrock_value_and_grad, [
        (np.array([0.0, 0.0]),),
        (randn(8, seed=13101, dtype="float64", scale=2.0),),
        (np.array([2.0, -1.0, 0.5, 3.0]),),
    ])
    ### END HIDDEN TESTS
    """, "ch13-rosenbrock-value-and-grad-tests", points=2),
    md(r"""
    Once it passes, `scipy.optimize.minimize(rosenbrock_value_and_grad, start, jac=True, method="L-BFGS-B")` finds
    the minimum: `jac=True` tells SciPy the function returns the gradient too.

    The same idea trains a whole model: `mt_scipy.minimize_module(model, closure)` packs all trainable parameters into
    one vector for SciPy and the gradients the same way. For a small model and a data set that fits in memory,
    full-batch L-BFGS is a strong optimiser with no learning rate to tune. A softmax regression on the digits:
    """),
    code("""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    digits_x, digits_y = load_digits(return_X_y=True)
    train_x, test_x, train_y, test_y = train_test_split(digits_x / 16.0, digits_y, test_size=0.25, random_state=0)
    inputs, targets = minitorch.tensor(train_x, dtype=minitorch.float32), minitorch.tensor(train_y)

    minitorch.manual_seed(0)
    softmax_regression = nn.Linear(64, 10)
    def closure():                                   # the loss, with a little weight decay
        return F.cross_entropy(softmax_regression(inputs), targets) + 1e-3 * softmax_regression.weight.pow(2).sum()

    result = mt_scipy.minimize_module(softmax_regression, closure, options={"maxiter": 200})
    with minitorch.no_grad():
        predictions = softmax_regression(minitorch.tensor(test_x, dtype=minitorch.float32)).argmax(dim=1).numpy()
    print(f"L-BFGS: {result.nit} iterations, loss {result.fun:.3f}, test accuracy {np.mean(predictions == test_y):.1%}")
    """),
    md(r"""
    ## 4. scikit-learn: a network as an estimator

    scikit-learn's tools (pipelines, cross-validation, grid search) work with any object that follows its
    *estimator* conventions: `fit(X, y)`, `predict(X)`, constructor arguments stored as-is, `get_params` /
    `set_params`. `minitorch.interop.sklearn.NeuralNetClassifier` (and `NeuralNetRegressor`) wraps any `nn.Module`
    that way (by default an MLP sized from the data at `fit`), so a network can be cross-validated like a
    logistic regression. Read the docstring of `minitorch/interop/sklearn.py` for the options (optimizer, epochs,
    batch size, your own module).
    """),
    code("""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV, cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from minitorch.interop.sklearn import NeuralNetClassifier

    classifier = NeuralNetClassifier(hidden_layer_sizes=(32,), max_epochs=10, random_state=0)   # an MLP 64-32-10
    network = make_pipeline(StandardScaler(), classifier)
    linear = make_pipeline(StandardScaler(), LogisticRegression(max_iter=300))
    for name, estimator in [("minitorch MLP", network), ("logistic regression", linear)]:
        scores = cross_val_score(estimator, digits_x, digits_y, cv=3)
        print(f"{name:20s} 3-fold accuracy {scores.mean():.1%} (folds: {np.round(scores, 3)})")
    """),
    md(r"""
    `cross_val_score` *cloned* the pipeline and fitted a fresh copy on each fold: that only works because the
    estimator follows the conventions. `GridSearchCV` does the same for every combination of settings and keeps the
    best (step names in a pipeline are the class names in lower case, then `__` and the parameter):
    """),
    code("""
    search = GridSearchCV(
        network,
        {"neuralnetclassifier__hidden_layer_sizes": [(16,), (64,)], "neuralnetclassifier__lr": [0.001, 0.01]},
        cv=3,
    )
    search.fit(digits_x, digits_y)
    for parameters, score in zip(search.cv_results_["params"], search.cv_results_["mean_test_score"]):
        print({key.split("__")[1]: value for key, value in parameters.items()}, f"{score:.1%}")
    print("best:", search.best_params_)
    fitted = search.best_estimator_[-1]
    print("the fitted minitorch network inside:", fitted.module_)
    """),
    md(r"""
    ## 5. The same code on minitorch and on PyTorch

    minitorch spells everything as PyTorch does, so a training program written against one runs on the other. To
    show it literally, here is one program as a string, run twice: once after `import minitorch as torch`, once
    after `import torch`. Both runs start from the **same initial weights** (made with NumPy and loaded through
    `from_numpy` + `load_state_dict`) and see the **same batches**, so they should compute the same losses.
    """),
    code('''
    program = """
    def train(inputs, targets, initial_state, steps=100, batch_size=64, lr=0.1):
        model = torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.Tanh(), torch.nn.Linear(32, 10))
        model.load_state_dict({name: torch.from_numpy(array) for name, array in initial_state.items()})
        optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
        inputs, targets = torch.from_numpy(inputs), torch.from_numpy(targets)
        losses = []
        for step in range(steps):
            start = (step * batch_size) % (len(targets) - batch_size)
            batch = slice(start, start + batch_size)
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(inputs[batch]), targets[batch])
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        return losses, {name: value.detach().numpy() for name, value in model.state_dict().items()}
    """

    generator = np.random.default_rng(0)                 # the initial weights, made once, with NumPy
    initial_state = {
        "0.weight": generator.uniform(-1 / 8, 1 / 8, (32, 64)).astype(np.float32), "0.bias": np.zeros(32, np.float32),
        "2.weight": generator.uniform(-0.18, 0.18, (10, 32)).astype(np.float32), "2.bias": np.zeros(10, np.float32),
    }
    data = ((digits_x / 16.0).astype(np.float32), digits_y.astype(np.int64))

    runs = {}
    for header in ["import minitorch as torch", "import torch"]:
        if header == "import torch" and torch is None:
            print("PyTorch is not installed: only the minitorch run happens.")
            continue
        namespace = {}
        exec(header + "\\n" + program, namespace)           # the same source text, two libraries
        runs[header] = namespace["train"](*data, initial_state)
        print(f"{header:26s} final loss {runs[header][0][-1]:.6f}")
    '''),
    code("""
    if len(runs) == 2:
        (mt_losses, mt_state), (pt_losses, pt_state) = runs.values()
        difference = np.abs(np.array(mt_losses) - np.array(pt_losses))
        figure, (loss_axis, difference_axis) = plt.subplots(1, 2, figsize=(11, 3.4))
        loss_axis.plot(mt_losses, label="minitorch", linewidth=3, alpha=0.6)
        loss_axis.plot(pt_losses, "--", label="PyTorch", color="black")
        loss_axis.set_xlabel("step")
        loss_axis.set_ylabel("cross-entropy")
        loss_axis.legend()
        differs = np.flatnonzero(difference)
        difference_axis.semilogy(differs, difference[differs], ".", label="steps where the losses differ")
        difference_axis.axhline(np.finfo(np.float32).eps, color="gray", linestyle=":", label="float32 epsilon")
        difference_axis.set_ylim(1e-10, 1e-5)
        difference_axis.set_xlabel("step")
        difference_axis.legend()
        difference_axis.set_title(f"|minitorch loss - PyTorch loss| ({len(difference) - len(differs)} of "
                                  f"{len(difference)} steps exactly equal)", fontsize=10)
        plt.tight_layout()
        plt.show()
        largest_weight_gap = max(np.abs(mt_state[name] - pt_state[name]).max() for name in mt_state)
        print(f"largest loss difference {difference.max():.1e}; largest weight difference after training "
              f"{largest_weight_gap:.1e}")
    else:
        print("With PyTorch installed, this cell plots both loss curves on top of each other and their difference,\\n"
              "which stays at the level of float32 rounding (about 1e-7).")
    """),
    md(r"""
    The curves lie on top of each other; the differences are at the level of float32 rounding ($\approx 10^{-7}$):
    the two libraries round differently in a few places (the order of the additions inside a matrix product, the
    exact formula inside log-softmax), and that is all. That is what "the same results" can mean for floating point.
    (With the weights and data in float64, `model.double()`, the gap shrinks to about $10^{-16}$.)

    ### Exercise 2: a training step for any library

    Write `agnostic_step(x, labels, weight, bias, lr, lib=minitorch)`: one gradient-descent step of softmax regression
    that runs unchanged with `lib=minitorch` and `lib=torch`. Use only `lib.` functions and tensor methods:

    1. `weight = weight.detach().requires_grad_()` (and the same for `bias`): fresh leaves that record gradients;
    2. `loss = lib.nn.functional.cross_entropy(x @ weight.T + bias, labels)`;
    3. `grad_weight, grad_bias = lib.autograd.grad(loss, (weight, bias))`;
    4. under `lib.no_grad()`, return `(weight - lr * grad_weight, bias - lr * grad_bias, loss.detach())`.
    """),
    solution('''
    def agnostic_step(x, labels, weight, bias, lr, lib=minitorch):
        """One softmax-regression SGD step with any PyTorch-like library: (new_weight, new_bias, loss)."""
        ### BEGIN SOLUTION
        weight = weight.detach().requires_grad_()
        bias = bias.detach().requires_grad_()
        loss = lib.nn.functional.cross_entropy(x @ weight.T + bias, labels)
        grad_weight, grad_bias = lib.autograd.grad(loss, (weight, bias))
        with lib.no_grad():
            return weight - lr * grad_weight, bias - lr * grad_bias, loss.detach()
        ### END SOLUTION
    ''', "ch13-agnostic-step"),
    tests("""
    check("ch13.agnostic_step", agnostic_step)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch13.agnostic_step", agnostic_step, [
        (randn(5, 2, seed=13201), np.array([0, 1, 1, 0, 1]), randn(2, 2, seed=13202), randn(2, seed=13203), 1.0),
        (randn(32, 8, seed=13204), np.random.default_rng(13205).integers(0, 10, 32), randn(10, 8, seed=13206),
         randn(10, seed=13207), 0.05),
    ])
    ### END HIDDEN TESTS
    """, "ch13-agnostic-step-tests", points=2),
    md(r"""
    The check runs it with minitorch. With PyTorch installed, the cell below runs your function with `lib=torch` on
    the same numbers and compares (it reports instead of failing while the exercise is blank):
    """),
    code("""
    labels = np.random.default_rng(2).integers(0, 3, 8)
    step_inputs = [randn(8, 4, seed=1), labels, randn(3, 4, seed=3), randn(3, seed=4)]
    if torch is None:
        print("PyTorch is not installed: nothing to compare with.")
    else:
        try:
            on_minitorch = agnostic_step(*[minitorch.from_numpy(a) for a in step_inputs], 0.5)
            on_pytorch = agnostic_step(*[torch.from_numpy(a) for a in step_inputs], 0.5, lib=torch)
            gaps = [np.abs(a.numpy() - b.numpy()).max() for a, b in zip(on_minitorch, on_pytorch)]
            print("largest difference minitorch vs PyTorch (new weight, new bias, loss):",
                  [f"{gap:.1e}" for gap in gaps])
        except NotImplementedError:
            print("agnostic_step is not written yet: write it above, then run this cell again.")
    """),
    md(r"""
    ## 6. Weights across the two libraries

    Both libraries name parameters the same way (`"0.weight"`, `"2.bias"`: the path to the module, then the
    parameter) and store them in the same layout (a Linear's weight is `(out, in)`), so a `state_dict` crosses over.

    * `minitorch.save(obj, path)` writes the file `torch.save` writes: a zip holding a pickle of the object
      (`data.pkl`, where each tensor is a call to `torch._utils._rebuild_tensor_v2`) and each storage's raw bytes
      (`data/0`, `data/1`...). So `torch.load` reads it, and `minitorch.load` reads what `torch.save` wrote.
    * Loading unpickles through an allow-list (`weights_only=True`, the default in both libraries): tensors,
      numbers and containers are rebuilt, and a file that names anything else is refused before anything in it
      runs. A whole pickled module needs `weights_only=False`: only for files you trust.
    * A dictionary of NumPy arrays works too (`np.savez`, read back with `np.load(..., allow_pickle=False)`), and
      so do safetensors files (`minitorch.utils.safetensors`).
    """),
    code("""
    minitorch.manual_seed(0)
    mt_model = nn.Sequential(nn.Linear(64, 32), nn.Tanh(), nn.Linear(32, 10))
    scratch = tempfile.TemporaryDirectory()              # deleted when the kernel stops
    folder = Path(scratch.name)

    minitorch.save(mt_model.state_dict(), folder / "model.pt")            # PyTorch's file format
    restored = nn.Sequential(nn.Linear(64, 32), nn.Tanh(), nn.Linear(32, 10))
    restored.load_state_dict(minitorch.load(folder / "model.pt"))
    probe = minitorch.tensor(data[0][:5])
    print("minitorch.save -> minitorch.load, same outputs:", minitorch.equal(mt_model(probe), restored(probe)))
    with zipfile.ZipFile(folder / "model.pt") as archive:
        print("model.pt holds:", archive.namelist())

    minitorch.save(mt_model, folder / "whole_model.pt")                   # a pickle of the module object itself
    try:
        minitorch.load(folder / "whole_model.pt")                        # weights_only=True: classes are refused
    except pickle.UnpicklingError as error:
        print("loading a whole module with weights_only=True:", str(error).split("WeightsUnpickler error: ")[-1][:96])
    print("with weights_only=False:", type(minitorch.load(folder / "whole_model.pt", weights_only=False)).__name__)
    """),
    code("""
    if torch is None:
        print("With PyTorch: torch.load('model.pt') reads minitorch's file, and minitorch.load reads torch.save's.")
    else:
        pt_model = torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.Tanh(), torch.nn.Linear(32, 10))
        pt_model.load_state_dict(torch.load(folder / "model.pt"))     # minitorch's file, PyTorch's loader
        with torch.no_grad():
            pt_out = pt_model(torch.from_numpy(data[0][:5])).numpy()
        with minitorch.no_grad():
            mt_out = mt_model(probe).numpy()
        print("minitorch.save -> torch.load, largest output difference:", np.abs(pt_out - mt_out).max())

        # and back: a PyTorch checkpoint into a minitorch model
        with torch.no_grad():
            pt_model[0].weight.mul_(0.5)                                  # change it in PyTorch
        torch.save(pt_model.state_dict(), folder / "pytorch.pt")
        mt_model.load_state_dict(minitorch.load(folder / "pytorch.pt"))
        print("torch.save -> minitorch.load, same first weight:",
              np.array_equal(mt_model[0].weight.detach().numpy(), pt_model[0].weight.detach().numpy()))
    """),
    md(r"""
    ### Exercise 3: weights from NumPy arrays

    Someone trained a two-layer MLP (`Linear -> ReLU -> Linear`) in PyTorch and sent you its weights as NumPy arrays
    (from an `.npz` file). Write `predict_from_numpy_weights(x, w1, b1, w2, b2)`, where all five arguments are
    **NumPy arrays**: build the minitorch model `nn.Sequential(nn.Linear(...), nn.ReLU(), nn.Linear(...))` with the
    sizes read from the weights' shapes, load the arrays with `load_state_dict` (the names are `"0.weight"`,
    `"0.bias"`, `"2.weight"`, `"2.bias"`: the ReLU at position 1 has no parameters), and return the model's output
    for `x` as a minitorch tensor (computed under `no_grad`).
    """),
    solution('''
    def predict_from_numpy_weights(x, w1, b1, w2, b2):
        """Load PyTorch-layout NumPy weights into a minitorch MLP and return its output for the NumPy input x."""
        ### BEGIN SOLUTION
        hidden, inputs = w1.shape
        outputs = w2.shape[0]
        model = nn.Sequential(nn.Linear(inputs, hidden), nn.ReLU(), nn.Linear(hidden, outputs))
        arrays = {"0.weight": w1, "0.bias": b1, "2.weight": w2, "2.bias": b2}
        model.load_state_dict({name: minitorch.from_numpy(array) for name, array in arrays.items()})
        with minitorch.no_grad():
            return model(minitorch.from_numpy(x))
        ### END SOLUTION
    ''', "ch13-predict-from-numpy-weights"),
    tests("""
    check("ch13.predict_from_numpy_weights", predict_from_numpy_weights)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch13.predict_from_numpy_weights", predict_from_numpy_weights, [
        (randn(6, 2, seed=13301), randn(3, 2, seed=13302), randn(3, seed=13303), randn(1, 3, seed=13304),
         randn(1, seed=13305)),
        (randn(2, 10, seed=13306), randn(4, 10, seed=13307), randn(4, seed=13308), randn(7, 4, seed=13309),
         randn(7, seed=13310)),
    ])
    ### END HIDDEN TESTS
    """, "ch13-predict-from-numpy-weights-tests", points=2),
    md(r"""
    ## 7. The way to PyTorch

    What you wrote against minitorch's PyTorch-shaped API (tensors, autograd, `nn`, `optim`, `utils.data`) runs on
    PyTorch after one change: `import torch` instead of `import minitorch` (and `torchvision` for
    `minitorch.vision`). A few teaching aids exist only in minitorch, and code that uses them needs PyTorch's own
    spelling:

    * `minitorch.autograd.graph.call_node(node, gradient)` and `graph.leaf_tensor(node)` (chapter 2's engine
      loop): in PyTorch a node is called directly, `node(gradient)`, and a leaf's `AccumulateGrad` node holds its
      tensor in `node.variable`;
    * `nn.DataParallel(model, num_replicas=N)` (chapter 12's CPU replicas): PyTorch's `DataParallel` runs on GPUs
      only and takes `device_ids`;
    * `minitorch.interop` (this chapter's SciPy and scikit-learn bridges), the bundled datasets such as
      `minitorch.vision.datasets.Digits`, and the widgets.

    What PyTorch adds is not a different model of computation but speed and reach:

    * **kernels in C++ and CUDA**, tuned for each device, instead of calls into NumPy, and a compiler
      (`torch.compile`) that fuses many operations into one kernel;
    * **more devices and precisions**: many GPUs, Apple's MPS, mixed precision with `torch.autocast`;
    * **scale**: `DistributedDataParallel` across machines, sharded models, checkpointing;
    * **an ecosystem**: torchvision's pretrained ImageNet models, Hugging Face's transformers, and the rest.

    What stays the same is everything you now know from the inside: tensors over an array of numbers, a graph recorded
    as the code runs and walked backwards by an engine, modules that register their parameters, optimizers that read
    `.grad`, data loaders that batch samples. When PyTorch surprises you, the minitorch source of the same name
    (`minitorch/autograd/engine.py`, `minitorch/nn/modules/module.py`, `minitorch/optim/adam.py`...) is a readable
    place to look for why.

    ## Summary

    * NumPy and minitorch share memory: `from_numpy`, `.numpy()`, `np.asarray` copy nothing; NumPy ufuncs return
      tensors; `tensor.detach().cpu().numpy()` is the safe way out.
    * DLPack (`minitorch.from_dlpack`, `torch.from_dlpack`, `np.from_dlpack`) shares memory between libraries,
      on CPU and GPU.
    * SciPy's optimisers take autograd's gradients through a value-and-gradient function (`jac=True`);
      `minitorch.interop.scipy` has `value_and_grad`, `minimize` and `minimize_module`.
    * `minitorch.interop.sklearn.NeuralNetClassifier` makes a network a scikit-learn estimator, so `Pipeline`,
      `cross_val_score` and `GridSearchCV` work with it.
    * The same program runs on minitorch and PyTorch and, from the same weights and data, gives the same losses up to
      float32 rounding; weights cross between them in PyTorch's file format (`minitorch.save` / `torch.load` and
      `torch.save` / `minitorch.load`), loaded through an allow-list so that nothing in a file runs.
    """),
    code("""
    summary("ch13")
    """),
]

write("13_ecosystem_and_pytorch", cells)
