"""Chapter 4 (building networks): a Linear layer's forward, a two-layer MLP's forward, one SGD training step.

Expected values are computed by the references below (minitorch's own ``linear``, ``relu``,
``mse_loss`` and autograd), never written down; the public cases are inputs only.
"""

import minitorch
import minitorch.nn.functional as F
from grading.registry import exercise, randn

# the library's linear: the function, the op it applies (reachable directly) and the layer that calls it
LINEAR = (
    "minitorch.nn.functional.linear", "minitorch.ops.nn_ops.Linear", "minitorch.ops.nn_ops.LinearNoBias",
    "minitorch.nn.Linear",
)

# The Module machinery the learner rebuilds (withheld while ch04.module_report is graded): a Module that
# merely subclasses nn.Module finds these raising NotImplementedError.
MODULE_MACHINERY = tuple(
    f"minitorch.nn.Module.{method}"
    for method in ("__setattr__", "parameters", "named_parameters", "state_dict", "load_state_dict")
)


def _mlp_forward(x, w1, b1, w2, b2):
    return F.linear(F.relu(F.linear(x, w1, b1)), w2, b2)


def _sgd_step(x, target, weight, bias, learning_rate):
    """A linear model ``x @ weight.T + bias``, mean squared error, autograd's gradients, one SGD update."""
    weight = weight.detach().requires_grad_(True)
    bias = bias.detach().requires_grad_(True)
    loss = F.mse_loss(F.linear(x, weight, bias), target)
    loss.backward()
    with minitorch.no_grad():
        return weight - learning_rate * weight.grad, bias - learning_rate * bias.grad, loss.detach()


exercise(
    "ch04.linear_forward",
    function="linear_forward",
    withheld=LINEAR,
    reference=lambda x, weight, bias: F.linear(x, weight, bias),
    public=[
        (randn(4, 3, seed=401), randn(2, 3, seed=402), randn(2, seed=403)),
        (randn(1, 5, seed=404), randn(3, 5, seed=405), randn(3, seed=406)),
        (randn(2, 3, 4, seed=407), randn(6, 4, seed=408), randn(6, seed=409)),
    ],
    labels=[
        "a batch of 4 rows, 3 features in, 2 out",
        "a single row",
        "a 3-d input (2, 3, 4): the leading dimensions stay as they are",
    ],
    hints=[
        "A linear layer multiplies every input row by the weight matrix and adds the bias; every leading dimension of "
        "x is a batch dimension and stays as it is.",
        "y = x Wᵀ + b, where W has shape (out_features, in_features) (PyTorch's layout), so it is transposed, and b "
        "of shape (out_features,) broadcasts over the rows.",
        "The @ operator multiplies over the last dimension of x whatever comes before it; .T (or transpose) turns W "
        "around; addition broadcasts the bias.",
    ],
)

exercise(
    "ch04.mlp_forward",
    function="mlp_forward",
    withheld=LINEAR,
    reference=_mlp_forward,
    public=[
        (randn(5, 4, seed=411), randn(8, 4, seed=412), randn(8, seed=413), randn(3, 8, seed=414), randn(3, seed=415)),
        (randn(2, 2, seed=416), randn(3, 2, seed=417), randn(3, seed=418), randn(1, 3, seed=419), randn(1, seed=420)),
    ],
    labels=[
        "8 hidden units, 3 outputs",
        "one output: still no activation after the last layer",
    ],
    hints=[
        "Two linear layers with a ReLU between them: the output of the first, made non-negative, is the input of the "
        "second.",
        "h = relu(x W₁ᵀ + b₁), out = h W₂ᵀ + b₂. No activation after the last layer: the loss decides what the raw "
        "scores mean.",
        "Your linear_forward of exercise 1 can do both layers; minitorch has a relu function (or clamp at 0).",
    ],
)


def _detached_update(answer) -> str | None:
    """The lesson of no_grad: the updated parameters must be new leaves, not results recorded in the graph."""
    if not isinstance(answer, (tuple, list)):
        return None
    for name, value in zip(("new_weight", "new_bias", "loss"), answer):
        if isinstance(value, minitorch.Tensor) and value.grad_fn is not None:
            return (
                f"{name} is still part of the graph (grad_fn={value.grad_fn.name()}): the update is recorded as an "
                "operation. Do the update where autograd does not record (the lesson of this exercise), so the "
                "new parameters are leaves, as an optimizer's are"
            )
    return None


