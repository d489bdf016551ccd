"""``autograd.grad``: the gradients of outputs with respect to chosen inputs, returned instead of accumulated.

It runs the same engine as ``backward`` (``engine.run_backward``) with ``inputs=`` and ``accumulate=False``. It has a
module of its own, below the package's ``__init__.py``, because ``gradcheck`` and ``functional`` call it, and the
package imports them.
"""

from __future__ import annotations

from . import _lent_ops  # zeros_like, lent by the ops (autograd sits below them)
from ._extensions import as_tuple, bring_views_up_to_date, drain, make_root_grads
from .engine import run_backward


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph: bool = False,
         only_inputs: bool = True, allow_unused=None, is_grads_batched: bool = False, materialize_grads: bool = False):
    """The gradients of ``outputs`` with respect to ``inputs``, returned rather than stored in ``.grad``.

        >>> import minitorch
        >>> x = minitorch.tensor(3.0, requires_grad=True)
        >>> (dy,) = minitorch.autograd.grad(x ** 2, x, create_graph=True)   # 2x
        >>> minitorch.autograd.grad(dy, x)                                   # 2
        (tensor(2.),)
    """
    outputs_tuple = as_tuple(outputs)
    inputs_tuple = as_tuple(inputs)
    bring_views_up_to_date(outputs_tuple, inputs_tuple)
    if not inputs_tuple:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if allow_unused is None:
        allow_unused = materialize_grads
    for tensor in inputs_tuple:
        if not tensor.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    if retain_graph is None:
        retain_graph = create_graph
    roots = make_root_grads(outputs_tuple, as_tuple(grad_outputs), create_graph)
    steps = run_backward(outputs_tuple, roots, retain_graph, create_graph, inputs=inputs_tuple, accumulate=False)
    results = drain(steps)
    final = []
    for index, (tensor, result) in enumerate(zip(inputs_tuple, results)):
        if result is None:
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {index} appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior."
                )
            if materialize_grads:
                result = _lent_ops.zeros_like(tensor)
        final.append(result)
    return tuple(final)
