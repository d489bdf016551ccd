"""The printed ``grad_fn`` of the losses and activations PyTorch fuses into one kernel is PyTorch's.

``print(loss)`` shows ``grad_fn=<NllLossBackward0>`` after ``F.cross_entropy`` in PyTorch, and
``print(F.gelu(x))`` shows ``GeluBackward0``; tutorials print these and walk ``next_functions``.
Each computation below runs on minitorch and on PyTorch with the same inputs; the node names, the
order of ``next_functions`` and the gradients must agree. The fused nodes are checked against finite
differences too (first and second order), since their backward is written by hand.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from tests.support import require_torch

CASES = {
    # losses: one node with the reduction inside
    "mse": "F.mse_loss(x, t)", "mse_none": "F.mse_loss(x, t, reduction='none')",
    "nll": "F.nll_loss(x.log_softmax(1), c)", "nll_none": "F.nll_loss(x, c, reduction='none')",
    "nll_sum_weight": "F.nll_loss(x, c, weight=w, reduction='sum')",
    "nll_weight_mean": "F.nll_loss(x, c, weight=w)", "nll_ignore": "F.nll_loss(x, c, ignore_index=1)",
    "nll_one_sample": "F.nll_loss(x[0], c[0])", "nll_image": "F.nll_loss(x[None].permute(0, 2, 1), c[None])",
    "nll_image4": "F.nll_loss(x.reshape(1, 5, 2, 3), c.reshape(1, 2, 3))",
    "nll_5d_none": "F.nll_loss(x.reshape(1, 5, 3, 2, 1), c.reshape(1, 3, 2, 1), reduction='none')",
    "cross_entropy_weight": "F.cross_entropy(x, c, weight=w)",
    "cross_entropy_image": "F.cross_entropy(x.reshape(2, 5, 3), c.reshape(2, 3))",
    "cross_entropy_probabilities": "F.cross_entropy(x, p.softmax(1))",  # DivBackward1: a division by a number
    "cross_entropy_probabilities_smoothed": "F.cross_entropy(x, p.softmax(1), label_smoothing=0.1)",
    "huber": "F.huber_loss(x, t)", "huber_none": "F.huber_loss(x, t, reduction='none', delta=0.5)",
    "smooth_l1": "F.smooth_l1_loss(x, t)", "smooth_l1_sum": "F.smooth_l1_loss(x, t, reduction='sum', beta=0.3)",
    "bce": "F.binary_cross_entropy(x.sigmoid(), p)",
    "bce_none": "F.binary_cross_entropy(x.sigmoid(), p, reduction='none')",
    "bce_weight": "F.binary_cross_entropy(x.sigmoid(), p, weight=w)",
    "bce_logits": "F.binary_cross_entropy_with_logits(x, p)", "soft_margin": "F.soft_margin_loss(x, s)",
    "soft_margin_sum": "F.soft_margin_loss(x, s, reduction='sum')", "l1": "F.l1_loss(x, t)",
    "module_losses": "nn.MSELoss()(x, t) + nn.HuberLoss()(x, t) + nn.NLLLoss()(x, c) + nn.SmoothL1Loss()(x, t)",
    "embedding_bag_mean": "F.embedding_bag(c, x, c.new_tensor([0, 2, 5]))",
    "embedding_bag_sum_weights": "F.embedding_bag(c, x, c.new_tensor([0, 3]), mode='sum', "
                                 "per_sample_weights=p[:, 0] * x[:, 0])",
    "embedding_bag_max": "F.embedding_bag(c.view(2, 3), x, mode='max')",
    "embedding_bag_padding": "F.embedding_bag(c.view(3, 2), x, padding_idx=1)",
    "addmm": "torch.addmm(w[:4], x, t.T[:, :4])", "addmm_scaled": "torch.addmm(x[:, :1], x, t.T, beta=0.5, alpha=2.0)",
    "addmm_rows": "torch.addmm(t[:, :1] @ t[:1, :], x, t.T[:, :6] @ t[:6, :], beta=0)",
    # activations
    "gelu": "F.gelu(x)", "gelu_tanh": "F.gelu(x, approximate='tanh')", "silu": "F.silu(x)", "mish": "F.mish(x)",
    "softplus": "F.softplus(x, beta=2.0, threshold=1.0)", "logsigmoid": "F.logsigmoid(x)",
    "leaky_relu": "F.leaky_relu(x, 0.2)", "elu": "F.elu(x, 0.7)", "selu": "F.selu(x)", "celu": "F.celu(x, 1.5)",
    "hardtanh": "F.hardtanh(x, -0.5, 0.5)", "relu6": "F.relu6(x * 4)", "hardsigmoid": "F.hardsigmoid(x * 4)",
    "hardswish": "F.hardswish(x * 4)", "threshold": "F.threshold(x, 0.1, 20.0)", "softshrink": "F.softshrink(x)",
    "hardshrink": "F.hardshrink(x)",
    "modules": "nn.Sequential(nn.Linear(5, 4), nn.GELU(), nn.Linear(4, 4), nn.SiLU(), nn.Linear(4, 3), "
               "nn.LeakyReLU()).double()(x)",
    "tutorial_mlp": "F.mse_loss(nn.Linear(4, 2).double()(F.relu(nn.Linear(5, 4).double()(x))), t[:, :2])",
}

# Compared to this depth only: nn.Linear's node lists its weight directly, PyTorch's lists TBackward0 over it
# (test_linear_lists_its_weight_through_a_transpose below).
SHALLOW = {"modules": 1, "tutorial_mlp": 1}

# Each fused node, checked against finite differences in float64 (first and second order).
FUSED = [
    "F.gelu(x)", "F.gelu(x, approximate='tanh')", "F.silu(x)", "F.mish(x)", "F.softplus(x, beta=2.0, threshold=1.0)",
    "F.logsigmoid(x)", "F.leaky_relu(x, 0.2)", "F.elu(x, 0.7)", "F.selu(x)", "F.celu(x, 1.5)", "F.hardswish(x * 4)",
    "F.huber_loss(x, t, delta=0.5)", "F.smooth_l1_loss(x, t, beta=0.3)", "F.soft_margin_loss(x, s)",
    "F.embedding_bag(c, x, c.new_tensor([0, 2, 5]))", "F.embedding_bag(c.view(2, 3), x, mode='max')",
    "F.nll_loss(x, c, weight=w)", "F.nll_loss(x, c, reduction='none')",
    "F.binary_cross_entropy(x.sigmoid(), p, weight=w)",
]


def _structure(node, depth=3):
    """The graph below ``node`` as nested (name, [(child structure or None, index), ...])."""
    if node is None:
        return None
    children = [] if depth == 0 else [(_structure(child, depth - 1), index) for child, index in node.next_functions]
    return type(node).__name__, children


def _inputs(lib, dtype):
    generator = np.random.default_rng(3)
    x = lib.tensor(generator.normal(size=(6, 5)) * 1.5, dtype=dtype, requires_grad=True)
    return {
        "x": x, "t": lib.tensor(generator.normal(size=(6, 5)), dtype=dtype),
        "p": lib.tensor(generator.uniform(size=(6, 5)), dtype=dtype),
        "s": lib.tensor(np.sign(generator.normal(size=(6, 5))), dtype=dtype),
        "w": lib.tensor(generator.uniform(0.5, 2.0, size=5), dtype=dtype),
        "c": lib.tensor([1, 0, 4, 2, 1, 3]),
    }


def _run(lib, expression, dtype):
    lib.manual_seed(0)
    values = _inputs(lib, dtype)
    result = eval(expression, {"F": lib.nn.functional, "nn": lib.nn, "torch": lib, **values})
    return result, values["x"]


@pytest.mark.parametrize("name", CASES)
def test_grad_fn_names_and_gradients_match_pytorch(name):
    torch = require_torch()
    runs = {}
    for lib in (minitorch, torch):
        result, x = _run(lib, CASES[name], lib.float64)
        structure = _structure(result.grad_fn, SHALLOW.get(name, 3))
        result.sum().backward()
        runs[lib.__name__] = structure, result.detach().numpy(), x.grad.numpy()
    (mine, my_value, my_grad), (theirs, their_value, their_grad) = runs["minitorch"], runs["torch"]
    assert mine == theirs, name
    np.testing.assert_allclose(my_value, their_value, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(my_grad, their_grad, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_the_printed_loss_shows_pytorchs_node(reduction):
    torch = require_torch()
    printed = []
    for lib in (minitorch, torch):
        lib.manual_seed(0)
        loss = lib.nn.functional.cross_entropy(lib.tensor([[2.0, 0.5, -1.0]], requires_grad=True), lib.tensor([0]),
                                              reduction=reduction)
        printed.append(repr(loss).split("grad_fn=")[1])
    assert printed[0] == printed[1] == "<NllLossBackward0>)"


@pytest.mark.xfail(strict=True, reason="cross_entropy's common case is one fused node here (the ch. 5 exercise "
                   "rebuilds it); PyTorch records NllLossBackward0 over LogSoftmaxBackward0")
def test_cross_entropy_next_functions_show_log_softmax():
    result, _ = _run(minitorch, CASES["cross_entropy"], minitorch.float64)
    assert type(result.grad_fn.next_functions[0][0]).__name__ == "LogSoftmaxBackward0"


@pytest.mark.xfail(strict=True, reason="nn.Linear's AddmmBackward0 lists the weight's AccumulateGrad directly; "
                   "PyTorch's lists TBackward0 (linear is addmm(bias, x, weight.t()) there)")
def test_linear_lists_its_weight_through_a_transpose():
    result = minitorch.nn.Linear(3, 2)(minitorch.ones(1, 3))
    assert type(result.grad_fn.next_functions[2][0]).__name__ == "TBackward0"


@pytest.mark.parametrize("expression", FUSED)
def test_fused_nodes_pass_gradcheck_and_gradgradcheck(expression):
    values = _inputs(minitorch, minitorch.float64)

    def function(x):
        return eval(expression, {"F": minitorch.nn.functional, **values, "x": x})

    x = values["x"]
    assert minitorch.autograd.gradcheck(function, (x,))
    assert minitorch.autograd.gradgradcheck(function, (x,))


@pytest.mark.parametrize("expression", ["F.hardtanh(x, -1.0, 1.0)", "F.relu6(x)", "F.hardsigmoid(x)",
                                        "F.hardswish(x)", "F.threshold(x, 1.0, 0.0)", "F.softshrink(x, 1.0)",
                                        "F.hardshrink(x, 1.0)", "F.leaky_relu(x)", "F.elu(x)"])
def test_gradients_at_the_kinks_are_pytorchs(expression):
    torch = require_torch()
    grads = []
    for lib in (minitorch, torch):
        x = lib.tensor([-3.0, -1.0, 0.0, 1.0, 3.0, 6.0], requires_grad=True)
        eval(expression, {"F": lib.nn.functional, "x": x}).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6)  # float32: the kinks differ by whole units