exercise(
    "ch04.sgd_step",
    function="sgd_step",
    withheld=("minitorch.optim.SGD",),
    reference=_sgd_step,
    public=[
        (randn(8, 3, seed=421), randn(8, 2, seed=422), randn(2, 3, seed=423), randn(2, seed=424), 0.1),
        (randn(16, 5, seed=425), randn(16, 1, seed=426), randn(1, 5, seed=427), randn(1, seed=428), 0.05),
    ],
    outputs=("new_weight", "new_bias", "loss"),
    answer_check=_detached_update,
    labels=[
        "2 outputs, learning rate 0.1",
        "one output, 16 samples: the loss is a mean over every entry",
    ],
    hints=[
        "Autograd needs leaves to fill: weight and bias must require grad before the forward pass. After "
        "backward, their .grad holds dL/dweight and dL/dbias, and the step moves each against its gradient.",
        "L = mean((x Wᵀ + b − target)²); W' = W − lr·∂L/∂W and b' = b − lr·∂L/∂b (minus: a step goes downhill). "
        "The update must not be recorded: the new parameters are leaves with no grad_fn.",
        "requires_grad_() on the two parameters, the forward pass and the loss, .backward(), then the two updates "
        "inside a `with minitorch.no_grad():` block; return the loss detached from its graph.",
    ],
)


# -- build it: the Module machinery ------------------------------------------------------------------
# The notebook builds the same nested model on the learner's Module and the reference builds it on
# minitorch.nn.Module: a chain Chain(first=Affine, gain=Parameter, rest=Chain(...)), with layer sizes from
# ``sizes``, values from ``values`` (cycled), and, when ``share`` is 1, the innermost chain reusing the first
# Affine layer (shared weights, listed once by named_parameters). The graded answers are arrays, so the names
# travel as rows of UTF-8 bytes (grading.compare.encode_texts) and a wrong list is reported as the two lists of
# names; the notebook also prints the names themselves next to minitorch's.
import numpy as np  # noqa: E402

import minitorch.nn as nn  # noqa: E402
from grading.compare import encode_texts  # noqa: E402


def model_classes(base):
    """Affine and Chain on the Module class ``base`` (the learner's, or minitorch.nn.Module)."""

    class Affine(base):
        def __init__(self, weight, bias):
            super().__init__()
            self.weight = nn.Parameter(weight)
            self.bias = nn.Parameter(bias)
            self.note = "a plain attribute: not registered"

    class Chain(base):
        def __init__(self, first, gain, rest=None):
            super().__init__()
            self.first = first
            self.has_rest = rest is not None  # a plain attribute
            if rest is not None:
                self.rest = rest
            self.gain = nn.Parameter(gain)  # assigned last, listed first: a module's own parameters come first

    return Affine, Chain


def build_model(base, sizes, values, share):
    """The nested chain for ``sizes`` on ``base``, its parameters filled from ``values`` in order (cycled)."""
    Affine, Chain = model_classes(base)
    sizes = [int(size) for size in np.asarray(sizes).tolist()]
    needed = sum(sizes[i + 1] * sizes[i] + sizes[i + 1] + 1 for i in range(len(sizes) - 1))
    pool = iter(np.resize(np.asarray(values, dtype=np.float32), needed).tolist())

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
    """Every module of the chain, outside in, found by attribute name (not by the listing methods being tested)."""
    found, stack = [], [model]
    while stack:
        module = stack.pop()
        found.append(module)
        if hasattr(module, "weight"):  # an Affine layer: no children
            continue
        stack.extend([module.rest, module.first] if module.has_rest else [module.first])
    return found


def name_codes(names):
    """The names as the notebook's name_codes encodes them: a row of 64 UTF-8 bytes each, zero-padded."""
    return encode_texts(list(names))


def module_report(base, sizes, values, new_values, share):
    """What the exercise compares, for a model built on ``base``: the reference and the notebook share it."""
    model = build_model(base, sizes, values, share)
    names = [name for name, _ in model.named_parameters()]
    flat = minitorch.cat([parameter.detach().reshape(-1) for parameter in model.parameters()])
    state = model.state_dict()
    model.load_state_dict(build_model(base, sizes, new_values, share).state_dict())
    loaded = minitorch.cat([parameter.detach().reshape(-1) for parameter in model.parameters()])
    model.eval()
    after_eval = [module.training for module in chain_modules(model)]
    model.train()
    after_train = [module.training for module in chain_modules(model)]
    return name_codes(names), name_codes(state), flat, loaded, np.array(after_eval + after_train)


