"""``gradcheck``: does backward agree with finite differences?

For a function ``f`` of tensors, the Jacobian ``J[k, j] = d output_k / d input_j`` can be
found two ways:

* numerically, by nudging each input element: ``(f(x + eps) - f(x - eps)) / (2 eps)``
  (central differences; exact up to ``O(eps^2)`` in float64);
* analytically, by backward: ``grad_output = e_k`` (one-hot) gives row ``k``; with
  ``check_forward_ad=True`` also by forward mode: a one-hot tangent ``e_j`` gives column ``j``.

If they match within ``atol + rtol * |numerical|`` the backward is right. Use float64:
in float32, rounding makes finite differences too noisy to compare. ``gradgradcheck``
applies the same test to the gradient itself (for ``create_graph=True``).
"""

from __future__ import annotations

import warnings

import numpy as np

from .. import _sampling
from .._device import CPU
from .._dtype import is_floating
from .._memory_format import contiguous_format
from .._random import default_generator
from .._tensor_base import TensorBase as Tensor  # isinstance and _make: the class sits above autograd
from . import (
    _lent_ops,  # the ops it calls, lent by the ops (autograd sits below them)
    forward_ad,
)
from ._grad import grad
from .grad_mode import enable_grad, no_grad


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck`` when the analytical and numerical Jacobians differ."""


def _as_tuple(value):
    return (value,) if isinstance(value, Tensor) else tuple(value)


def _outputs(func, inputs):
    return tuple(o for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor))


def _numerical_jacobians(func, inputs, differentiable, eps):
    """One matrix per (output, input): column j is the central difference for element j."""
    with no_grad():
        outputs = _outputs(func, inputs)
        jacobians = [[np.zeros((o.numel(), inputs[i].numel())) for i in differentiable] for o in outputs]
        for column_block, i in enumerate(differentiable):
            host = inputs[i]._data
            flat = host.reshape(-1)  # inputs are contiguous copies made by gradcheck, so this is a view
            for j in range(flat.size):
                original = flat[j].item()
                flat[j] = original + eps
                plus = [o._device.backend.to_host(o._data).astype(np.float64).ravel() for o in _outputs(func, inputs)]
                flat[j] = original - eps
                minus = [o._device.backend.to_host(o._data).astype(np.float64).ravel() for o in _outputs(func, inputs)]
                flat[j] = original
                for k, (p, m) in enumerate(zip(plus, minus)):
                    jacobians[k][column_block][:, j] = (p - m) / (2 * eps)
    return outputs, jacobians


def _analytical_jacobians(func, inputs, differentiable):
    """Row k of each Jacobian is the backward pass of a one-hot ``grad_output`` at element k."""
    outputs = _outputs(func, inputs)
    jacobians = [[np.zeros((o.numel(), inputs[i].numel())) for i in differentiable] for o in outputs]
    targets = [inputs[i] for i in differentiable]
    for k, output in enumerate(outputs):
        if not output.requires_grad:
            continue
        for row in range(output.numel()):
            grad_output = _lent_ops.zeros_like(output, memory_format=contiguous_format)  # so reshape is a view
            grad_output._data.reshape(-1)[row] = 1
            grads = grad(output, targets, grad_output, retain_graph=True, allow_unused=True)
            for column_block, g in enumerate(grads):
                if g is not None:
                    jacobians[k][column_block][row, :] = g._device.backend.to_host(g._data).astype(np.float64).ravel()
    return jacobians


def _forward_jacobians(func, inputs, differentiable):
    """Column j of each Jacobian is the tangent of the outputs when input element j moves (forward mode)."""
    outputs = _outputs(func, inputs)
    jacobians = [[np.zeros((o.numel(), inputs[i].numel())) for i in differentiable] for o in outputs]
    for column_block, i in enumerate(differentiable):
        for column in range(inputs[i].numel()):
            tangent = _lent_ops.zeros_like(inputs[i])
            tangent._data.reshape(-1)[column] = 1
            with forward_ad.dual_level():
                dual = list(inputs)
                dual[i] = forward_ad.make_dual(inputs[i], tangent)
                for k, output in enumerate(_outputs(func, dual)):
                    found = forward_ad.unpack_dual(output).tangent
                    if found is not None:
                        host = found._device.backend.to_host(found._data).astype(np.float64).ravel()
                        jacobians[k][column_block][:, column] = host
    return jacobians


def gradcheck(func, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False,
              check_batched_forward_grad: bool = False,
              check_forward_ad: bool = False, check_backward_ad: bool = True, fast_mode: bool = False,
              masked=None) -> bool:
    """Check the gradients of ``func`` at ``inputs`` against finite differences (PyTorch's signature).

    Returns True, or raises ``GradcheckError`` naming the output and input whose
    Jacobians differ and printing both (or returns False with ``raise_exception=False``).
    """
    inputs = _as_tuple(inputs)
    differentiable = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not differentiable:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, "
            "but none of them have requires_grad=True."
        )
    for i in differentiable:
        if inputs[i].dtype.name != "float64":
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point. This check will likely "
                "fail if all the inputs are not of double precision floating point.",
                UserWarning,
                stacklevel=2,
            )
    # Work on contiguous copies so nudging one element never touches the caller's tensors.
    working = list(inputs)
    for i in differentiable:
        working[i] = Tensor._make(inputs[i]._xp.array(inputs[i]._data, copy=True, order="C"), inputs[i]._device,
                                  requires_grad=True)
    outputs, numerical = _numerical_jacobians(func, working, differentiable, eps)
    checks = []  # (how the analytical Jacobian was found, as PyTorch's message says it, the Jacobians)
    if check_backward_ad:
        checks.append(("Jacobian", _analytical_jacobians(func, working, differentiable)))
    if check_forward_ad:
        checks.append(("Jacobian computed with forward mode", _forward_jacobians(func, working, differentiable)))
    for what, analytical in checks:
        for k in range(len(outputs)):
            for column_block, i in enumerate(differentiable):
                n, a = numerical[k][column_block], analytical[k][column_block]
                if not np.allclose(a, n, rtol=rtol, atol=atol):
                    message = (
                        f"{what} mismatch for output {k} with respect to input {i},\n"
                        f"numerical:{_format(n)}\nanalytical:{_format(a)}\n"
                    )
                    if raise_exception:
                        raise GradcheckError(message)
                    return False
    return True


def _format(matrix) -> str:
    return repr(Tensor._make(matrix))


def _random_grad_output(output):
    """A tensor like ``output`` (double if it is not floating) of ``U[-1, 1)`` draws, that requires grad."""
    dtype = output._data.dtype if is_floating(output._data.dtype) else np.float64
    values = Tensor._make(_sampling.uniform(default_generator, tuple(output.shape), dtype, -1.0, 1.0))
    values = values if output._device is CPU else _lent_ops.to(values, output._device)
    values._requires_grad = True
    return values


def gradgradcheck(func, inputs, grad_outputs=None, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
                  gen_non_contig_grad_outputs: bool = False, raise_exception: bool = True, nondet_tol: float = 0.0,
                  check_undefined_grad: bool = True, check_grad_dtypes: bool = False, check_batched_grad: bool = False,
                  check_fwd_over_rev: bool = False, check_rev_over_rev: bool = True, fast_mode: bool = False,
                  masked: bool = False) -> bool:
    """Check second derivatives: ``gradcheck`` applied to the function ``(inputs, v) -> v^T J``."""
    inputs = _as_tuple(inputs)
    differentiable = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if grad_outputs is None:
        # As PyTorch's: torch.testing.make_tensor(shape, low=-1, high=1), i.e. uniform draws from the default
        # generator (so the random numbers a program draws afterwards are PyTorch's too).
        outputs = _outputs(func, inputs)
        grad_outputs = tuple(_random_grad_output(o) for o in outputs if o.requires_grad)
    else:
        grad_outputs = _as_tuple(grad_outputs)
    count = len(inputs)

    def first_derivative(*values):
        primal, cotangents = values[:count], values[count:]
        # The finite-difference pass runs under no_grad; the first derivative needs a graph to exist.
        with enable_grad():
            outputs = [o for o in _outputs(func, primal) if o.requires_grad]
            targets = [primal[i] for i in differentiable]
            grads = grad(outputs, targets, cotangents, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None and g.requires_grad)

    return gradcheck(first_derivative, inputs + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
