"""``minitorch.func`` (grad, grad_and_value, vmap, jacrev, jacfwd, hessian, functional_call) against ``torch.func``."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from tests.support import require_torch


@pytest.fixture
def torch():
    return require_torch()


def _x(lib):
    return lib.tensor(np.linspace(-1.0, 1.5, 6).reshape(2, 3), dtype=lib.float64)


def _flatten(value):
    if isinstance(value, dict):
        return [item for key in sorted(value) for item in _flatten(value[key])]
    if isinstance(value, (tuple, list)):
        return [item for part in value for item in _flatten(part)]
    return [value]


CASES = {
    "grad": lambda lib: lib.func.grad(lambda x: (x.sin() * x).sum())(_x(lib)),
    "grad-argnums": lambda lib: lib.func.grad(lambda x, y: (x * y).sum() ** 2, argnums=(0, 1))(_x(lib), _x(lib) + 1),
    "grad-second-argument": lambda lib: lib.func.grad(lambda x, y: (x * y.exp()).sum(), argnums=1)(_x(lib), _x(lib)),
    "grad-has-aux": lambda lib: lib.func.grad(lambda x: ((x ** 2).sum(), x.mean()), has_aux=True)(_x(lib)),
    "grad-of-grad": lambda lib: lib.func.grad(lib.func.grad(lambda x: x.sin() * x ** 3))(lib.tensor(0.7,
                                                                                                   dtype=lib.float64)),
    "grad-dict": lambda lib: lib.func.grad(lambda p, x: ((x @ p["w"]).tanh() + p["b"]).sum())(
        {"w": _x(lib).T.contiguous(), "b": lib.ones(2, dtype=lib.float64)}, _x(lib)),
    "grad-and-value": lambda lib: lib.func.grad_and_value(lambda x: (x ** 3).sum())(_x(lib)),
    "grad-not-scalar": lambda lib: lib.func.grad(lambda x: x ** 2)(_x(lib)),
    "vmap": lambda lib: lib.func.vmap(lambda row: row.dot(row.exp()))(_x(lib)),
    "vmap-in-dims": lambda lib: lib.func.vmap(lambda column, scale: column * scale, in_dims=(1, None))(_x(lib), 3.0),
    "vmap-out-dims": lambda lib: lib.func.vmap(lambda row: row * 2, out_dims=1)(_x(lib)),
    "vmap-tuple-out": lambda lib: lib.func.vmap(lambda row: (row.sum(), row.max()))(_x(lib)),
    "vmap-nested": lambda lib: lib.func.vmap(lib.func.vmap(lambda a: a * a + 1))(_x(lib)),
    "vmap-size-mismatch": lambda lib: lib.func.vmap(lambda a, b: a + b)(_x(lib), lib.ones(3, 2)),
    "vmap-grad-per-sample": lambda lib: lib.func.vmap(lib.func.grad(lambda w, x: (x @ w).tanh().sum()),
                                                      in_dims=(None, 0))(lib.ones(3, 2, dtype=lib.float64), _x(lib)),
    "jacrev": lambda lib: lib.func.jacrev(lambda x: x.exp() * x.sum())(_x(lib)[0]),
    "jacrev-argnums": lambda lib: lib.func.jacrev(lambda x, y: x * y, argnums=(0, 1))(_x(lib)[0], _x(lib)[1]),
    "jacfwd": lambda lib: lib.func.jacfwd(lambda x: x.sin() * x[0])(_x(lib)[1]),
    "hessian": lambda lib: lib.func.hessian(lambda x: (x ** 3).sum() * x[0])(_x(lib)[1]),
    # nested Jacobians, in every order (jacfwd inside another transform must stay differentiable)
    "jacfwd-of-jacfwd": lambda lib: lib.func.jacfwd(lib.func.jacfwd(lambda x: (x.sin() * x).sum()))(_x(lib)[0]),
    "jacrev-of-jacfwd": lambda lib: lib.func.jacrev(lib.func.jacfwd(lambda x: x.exp() * x[1]))(_x(lib)[1]),
    "jacfwd-of-jacrev": lambda lib: lib.func.jacfwd(lib.func.jacrev(lambda x: (x ** 3).prod()))(_x(lib)[1]),
    # pytrees: dicts and tuples in and out
    "jacrev-dict": lambda lib: lib.func.jacrev(lambda p: (p["a"] * p["b"]).sum())(
        {"a": _x(lib)[0], "b": _x(lib)[1]}),
    "jacfwd-dict": lambda lib: lib.func.jacfwd(lambda p: p["a"].sin() * p["b"])({"a": _x(lib)[0], "b": _x(lib)[1]}),
    "jacrev-tuple-out": lambda lib: lib.func.jacrev(lambda a: (a * 2, a.sum(), {"c": a.cos()}))(_x(lib)[0]),
    "jacrev-dict-argnums": lambda lib: lib.func.jacrev(lambda p, y: p["w"] @ y, argnums=(0, 1))(
        {"w": _x(lib)}, _x(lib)[0]),
    "jacrev-has-aux-dict": lambda lib: lib.func.jacrev(lambda p: (p["w"].tanh(), p["w"].sum()), has_aux=True)(
        {"w": _x(lib)[0]}),
    "vmap-dict-in-dims": lambda lib: lib.func.vmap(lambda p, y: p["w"] * y + p["b"],
                                                   in_dims=({"w": 0, "b": None}, None))(
        {"w": _x(lib), "b": lib.ones(3, dtype=lib.float64)}, _x(lib)[0]),
    "vmap-tuple-in-dims": lambda lib: lib.func.vmap(lambda pair: pair[0] * pair[1], in_dims=((0, 1),))(
        (_x(lib), _x(lib).T.contiguous())),
    "vmap-dict-out-dims": lambda lib: lib.func.vmap(lambda row: {"s": row * 2, "t": row.sum()},
                                                    out_dims={"s": 1, "t": 0})(_x(lib)),
}


def _outcome(lib, build):
    try:
        result = build(lib)
    except Exception as error:  # noqa: BLE001 - the error is compared
        return ("error", type(error).__name__, str(error))
    return ("ok", [(tuple(t.shape), t.detach().numpy()) for t in _flatten(result)])


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_torch_func(torch, case):
    ours, theirs = _outcome(minitorch, CASES[case]), _outcome(torch, CASES[case])
    if theirs[0] == "error":
        assert ours[:2] == theirs[:2]
        return
    assert ours[0] == "ok", ours
    assert [shape for shape, _ in ours[1]] == [shape for shape, _ in theirs[1]]
    for (_, mine), (_, reference) in zip(ours[1], theirs[1]):
        np.testing.assert_allclose(mine, reference, rtol=1e-10, atol=1e-12)


def _per_sample_gradients(lib):
    """The per-sample-gradients recipe of PyTorch's tutorials: functional_call + grad + vmap."""
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 2)).double()
    with lib.no_grad():
        for index, param in enumerate(model.parameters()):
            param.copy_(lib.tensor(np.linspace(-0.5, 0.5, param.numel()).reshape(param.shape) * (index + 1)))
    params = {name: param.detach() for name, param in model.named_parameters()}
    data = lib.tensor(np.linspace(-2, 2, 15).reshape(5, 3))
    targets = lib.tensor([0, 1, 1, 0, 1])

    def loss_of_one(parameters, sample, target):
        prediction = lib.func.functional_call(model, parameters, (sample.unsqueeze(0),))
        return lib.nn.functional.cross_entropy(prediction, target.unsqueeze(0))

    grads = lib.func.vmap(lib.func.grad(loss_of_one), in_dims=(None, 0, 0))(params, data, targets)
    return {name: value.numpy() for name, value in grads.items()}, [p.detach().numpy() for p in model.parameters()]


