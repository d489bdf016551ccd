"""minitorch with NumPy, DLPack (PyTorch, NumPy, CuPy), SciPy and scikit-learn."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

import minitorch
from tests.support import require, require_torch


# -- NumPy ------------------------------------------------------------------------------------------
def test_from_numpy_numpy_and_asarray_share_memory():
    array = np.arange(6.0).reshape(2, 3)
    tensor = minitorch.from_numpy(array)
    tensor[0, 0] = 100.0
    assert array[0, 0] == 100.0
    array[1, 2] = -1.0
    assert tensor[1, 2].item() == -1.0
    assert np.shares_memory(tensor.numpy(), array) and np.shares_memory(np.asarray(tensor), array)
    assert np.asarray(tensor, dtype=np.float32).dtype == np.float32
    with pytest.raises(RuntimeError, match="Can't call numpy\\(\\) on Tensor that requires grad"):
        np.asarray(minitorch.ones(2, requires_grad=True))


UFUNC_CASES = {
    "exp": lambda lib, t: np.exp(t),
    "greater": lambda lib, t: np.greater(t, 0.5),
    "add_array": lambda lib, t: np.add(np.ones(3), t),
    "maximum": lambda lib, t: np.maximum(t, 0.5),
    "sqrt_scalar": lambda lib, t: np.sqrt(t[1]),
    "int_exp": lambda lib, t: np.exp(lib.tensor([1, 2, 3])),
    "abs_int32": lambda lib, t: np.abs(lib.tensor([-1, 2, -3], dtype=lib.int32)),
    "reduce": lambda lib, t: np.add.reduce(t),
    "numpy_scalar_times": lambda lib, t: np.float32(2) * t,
}


@pytest.mark.parametrize("case", sorted(UFUNC_CASES))
def test_numpy_ufuncs_on_tensors_return_what_pytorch_returns(case):
    torch = require_torch()
    values = [0.25, 1.0, 4.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # PyTorch's own __array_wrap__ is of the old kind
        expected = UFUNC_CASES[case](torch, torch.tensor(values))
    result = UFUNC_CASES[case](minitorch, minitorch.tensor(values))
    assert type(result).__name__ == type(expected).__name__ == "Tensor"
    assert str(result.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    np.testing.assert_allclose(np.asarray(result, dtype=np.float64), expected.numpy().astype(np.float64), rtol=1e-6)


# -- DLPack -----------------------------------------------------------------------------------------
def test_dlpack_with_numpy_is_zero_copy_both_ways():
    array = np.zeros((2, 3), dtype=np.float32)
    tensor = minitorch.from_dlpack(array)
    tensor[1, 1] = 7.0  # write through minitorch, read through NumPy
    assert array[1, 1] == 7.0
    back = np.from_dlpack(tensor)
    back[0, 2] = -3.0  # write through NumPy, read through minitorch
    assert tensor[0, 2].item() == -3.0
    assert tensor.__dlpack_device__() == (1, 0)
    transposed = np.from_dlpack(tensor.t())  # strides travel too
    assert transposed.shape == (3, 2) and transposed[2, 0] == -3.0


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "uint8", "bool", "float16"])
def test_dlpack_with_pytorch_shares_memory_both_ways(dtype):
    torch = require_torch()
    source = torch.zeros(3, 4, dtype=getattr(torch, dtype))
    tensor = minitorch.from_dlpack(source)
    assert tensor.dtype == getattr(minitorch, dtype) and tensor.shape == (3, 4)
    tensor[1, 2] = 1  # minitorch writes, PyTorch reads
    assert source[1, 2].item() == 1
    view = torch.from_dlpack(tensor.t())
    view[3, 0] = 1  # PyTorch writes through its view of the transposed tensor, minitorch reads
    assert tensor[0, 3].item() == 1
    assert view.stride() == (1, 4)


def test_dlpack_legacy_capsule_and_refusals():
    torch = require_torch()
    source = torch.arange(4.0)
    tensor = minitorch.from_dlpack(torch.utils.dlpack.to_dlpack(source))
    source[0] = 9.0  # shared: PyTorch writes, minitorch reads (NumPy imports bare capsules read-only)
    assert tensor[0].item() == 9.0
    with pytest.raises(BufferError, match="Can't export tensors that require gradient, use tensor.detach()"):
        torch.from_dlpack(minitorch.ones(2, requires_grad=True))
    detached = torch.from_dlpack(minitorch.ones(2, requires_grad=True).detach())
    assert detached.tolist() == [1.0, 1.0]


def test_dlpack_with_cupy_on_the_gpu():
    if not minitorch.cuda.is_available():
        pytest.skip("no CUDA GPU (CuPy with a device is needed; only the GPU may skip in CI)")
    import cupy
    array = cupy.zeros((2, 3), dtype=cupy.float32)
    tensor = minitorch.from_dlpack(array)
    assert tensor.device == minitorch.device("cuda:0")
    tensor[1, 1] = 5.0
    assert float(array[1, 1]) == 5.0
    back = cupy.from_dlpack(tensor)
    back[0, 0] = 2.0
    assert tensor[0, 0].item() == 2.0
    torch = require_torch()
    if torch.cuda.is_available():
        shared = torch.from_dlpack(tensor)
        shared[0, 1] = 4.0
        assert tensor[0, 1].item() == 4.0


# -- SciPy ------------------------------------------------------------------------------------------
def rosenbrock(x):
    return ((1 - x[:-1]) ** 2 + 100 * (x[1:] - x[:-1] ** 2) ** 2).sum()


@pytest.mark.parametrize("method", ["L-BFGS-B", "BFGS", "CG"])
def test_scipy_minimize_with_minitorch_gradients_reaches_rosenbrocks_minimum(method):
    require("scipy", "minitorch.interop.scipy drives scipy.optimize")
    from minitorch.interop.scipy import minimize

    result = minimize(rosenbrock, [1.3, 0.7, 0.8, 1.9, 1.2], method=method,
                      options={"gtol": 1e-12, "maxiter": 10000} if method != "L-BFGS-B" else
                      {"gtol": 1e-12, "ftol": 1e-20, "maxiter": 10000})
    np.testing.assert_allclose(result.x, np.ones(5), atol=1e-6)
    assert result.fun < 1e-10


def test_the_documented_jac_true_pattern_and_gradient_are_exact():
    optimize = require("scipy", "minitorch.interop.scipy drives scipy.optimize").optimize

    def loss_and_gradient(x):  # the pattern, written out: minitorch computes loss and gradient
        point = minitorch.tensor(x, requires_grad=True)
        loss = rosenbrock(point)
        loss.backward()
        return loss.item(), point.grad.numpy()

    result = optimize.minimize(loss_and_gradient, np.array([-1.2, 1.0]), jac=True, method="L-BFGS-B",
                               options={"gtol": 1e-12, "ftol": 1e-20})
    np.testing.assert_allclose(result.x, [1.0, 1.0], atol=1e-6)
    from minitorch.interop.scipy import value_and_grad

    _, gradient = value_and_grad(rosenbrock)(np.array([0.5, -0.3]))
    assert optimize.check_grad(lambda x: value_and_grad(rosenbrock)(x)[0], lambda x: value_and_grad(rosenbrock)(x)[1],
                               np.array([0.5, -0.3])) < 1e-5
    np.testing.assert_allclose(gradient, [-2 * 0.5 - 400 * 0.5 * (-0.3 - 0.25) - 0, 200 * (-0.3 - 0.25)], rtol=1e-12)


def test_minimize_module_fits_least_squares():
    require("scipy", "minitorch.interop.scipy drives scipy.optimize")
    from minitorch.interop.scipy import minimize_module

    rng = np.random.default_rng(0)
    inputs, true_weight = rng.standard_normal((50, 3)), np.array([[1.5, -2.0, 0.5]])
    targets = inputs @ true_weight.T + 0.3 + 0.01 * rng.standard_normal((50, 1))
    model = minitorch.nn.Linear(3, 1).double()
    x, y = minitorch.tensor(inputs), minitorch.tensor(targets)
    result = minimize_module(model, lambda: ((model(x) - y) ** 2).mean(), options={"gtol": 1e-12})
    assert result.success
    design = np.hstack([inputs, np.ones((50, 1))])
    solution = np.linalg.lstsq(design, targets, rcond=None)[0].ravel()
    np.testing.assert_allclose(model.weight.detach().numpy().ravel(), solution[:3], atol=1e-6)
    np.testing.assert_allclose(model.bias.detach().numpy(), solution[3:], atol=1e-6)


# -- scikit-learn -----------------------------------------------------------------------------------
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from minitorch.interop.sklearn import NeuralNetClassifier, NeuralNetRegressor  # noqa: E402

_SMALL = {"max_epochs": 20, "hidden_layer_sizes": (32,), "random_state": 0}

# Every scikit-learn estimator check runs, but one: check_array_api_input tests support for the
# array API standard (inputs from other array libraries, run only with SCIPY_ARRAY_API=1), which
# the wrapper does not claim -- it takes NumPy-compatible input, like most estimators. It is left
# out of the list rather than skipped. (The *_data_not_an_array checks need pandas: the test extra
# installs it.)
_NOT_CLAIMED = ("check_array_api_input",)
_ALL_CHECKS = parametrize_with_checks([NeuralNetClassifier(**_SMALL), NeuralNetRegressor(**_SMALL)])
_ARGUMENT_NAMES, _CASES = _ALL_CHECKS.args[0], _ALL_CHECKS.args[1]


def _check_name(check) -> str:
    return getattr(check, "func", check).__name__


_KEPT = [(estimator, check) for estimator, check in _CASES if _check_name(check) not in _NOT_CLAIMED]


@pytest.mark.parametrize(_ARGUMENT_NAMES, _KEPT, ids=_ALL_CHECKS.kwargs["ids"])
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


def test_only_the_array_api_check_is_left_out():
    assert len(_CASES) - len(_KEPT) == 2  # one per estimator


def test_classifier_in_pipeline_grid_search_and_cross_validation():
    from sklearn.datasets import load_iris
    from sklearn.model_selection import GridSearchCV, cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = load_iris(return_X_y=True)
    pipeline = make_pipeline(StandardScaler(), NeuralNetClassifier(max_epochs=30, random_state=0))
    scores = cross_val_score(pipeline, X, y, cv=3)
    assert scores.mean() > 0.85
    search = GridSearchCV(pipeline, {"neuralnetclassifier__lr": [0.001, 0.03],
                                     "neuralnetclassifier__hidden_layer_sizes": [(8,), (32,)]}, cv=3)
    search.fit(X, y)
    assert search.best_params_["neuralnetclassifier__lr"] == 0.03
    assert search.best_score_ > 0.9
    probabilities = search.predict_proba(X[:5])
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0)
    np.testing.assert_array_equal(search.classes_[probabilities.argmax(axis=1)], search.predict(X[:5]))


def test_any_module_instance_or_factory_can_be_wrapped():
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    network = minitorch.nn.Sequential(minitorch.nn.Linear(64, 32), minitorch.nn.Tanh(), minitorch.nn.Linear(32, 10))
    before = network[0].weight.detach().numpy().copy()
    model = NeuralNetClassifier(network, max_epochs=10, random_state=0).fit(X[:1200], y[:1200])
    assert model.score(X[1200:], y[1200:]) > 0.9
    np.testing.assert_array_equal(network[0].weight.detach().numpy(), before)  # the passed module is untouched
    assert model.module_ is not network
    linear = NeuralNetClassifier(minitorch.nn.Linear, max_epochs=10, random_state=0).fit(X[:1200], y[:1200])
    assert isinstance(linear.module_, minitorch.nn.Linear) and linear.score(X[1200:], y[1200:]) > 0.85
    restored = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(restored.predict_proba(X[:20]), model.predict_proba(X[:20]))
    assert len(model.loss_curve_) == 10 and model.loss_curve_[-1] < model.loss_curve_[0]


def test_regressor_fits_one_and_several_targets():
    from sklearn.datasets import make_regression
    from sklearn.model_selection import cross_val_score

    X, y = make_regression(n_samples=200, n_features=5, noise=0.1, random_state=0)
    y = y / y.std()
    model = NeuralNetRegressor(max_epochs=60, random_state=0)
    assert cross_val_score(model, X, y, cv=3).mean() > 0.9
    two = np.stack([y, -2 * y], axis=1)
    fitted = NeuralNetRegressor(max_epochs=60, random_state=0).fit(X, two)
    assert fitted.predict(X).shape == (200, 2) and fitted.n_outputs_ == 2 and fitted.score(X, two) > 0.9


def test_wrapper_errors_are_clear():
    X, y = np.random.default_rng(0).random((10, 3)), np.arange(10) % 2
    with pytest.raises(TypeError, match="module should be None, an nn.Module or a callable"):
        NeuralNetClassifier(module=3).fit(X, y)
    with pytest.raises(ValueError, match="dtype should be 'float32' or 'float64'"):
        NeuralNetClassifier(dtype="int8").fit(X, y)
    with pytest.raises(ValueError, match="Unknown label type"):
        NeuralNetClassifier().fit(X, np.linspace(0, 1, 10))
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        NeuralNetRegressor().predict(X)
