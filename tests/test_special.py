"""``minitorch.special`` against ``torch.special``: every public name, values in float64, gradients where PyTorch
has them (and its error where it has none), and results that do not require grad where PyTorch's do not."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from tests.support import require_torch

torch = require_torch()

X = np.array([-2.5, -0.7, 0.0, 0.3, 1.2, 4.0])
POSITIVE = np.array([0.2, 0.9, 1.5, 3.0, 7.5])
PROBABILITY = np.array([0.01, 0.2, 0.5, 0.8, 0.999])
UNARY = {
    "expit": X, "erf": X, "erfc": X, "erfinv": PROBABILITY * 2 - 1, "exp2": X, "expm1": X, "log1p": POSITIVE,
    "gammaln": POSITIVE, "digamma": POSITIVE, "psi": POSITIVE, "i0": X, "logit": PROBABILITY, "sinc": X,
    "round": X, "erfcx": np.array([-1.5, 0.0, 0.5, 3.0, 30.0]), "ndtri": PROBABILITY, "ndtr": X,
    "log_ndtr": np.array([-40.0, -5.0, -1.0, 0.0, 2.0]), "i0e": X, "i1": X, "i1e": X, "entr": POSITIVE,
    "bessel_j0": X, "bessel_j1": X, "bessel_y0": POSITIVE, "bessel_y1": POSITIVE, "modified_bessel_i0": X,
    "modified_bessel_i1": X, "modified_bessel_k0": POSITIVE, "modified_bessel_k1": POSITIVE,
    "scaled_modified_bessel_k0": POSITIVE, "scaled_modified_bessel_k1": POSITIVE, "spherical_bessel_j0": X,
    "airy_ai": X,
}
BINARY = {"xlogy": (POSITIVE, POSITIVE + 1), "xlog1py": (np.array([0.0, 1.5, -2.0, 3.0, 0.5]), POSITIVE),
          "zeta": (POSITIVE + 1.5, POSITIVE), "gammainc": (POSITIVE, POSITIVE[::-1].copy()),
          "gammaincc": (POSITIVE, POSITIVE[::-1].copy())}
POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
               "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
               "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
               "laguerre_polynomial_l", "legendre_polynomial_p"]


def test_every_public_name_of_torch_special_is_here():
    theirs = {name for name in dir(torch.special) if not name.startswith("_")}
    theirs = {name for name in theirs if callable(getattr(torch.special, name))}
    theirs -= {"common_args", "multi_dim_common", "Tensor"}  # documentation helpers and the Tensor class
    assert theirs <= set(minitorch.special.__all__), sorted(theirs - set(minitorch.special.__all__))


def _run(lib, name, arrays, grad):
    inputs = [lib.tensor(a, dtype=lib.float64, requires_grad=grad) for a in arrays]
    result = getattr(lib.special, name)(*inputs)
    outcome = {"value": result.detach().numpy(), "requires_grad": result.requires_grad}
    if grad and result.requires_grad:
        try:
            result.sum().backward()
            outcome["grads"] = [None if x.grad is None else x.grad.numpy() for x in inputs]
        except Exception as error:  # noqa: BLE001 - the error is compared
            outcome["grads"] = (type(error).__name__, str(error))
    return outcome


# PyTorch evaluates these with its own (Cephes-derived) series, up to ~2e-6 off near zeros; SciPy's are checked
# against mpmath to 1e-12 below, and against PyTorch to its accuracy.
PYTORCH_APPROXIMATE = {"airy_ai": 1e-5, "bessel_j0": 1e-7, "bessel_j1": 1e-7, "bessel_y0": 1e-7, "bessel_y1": 1e-7}


def _same(ours, theirs, name):
    rtol = PYTORCH_APPROXIMATE.get(name, 1e-9)
    np.testing.assert_allclose(ours["value"], theirs["value"], rtol=rtol, atol=1e-12, err_msg=name)
    assert ours["requires_grad"] == theirs["requires_grad"], name
    if isinstance(theirs.get("grads"), tuple):
        assert ours["grads"] == theirs["grads"], name
    elif "grads" in theirs:
        for mine, reference in zip(ours["grads"], theirs["grads"]):
            np.testing.assert_allclose(mine, reference, rtol=1e-7, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_functions_and_their_gradients(name):
    _same(_run(minitorch, name, [UNARY[name]], True), _run(torch, name, [UNARY[name]], True), name)


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("which", ["first", "second", "both"])
def test_binary_functions_and_which_gradients_exist(name, which):
    def run(lib):
        first = lib.tensor(BINARY[name][0], dtype=lib.float64, requires_grad=which in ("first", "both"))
        second = lib.tensor(BINARY[name][1], dtype=lib.float64, requires_grad=which in ("second", "both"))
        result = getattr(lib.special, name)(first, second)
        outcome = {"value": result.detach().numpy(), "requires_grad": result.requires_grad}
        try:
            result.sum().backward()
            outcome["grads"] = [None if x.grad is None else x.grad.numpy() for x in (first, second)]
        except Exception as error:  # noqa: BLE001 - the error is compared
            outcome["grads"] = (type(error).__name__, str(error))
        return outcome

    ours, theirs = run(minitorch), run(torch)
    if not isinstance(theirs["grads"], tuple):
        assert [g is None for g in ours["grads"]] == [g is None for g in theirs["grads"]]
        theirs["grads"] = [g for g in theirs["grads"] if g is not None]
        ours["grads"] = [g for g in ours["grads"] if g is not None]
    _same(ours, theirs, name)


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomials_for_each_degree_and_a_tensor_of_degrees(name):
    x = np.linspace(-1.2, 1.2, 9)
    for degree in (0, 1, 2, 5, -1):
        ours = getattr(minitorch.special, name)(minitorch.tensor(x, dtype=minitorch.float64), degree)
        theirs = getattr(torch.special, name)(torch.tensor(x, dtype=torch.float64), degree)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-9, atol=1e-9, err_msg=f"{name} n={degree}")
    degrees = np.array([0, 1, 2, 3, 4, 5, 6, 2, 1])
    ours = getattr(minitorch.special, name)(minitorch.tensor(x), minitorch.tensor(degrees))
    theirs = getattr(torch.special, name)(torch.tensor(x), torch.tensor(degrees))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6, err_msg=name)
    assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1] and not ours.requires_grad


def test_multigammaln_softmax_and_logsumexp():
    a = np.array([2.0, 3.5, 6.0])
    ours = minitorch.special.multigammaln(minitorch.tensor(a, requires_grad=True), 3)
    theirs = torch.special.multigammaln(torch.tensor(a, requires_grad=True), 3)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10)
    for lib in (minitorch, torch):  # PyTorch 2.13 checks p, and gives inf at a pole
        with pytest.raises(RuntimeError, match="p has to be greater than or equal to 1"):
            lib.special.multigammaln(lib.tensor([2.0]), 0)
        assert float(lib.special.multigammaln(lib.tensor([0.5]), 3)) == float("inf")
    z = np.arange(6.0).reshape(2, 3)
    for name in ("softmax", "log_softmax"):
        np.testing.assert_allclose(getattr(minitorch.special, name)(minitorch.tensor(z), 1).numpy(),
                                   getattr(torch.special, name)(torch.tensor(z), 1).numpy(), rtol=1e-12)
    np.testing.assert_allclose(minitorch.special.logsumexp(minitorch.tensor(z), 1).numpy(),
                               torch.special.logsumexp(torch.tensor(z), 1).numpy(), rtol=1e-12)


def test_bessel_and_airy_values_are_exact_to_double_precision():
    import mpmath  # a test tool (pyproject.toml's test extra)

    references = {
        "airy_ai": lambda v: mpmath.airyai(v), "bessel_j0": lambda v: mpmath.besselj(0, v),
        "bessel_j1": lambda v: mpmath.besselj(1, v), "bessel_y0": lambda v: mpmath.bessely(0, v),
        "bessel_y1": lambda v: mpmath.bessely(1, v), "modified_bessel_k0": lambda v: mpmath.besselk(0, v),
        "spherical_bessel_j0": lambda v: mpmath.sinc(v),
    }
    for name, exact in references.items():
        values = UNARY[name]
        ours = getattr(minitorch.special, name)(minitorch.tensor(values, dtype=minitorch.float64)).numpy()
        expected = np.array([float(exact(mpmath.mpf(float(v)))) for v in values])
        np.testing.assert_allclose(ours, expected, rtol=1e-12, atol=1e-15, err_msg=name)