def test_per_sample_gradients_recipe_matches_pytorch(torch):
    ours, our_params = _per_sample_gradients(minitorch)
    theirs, their_params = _per_sample_gradients(torch)
    assert sorted(ours) == sorted(theirs)
    for name in theirs:
        assert ours[name].shape == theirs[name].shape == (5,) + tuple(their_params[0].shape if name == "0.weight"
                                                                       else theirs[name].shape[1:])
        np.testing.assert_allclose(ours[name], theirs[name], rtol=1e-10, atol=1e-12)
    for mine, reference in zip(our_params, their_params):  # functional_call left the module as it was
        np.testing.assert_array_equal(mine, reference)


def _ensemble(lib):
    """PyTorch's model-ensembling tutorial: stack_module_state + functional_call + vmap, against a loop."""
    models = []
    for index in range(4):
        model = lib.nn.Sequential(lib.nn.Linear(3, 5), lib.nn.ReLU(), lib.nn.Linear(5, 2)).double()
        with lib.no_grad():
            for number, param in enumerate(model.parameters()):
                values = np.sin(np.arange(param.numel()) * (index + 1) + number).reshape(param.shape)
                param.copy_(lib.tensor(values))
        models.append(model)
    params, buffers = lib.func.stack_module_state(models)
    base = models[0]

    def fmodel(params, buffers, x):
        return lib.func.functional_call(base, (params, buffers), (x,))

    minibatch = lib.tensor(np.linspace(-1, 1, 12).reshape(4, 3))
    together = lib.func.vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch)
    one_by_one = lib.stack([model(minibatch) for model in models])
    per_model = lib.func.vmap(fmodel)(params, buffers, lib.stack([minibatch] * 4))
    shapes = {name: (tuple(value.shape), value.requires_grad, value.is_leaf) for name, value in params.items()}
    return together.detach().numpy(), one_by_one.detach().numpy(), per_model.detach().numpy(), shapes


def test_model_ensembling_recipe_matches_pytorch(torch):
    ours, theirs = _ensemble(minitorch), _ensemble(torch)
    assert ours[3] == theirs[3]  # stacked leaves that require grad, one per parameter name
    for mine, reference in zip(ours[:3], theirs[:3]):
        np.testing.assert_allclose(mine, reference, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ours[0], ours[1], rtol=1e-12, atol=1e-12)  # vmap over models == the loop


def test_stack_module_state_refuses_what_pytorch_refuses(torch):
    for lib in (minitorch, torch):
        with pytest.raises(RuntimeError, match="Expected at least one model"):
            lib.func.stack_module_state([])
        with pytest.raises(RuntimeError, match="same class"):
            lib.func.stack_module_state([lib.nn.Linear(2, 2), lib.nn.Tanh()])
        with pytest.raises(RuntimeError, match="same training/eval mode"):
            lib.func.stack_module_state([lib.nn.Linear(2, 2), lib.nn.Linear(2, 2).eval()])
        frozen = lib.nn.Linear(2, 2)
        frozen.weight.requires_grad_(False)
        with pytest.raises(RuntimeError, match="weight from each model to have the same .requires_grad"):
            lib.func.stack_module_state([lib.nn.Linear(2, 2), frozen])
