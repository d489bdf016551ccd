"""SciPy's optimisers with minitorch computing the loss and its gradient.

``scipy.optimize.minimize(fun, x0, jac=True)`` wants ``fun(x) -> (loss, gradient)`` on flat
float64 NumPy arrays. ``value_and_grad`` builds that function from a minitorch function of
a tensor; autograd supplies the gradient, so L-BFGS or conjugate gradients get exact
derivatives for free:

    >>> import minitorch
    >>> from minitorch.interop.scipy import minimize
    >>> def rosenbrock(x):
    ...     return ((1 - x[:-1]) ** 2 + 100 * (x[1:] - x[:-1] ** 2) ** 2).sum()
    >>> result = minimize(rosenbrock, [-1.2, 1.0], method="L-BFGS-B", options={"gtol": 1e-10})
    >>> result.x.round(4).tolist()
    [1.0, 1.0]

``minimize_module`` does the same for all parameters of a model at once (full-batch
training with a quasi-Newton method, which beats SGD on small smooth problems).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .. import _dtype
from .._creation import tensor
from .._tensor import Tensor
from ..autograd import grad as autograd_grad

__all__ = ["value_and_grad", "minimize", "minimize_module"]


def value_and_grad(fun: Callable[[Tensor], Tensor], shape=None, dtype=_dtype.float64) -> Callable:
    """``objective(x) -> (float loss, float64 gradient array)`` for ``scipy.optimize.minimize(..., jac=True)``.

    ``fun`` takes a tensor of ``shape`` (default: whatever shape SciPy passes, a flat vector)
    and returns a scalar tensor. SciPy's points are float64; they are computed on in ``dtype``.
    """

    def objective(x: np.ndarray):
        point = tensor(np.asarray(x, dtype=np.float64).reshape(shape if shape is not None else -1), dtype=dtype,
                       requires_grad=True)
        loss = fun(point)
        if not isinstance(loss, Tensor) or loss.numel() != 1:
            raise RuntimeError("the function to minimize must return a tensor with a single element (the loss)")
        (gradient,) = autograd_grad(loss, point)
        return float(loss.item()), gradient.detach().numpy().astype(np.float64).ravel()

    return objective


def minimize(fun: Callable[[Tensor], Tensor], x0, method: str | None = None, **kwargs):
    """``scipy.optimize.minimize`` of a minitorch function; ``result.x`` has ``x0``'s shape."""
    from scipy import optimize  # SciPy is slow to import: loaded when a minimizer first runs

    if isinstance(x0, Tensor):
        x0 = x0.detach().numpy(force=True)
    start = np.asarray(x0, dtype=np.float64)
    result = optimize.minimize(value_and_grad(fun, start.shape), start.ravel(), jac=True, method=method, **kwargs)
    result.x = result.x.reshape(start.shape)
    return result


def minimize_module(module, closure: Callable[[], Tensor], method: str = "L-BFGS-B", **kwargs):
    """Minimise ``closure()`` (a loss computed with ``module``) over all of ``module``'s trainable parameters.

    The parameters are packed into one float64 vector for SciPy; at each point SciPy asks
    for, they are written into the module, the loss is computed and differentiated, and the
    gradients are packed the same way. The optimum is left in the module.
    """
    from scipy import optimize  # SciPy is slow to import: loaded when a minimizer first runs

    parameters = [p for p in module.parameters() if p.requires_grad]
    sizes = [p.numel() for p in parameters]
    offsets = np.cumsum([0, *sizes])

    def load(vector: np.ndarray) -> None:
        for parameter, start, stop in zip(parameters, offsets[:-1], offsets[1:]):
            # Written into the parameter's own array (NumPy or CuPy), so the module sees the new values.
            values = vector[start:stop].reshape(tuple(parameter.shape))
            parameter._data[...] = parameter._xp.asarray(values, dtype=parameter._data.dtype)

    def objective(vector: np.ndarray):
        load(vector)
        loss = closure()
        gradients = autograd_grad(loss, parameters, allow_unused=True)
        packed = [np.zeros(size) if g is None else g.detach().numpy(force=True).astype(np.float64).ravel()
                  for g, size in zip(gradients, sizes)]
        return float(loss.item()), np.concatenate(packed) if packed else np.zeros(0)

    start = np.concatenate([p.detach().numpy(force=True).astype(np.float64).ravel() for p in parameters])
    result = optimize.minimize(objective, start, jac=True, method=method, **kwargs)
    load(result.x)
    return result