exercise(
    "ch04.module_report",
    function="module_report_of_my_module",
    withheld=MODULE_MACHINERY,
    reference=lambda sizes, values, new_values, share: module_report(nn.Module, sizes, values, new_values, share),
    input_type="numpy",
    output_type="any",
    public=[
        (np.array([3, 2]), randn(16, seed=430), randn(16, seed=431), 0),
        (np.array([4, 3, 2]), randn(30, seed=432), randn(30, seed=433), 0),
        (np.array([2, 2, 2, 2]), randn(12, seed=434), randn(12, seed=435), 1),
    ],
    labels=[
        "one Affine layer in a Chain: a module's own parameter (gain) comes before its submodules'",
        "a chain nested two deep: names are paths with dots (rest.first.weight)",
        "the innermost layer is the first layer again (shared weights): listed once, under its first name",
    ],
    outputs=(
        "named_parameters() names",
        "state_dict() keys",
        "parameters() values",
        "values after load_state_dict",
        "training flags after eval(), then train()",
    ),
    text_outputs=(1, 2),
    hints=[
        "A module keeps two dictionaries, its own parameters and its child modules, filled when an attribute is "
        "assigned. Everything else (listing, saving, loading, switching modes) walks those dictionaries, recursing "
        "into the children.",
        "Names are paths: a child's parameter is called child_name + '.' + its name inside the child, at any depth. "
        "PyTorch's order: the module's own parameters first, then each child's in the order the children were "
        "assigned. A parameter reachable twice is listed once, under the first name found; state_dict keeps every "
        "path. train(mode) sets the flag here and in every child; eval() is train(False).",
        "In __setattr__, look at the type of the value (nn.Parameter, Module) to pick the dictionary, and still set "
        "the attribute normally. A generator with a prefix argument walks the tree; a set of ids remembers what was "
        "already listed. Loading copies values into the existing parameters without recording a graph.",
    ],
)


# -- build it: buffers, forward hooks, _apply/to and a strict state_dict -------------------------------------
# The report (grading/library/module.py, shared with the notebook) builds a tree of small modules on the
# learner's Module and on minitorch's nn.Module (tests: and on torch.nn.Module) and compares what each shows.
from grading.library.module import MACHINERY_OUTPUTS, machinery_report  # noqa: E402

# minitorch's nn.Module machinery the learner rebuilds, withheld while ch04.module_machinery is graded
MODULE_MACHINERY_FULL = tuple(
    f"minitorch.nn.Module.{method}"
    for method in (
        "__setattr__", "__getattr__", "__call__", "register_buffer", "register_parameter", "named_parameters",
        "parameters", "named_buffers", "buffers", "register_forward_hook", "_apply", "to", "state_dict",
        "load_state_dict",
    )
)  # fmt: skip


def _tree(*rows):
    return np.array(rows, dtype=np.int64)


exercise(
    "ch04.module_machinery",
    function="module_machinery_report",
    withheld=MODULE_MACHINERY_FULL,
    reference=lambda structure, values, new_values, x: machinery_report(nn.Module, structure, values, new_values, x),
    input_type="numpy",
    output_type="any",
    check_dtype=False,
    public=[
        (_tree((-1, 3, 1, -1), (0, 2, 0, -1)), randn(8, seed=440), randn(8, seed=441), randn(4, seed=442)),
        (_tree((-1, 2, 5, -1), (0, 3, 2, -1), (1, 2, 1, -1), (0, 2, 0, 0)),
         randn(12, seed=443), randn(12, seed=444), randn(3, seed=445)),
        (_tree((-1, 1, 4, -1), (0, 2, 3, -1), (1, 3, 1, -1), (2, 2, 2, -1), (3, 1, 7, 1)),
         randn(9, seed=446), randn(9, seed=447), randn(2, seed=448)),
    ],  # fmt: skip
    labels=[
        "a root with a buffer and one child",
        "an integer buffer, a non-persistent buffer, and a grandchild whose weight is the root's (shared)",
        "a chain four deep: every kind of buffer, a weight shared with a module two levels up",
    ],
    outputs=MACHINERY_OUTPUTS,
    hints=[
        "A module keeps four dictionaries (its parameters, its buffers, its children, its forward hooks) and a set of "
        "the buffer names it does not save. Assignment and register_buffer fill them; every other method walks them, "
        "recursing into the children; attribute reads find the values there.",
        "Paths: a child's entries are called child_name + '.' + their own name, at any depth, own entries first. "
        "named_parameters remembers what it has yielded (a shared parameter once); state_dict keeps every path but "
        "skips non-persistent buffers. A call runs forward, then each hook as hook(module, args, output) in the order "
        "registered, a non-None result becoming the output. _apply(fn) gives a parameter new data (param.data = ...) "
        "and a buffer a new tensor in its dictionary, then recurses.",
        "A handle knows the hook dictionary and the key its hook is stored under; remove() deletes that key (and a "
        "second remove() changes nothing); each new hook needs a key not used before. load_state_dict(state, "
        "strict=True) compares state's keys with self.state_dict()'s first and raises the RuntimeError described "
        "above (one line per kind of wrong key, each key in double quotes) before it copies anything; then each "
        "value goes in place under no_grad.",
    ],
)
