"""Chapter 4 (building networks): a Linear layer's forward, a two-layer MLP's forward, one SGD training step.

Expected values are computed by the references below (minitorch's own ``linear``, ``relu``,
``mse_loss`` and autograd), never written down; the public cases are inputs only.
"""

import minitorch
import minitorch.nn.functional as F
from grading.registry import exercise, randn


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
    reference=lambda x, weight, bias: F.linear(x, weight, bias),
    public=[
        (randn(4, 3, seed=401), randn(2, 3, seed=402), randn(2, seed=403)),
        (randn(1, 5, seed=404), randn(3, 5, seed=405), randn(3, seed=406)),
        (randn(2, 3, 4, seed=407), randn(6, 4, seed=408), randn(6, seed=409)),
    ],
    hint="y = x @ weight.T + bias. weight has shape (out_features, in_features), so it is transposed; "
    "the bias (out_features,) broadcasts over every leading dimension of x.",
)

exercise(
    "ch04.mlp_forward",
    function="mlp_forward",
    reference=_mlp_forward,
    public=[
        (randn(5, 4, seed=411), randn(8, 4, seed=412), randn(8, seed=413), randn(3, 8, seed=414), randn(3, seed=415)),
        (randn(2, 2, seed=416), randn(3, 2, seed=417), randn(3, seed=418), randn(1, 3, seed=419), randn(1, seed=420)),
    ],
    hint="hidden = relu(x @ w1.T + b1), then output = hidden @ w2.T + b2. No activation after the last layer: "
    "the loss function decides what the raw outputs mean.",
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
    reference=_sgd_step,
    public=[
        (randn(8, 3, seed=421), randn(8, 2, seed=422), randn(2, 3, seed=423), randn(2, seed=424), 0.1),
        (randn(16, 5, seed=425), randn(16, 1, seed=426), randn(1, 5, seed=427), randn(1, seed=428), 0.05),
    ],
    outputs=("new_weight", "new_bias", "loss"),
    answer_check=_detached_update,
    hints=[
        "Autograd needs leaves to fill: weight and bias must require grad before the forward pass. After "
        "backward, their .grad holds dL/dweight and dL/dbias, and the step moves each against its gradient.",
        "L = mean((x Wᵀ + b − target)²); W' = W − lr·∂L/∂W and b' = b − lr·∂L/∂b (minus: a step goes downhill). "
        "The update must not be recorded: the new parameters are leaves with no grad_fn.",
        "requires_grad_() on the two parameters, the forward pass and the loss, .backward(), then the two updates "
        "inside a `with minitorch.no_grad():` block; return the loss detached from its graph.",
    ],
)
