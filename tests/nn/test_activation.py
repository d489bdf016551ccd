"""Every activation layer against PyTorch (float64, same input, same grad_output), and gradcheck of each function."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch import nn
from tests.support import require_torch

# (layer name, constructor kwargs, kinks: points where the derivative jumps, kept away from by the inputs)
LAYERS = [
    ("ReLU", {}, (0.0,)),
    ("ReLU6", {}, (0.0, 6.0)),
    ("LeakyReLU", {"negative_slope": 0.2}, (0.0,)),
    ("PReLU", {}, (0.0,)),
    ("PReLU", {"num_parameters": 6, "init": 0.1}, (0.0,)),
    ("ELU", {}, (0.0,)),
    ("ELU", {"alpha": 0.7}, (0.0,)),
    ("SELU", {}, (0.0,)),
    ("CELU", {"alpha": 1.5}, (0.0,)),
    ("GELU", {}, ()),
    ("GELU", {"approximate": "tanh"}, ()),
    ("SiLU", {}, ()),
    ("Mish", {}, ()),
    ("Sigmoid", {}, ()),
    ("Tanh", {}, ()),
    ("Hardtanh", {}, (-1.0, 1.0)),
    ("Hardtanh", {"min_val": -0.5, "max_val": 2.0}, (-0.5, 2.0)),
    ("Hardsigmoid", {}, (-3.0, 3.0)),
    ("Hardswish", {}, (-3.0, 3.0)),
    ("Softplus", {}, ()),
    ("Softplus", {"beta": 2.0, "threshold": 3.0}, (1.5,)),
    ("Softsign", {}, (0.0,)),
    ("Softmax", {"dim": 1}, ()),
    ("Softmax", {"dim": -1}, ()),
    ("LogSoftmax", {"dim": 1}, ()),
    ("LogSoftmax", {"dim": 0}, ()),
    ("Softmin", {"dim": 2}, ()),
    ("Softmax2d", {}, ()),
    ("Threshold", {"threshold": 0.1, "value": -3.0}, (0.1,)),
    ("GLU", {"dim": 1}, ()),
    ("LogSigmoid", {}, ()),
    ("Hardshrink", {}, (-0.5, 0.5)),
    ("Softshrink", {"lambd": 0.3}, (-0.3, 0.3)),
    ("Tanhshrink", {}, ()),
    ("RReLU", {}, (0.0,)),  # in eval mode: a leaky ReLU with the mean slope
]
IDS = [f"{name}-{'-'.join(f'{k}={v}' for k, v in kwargs.items())}" for name, kwargs, _ in LAYERS]


@pytest.fixture
def torch():
    return require_torch()


def _input(rng, shape, kinks, low=-5.0, high=5.0, margin=1e-3):
    values = rng.uniform(low, high, size=shape)
    for point in kinks:
        close = np.abs(values - point) < margin
        values = np.where(close, point + np.where(values >= point, 1, -1) * (margin + 0.05), values)
    return values


@pytest.mark.parametrize("name, kwargs, kinks", LAYERS, ids=IDS)
def test_activation_matches_torch(torch, name, kwargs, kinks):
    rng = np.random.default_rng(abs(hash(name)) % 2**32)
    ours = getattr(nn, name)(**kwargs).double().eval()
    theirs = getattr(torch.nn, name)(**kwargs).double().eval()
    assert repr(ours) == repr(theirs)
    with torch.no_grad():
        for param in theirs.parameters():
            param.uniform_(-1, 1)
    ours.load_state_dict({k: minitorch.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    x = _input(rng, (4, 6, 5), kinks)
    our_in = minitorch.from_numpy(x.copy()).requires_grad_()
    their_in = torch.from_numpy(x.copy()).requires_grad_()
    our_out, their_out = ours(our_in), theirs(their_in)
    assert our_out.dtype == minitorch.float64 and tuple(our_out.shape) == tuple(their_out.shape)
    np.testing.assert_allclose(our_out.detach().numpy(), their_out.detach().numpy(), rtol=1e-6, atol=1e-12)
    grad = rng.standard_normal(tuple(their_out.shape))
    our_out.backward(minitorch.from_numpy(grad))
    their_out.backward(torch.from_numpy(grad))
    np.testing.assert_allclose(our_in.grad.numpy(), their_in.grad.numpy(), rtol=1e-6, atol=1e-12)
    for (_, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("name, kwargs", [
    ("ReLU", {}), ("ReLU6", {}), ("LeakyReLU", {"negative_slope": 0.2}), ("ELU", {}), ("SELU", {}), ("CELU", {}),
    ("SiLU", {}), ("Mish", {}), ("Hardtanh", {}), ("Hardsigmoid", {}), ("Hardswish", {}),
    ("Threshold", {"threshold": 0.1, "value": 2.0}),
])
def test_inplace_activation_matches_torch(torch, name, kwargs):
    rng = np.random.default_rng(7)
    x = _input(rng, (3, 4), (0.0, 0.1, 1.0, -1.0, 3.0, -3.0, 6.0))
    results = []
    for lib in (minitorch, torch):
        leaf = lib.from_numpy(x.copy()).requires_grad_()
        hidden = leaf * 1.0  # a non-leaf: in-place on a leaf that requires grad is an error
        layer = getattr(lib.nn, name)(inplace=True, **kwargs)
        output = layer(hidden)
        assert output is hidden
        (output * lib.from_numpy(np.arange(12.0).reshape(3, 4))).sum().backward()
        results.append((output.detach().numpy(), leaf.grad.numpy(), repr(layer)))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6, atol=1e-12)
    assert results[0][2] == results[1][2]


def test_rrelu_training_draws_slopes_in_range():
    layer = nn.RReLU(0.1, 0.3)
    x = -minitorch.ones(1000, dtype=minitorch.float64)
    slopes = -layer(x).numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and slopes.std() > 0.03
    assert np.allclose(layer.eval()(x).numpy(), -0.2)


FUNCTIONS = [
    ("relu", lambda x: F.relu(x), (0.0,)),
    ("relu6", lambda x: F.relu6(x), (0.0, 6.0)),
    ("leaky_relu", lambda x: F.leaky_relu(x, 0.1), (0.0,)),
    ("elu", lambda x: F.elu(x, 0.8), (0.0,)),
    ("selu", F.selu, (0.0,)),
    ("celu", lambda x: F.celu(x, 2.0), (0.0,)),
    ("gelu", F.gelu, ()),
    ("gelu_tanh", lambda x: F.gelu(x, approximate="tanh"), ()),
    ("silu", F.silu, ()),
    ("mish", F.mish, ()),
    ("sigmoid", F.sigmoid, ()),
    ("tanh", F.tanh, ()),
    ("hardtanh", F.hardtanh, (-1.0, 1.0)),
    ("hardsigmoid", F.hardsigmoid, (-3.0, 3.0)),
    ("hardswish", F.hardswish, (-3.0, 3.0)),
    ("softplus", lambda x: F.softplus(x, 1.5, 4.0), (4.0 / 1.5,)),
    ("softsign", F.softsign, (0.0,)),
    ("logsigmoid", F.logsigmoid, ()),
    ("threshold", lambda x: F.threshold(x, 0.2, -1.0), (0.2,)),
    ("hardshrink", F.hardshrink, (-0.5, 0.5)),
    ("softshrink", F.softshrink, (-0.5, 0.5)),
    ("tanhshrink", F.tanhshrink, ()),
    ("glu", lambda x: F.glu(x, 0), ()),
    ("softmax", lambda x: F.softmax(x, dim=1), ()),
    ("log_softmax", lambda x: F.log_softmax(x, dim=0), ()),
    ("softmin", lambda x: F.softmin(x, dim=1), ()),
]


@pytest.mark.parametrize("name, function, kinks", FUNCTIONS, ids=[f[0] for f in FUNCTIONS])
def test_functional_gradcheck(name, function, kinks):
    rng = np.random.default_rng(11)
    x = minitorch.from_numpy(_input(rng, (4, 3), kinks, low=-4.0, high=4.0, margin=1e-2)).requires_grad_()
    assert minitorch.autograd.gradcheck(function, (x,))
    assert minitorch.autograd.gradgradcheck(function, (x,))


def test_prelu_gradcheck_per_channel():
    rng = np.random.default_rng(12)
    x = minitorch.from_numpy(_input(rng, (2, 3, 4), (0.0,))).requires_grad_()
    weight = minitorch.from_numpy(rng.uniform(0, 1, 3)).requires_grad_()
    assert minitorch.autograd.gradcheck(F.prelu, (x, weight))


def test_activations_stay_finite_at_extremes(torch):
    values = np.array([-1e4, -800.0, -50.0, 0.5, 50.0, 800.0, 1e4])
    for name in ("elu", "selu", "celu", "softplus", "mish", "logsigmoid", "silu", "sigmoid", "gelu"):
        x = minitorch.from_numpy(values.copy()).requires_grad_()
        y = getattr(F, name)(x)
        y.sum().backward()
        tx = torch.from_numpy(values.copy()).requires_grad_()
        ty = getattr(torch.nn.functional, name)(tx)
        ty.sum().backward()
        np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-6, err_msg=name)
        # atol: expm1's backward, grad * (expm1(x) + 1), rounds exp(-50) ~ 2e-22 to 0 next to gradients of size 1.
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-6, atol=1e-15, err_msg=name)
    for function in (lambda lib, t: lib.nn.functional.softmax(t, dim=0),
                     lambda lib, t: lib.nn.functional.log_softmax(t, dim=0)):
        np.testing.assert_allclose(function(minitorch, minitorch.from_numpy(values)).numpy(),
                                   function(torch, torch.from_numpy(values)).numpy(), rtol=1e-12)


def _error(callable_):
    with pytest.raises(Exception) as info:
        callable_()
    return type(info.value).__name__, str(info.value)


def test_activation_errors_match_torch(torch):
    cases = [
        lambda lib: lib.nn.functional.prelu(lib.ones(2, 3), lib.ones(2)),
        lambda lib: lib.nn.functional.prelu(lib.ones(4), lib.ones(4)),
        lambda lib: lib.nn.functional.celu(lib.ones(3), alpha=0.0),
        lambda lib: lib.nn.functional.gelu(lib.ones(3), approximate="fast"),
        lambda lib: lib.nn.functional.glu(lib.ones(3)),
        lambda lib: lib.nn.functional.glu(lib.ones(())),
        lambda lib: lib.nn.functional.hardtanh(lib.ones(3), 2.0, 1.0),
        lambda lib: lib.nn.Hardtanh(1.0, 0.5),
        lambda lib: lib.nn.functional.softshrink(lib.ones(3), -1.0),
        lambda lib: lib.nn.Softmax2d()(lib.ones(3, 4)),
        lambda lib: lib.nn.functional.softmax(lib.ones(3, 4), dim=2),
    ]
    for case in cases:
        assert _error(lambda case=case: case(minitorch)) == _error(lambda case=case: case(torch))


def test_softmax_implicit_dim_and_dtype(torch):
    x = np.random.default_rng(5).standard_normal((2, 3, 4))
    for ndim in (1, 2, 3):
        data = x[(0,) * (3 - ndim)]
        with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
            ours = F.softmax(minitorch.from_numpy(data.copy()))
        theirs = torch.nn.functional.softmax(torch.from_numpy(data.copy()), dim=0 if ndim in (1, 3) else 1)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
    ours = F.log_softmax(minitorch.from_numpy(x.astype(np.float32)), dim=1, dtype=minitorch.float64)
    assert ours.dtype == minitorch.float64
    assert float(F.softmax(minitorch.tensor(3.0), dim=0)) == 1.0
    assert tuple(F.softmax(minitorch.zeros(0, 3), dim=1).shape) == (0, 3)


@pytest.mark.parametrize("namespace, name, arguments", [
    ("nn.functional", "relu_", ()), ("nn.functional", "elu_", (0.5,)), ("nn.functional", "selu_", ()),
    ("nn.functional", "celu_", (2.0,)), ("nn.functional", "leaky_relu_", (0.2,)),
    ("nn.functional", "hardtanh_", (-0.5, 0.5)), ("nn.functional", "threshold_", (0.1, -3.0)),
    ("nn.functional", "rrelu_", ()), ("", "selu_", ()), ("", "celu_", ()), ("", "threshold_", (0.1, 2.0)),
    ("", "rrelu_", ()), ("", "selu", ()), ("", "celu", (0.5,)), ("", "threshold", (0.0, 1.0)),
])
def test_in_place_activation_functions_match_pytorch(namespace, name, arguments):
    torch = require_torch()
    outcomes = []
    for lib in (minitorch, torch):
        module = lib.nn.functional if namespace else lib
        x = lib.tensor([[-2.0, -0.5, 0.0], [0.3, 1.5, 3.0]], dtype=lib.float64)
        result = getattr(module, name)(x, *arguments)
        outcomes.append(((result is x) == name.endswith("_"), result.tolist()))
    assert outcomes[0][0] and outcomes[1][0]
    np.testing.assert_allclose(outcomes[0][1], outcomes[1][1], rtol=1e-12)


def test_gumbel_softmax_is_a_differentiable_categorical_sample():
    """Soft samples lie on the simplex, hard ones are one-hot with the soft sample's gradient (straight through);
    with the same seed, PyTorch's samples (checked once the random streams agree: tests/test_random_parity.py)."""
    torch = require_torch()
    logits = minitorch.tensor(np.linspace(-1, 1, 12).reshape(3, 4), requires_grad=True)
    minitorch.manual_seed(3)
    soft = minitorch.nn.functional.gumbel_softmax(logits, tau=0.7)
    minitorch.manual_seed(3)
    hard = minitorch.nn.functional.gumbel_softmax(logits, tau=0.7, hard=True)
    np.testing.assert_allclose(soft.sum(-1).detach().numpy(), np.ones(3), rtol=1e-6)
    assert set(np.unique(hard.detach().numpy())) == {0.0, 1.0} and (hard.sum(-1) == 1).all()
    assert (hard.argmax(-1) == soft.argmax(-1)).all()  # the same noise: the hard sample is the soft one's argmax
    weights = minitorch.arange(4.0)
    (hard * weights).sum().backward()
    straight = logits.grad.clone()
    logits.grad = None
    (soft * weights).sum().backward()
    np.testing.assert_allclose(straight.numpy(), logits.grad.numpy(), rtol=1e-6)
    results = {}
    for lib in (minitorch, torch):
        lib.manual_seed(5)
        results[lib.__name__] = lib.nn.functional.gumbel_softmax(lib.ones(2, 3), tau=0.5).numpy()
    np.testing.assert_allclose(results["minitorch"], results["torch"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_relu_backward_keeps_nan_infinities_and_signed_zero_like_pytorch(torch, dtype):
    """ReLU's backward passes the gradient bit for bit where the output is positive (NaN, infinities, -0.0) and
    gives +0.0 elsewhere, as PyTorch's threshold_backward does."""
    values = [2.0, -1.0, 0.0, 3.0, -2.0, 5.0, 1.0, -0.5]
    grads = [float("nan"), float("inf"), -0.0, -0.0, float("-inf"), -3.0, float("inf"), float("nan")]
    results = []
    for lib in (torch, minitorch):
        x = lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=True)
        x.relu().backward(lib.tensor(grads, dtype=getattr(lib, dtype)))
        results.append(np.asarray(x.grad.detach().numpy()))
    theirs, ours = results
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(np.signbit(ours), np.signbit(theirs))
    np.testing.assert_array_equal(ours, theirs)
