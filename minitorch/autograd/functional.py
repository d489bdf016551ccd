"""``minitorch.autograd.functional``: Jacobians, Hessians and their products, for a function of tensors.

Every function here takes ``func`` (tensors in, a tensor or a tuple of tensors out) and the point
``inputs`` at which to differentiate, and is built on ``autograd.grad`` alone:

* ``vjp(func, x, v)``:  ``v^T J``  -- one backward pass with ``v`` as the output gradient.
* ``jvp(func, x, v)``:  ``J v``    -- forward mode through reverse mode, by the "double backward
  trick": ``g(u) = J^T u`` is linear in ``u``, so the gradient of ``g(u) . v`` with respect to ``u``
  is ``J v`` (two backward passes, no forward-mode machinery).
* ``jacobian(func, x)``: ``J`` itself, one row per output element, each row one backward pass
  (the loop PyTorch runs with ``vectorize=False``; ``vectorize=True`` is accepted and computes
  the same rows).
* ``hessian(func, x)``: the Jacobian of the gradient (``func`` returns one number).
* ``vhp`` / ``hvp``:  ``v^T H`` and ``H v`` (equal, as ``H`` is symmetric), from double backward.

As in PyTorch, results are detached unless ``create_graph=True`` (then they can be
differentiated again), a part of the output that does not depend on an input gives zeros
(or an error with ``strict=True``), and tuples in give tuples out.

    >>> import minitorch
    >>> from minitorch.autograd.functional import jacobian, hessian
    >>> jacobian(lambda x: x ** 2, minitorch.tensor([1.0, 2.0]))
    tensor([[2., 0.],
            [0., 4.]])
    >>> hessian(lambda x: (x ** 3).sum(), minitorch.tensor([1.0, 2.0]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
"""

from __future__ import annotations

from .._memory_format import contiguous_format
from .._tensor_base import TensorBase as Tensor  # isinstance only: autograd sits below the Tensor class
from . import _lent_ops  # the ops it calls, lent by the ops (autograd sits below them)
from ._grad import grad
from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"]


# -- tuples in, tuples out ------------------------------------------------------------------
def _as_tuple(value, argument: str, function: str):
    """``(was_a_tuple, tuple_of_tensors)``, refusing anything but tensors with PyTorch's message."""
    is_tuple = isinstance(value, tuple)
    values = value if is_tuple else (value,)
    for index, item in enumerate(values):
        if not isinstance(item, Tensor):
            where = f"the value at index {index}" if is_tuple else f"the given {argument}"
            raise TypeError(
                f"The {argument} given to {function} must be either a Tensor or a tuple of Tensors but {where} "
                f"has type {type(item)}."
            )
    return is_tuple, values


def _unpack(result, was_tuple):
    """Undo the tupling: ``was_tuple`` is a bool, or a pair (outputs, inputs) for nested Jacobians."""
    if isinstance(was_tuple, tuple):
        outputs_tuple, inputs_tuple = was_tuple
        if not inputs_tuple:
            result = tuple(row[0] for row in result)
        return result if outputs_tuple else result[0]
    return result if was_tuple else result[0]


def _prepare(inputs, create_graph: bool, need_graph: bool):
    """Inputs that record a fresh graph: detached copies, or (create_graph) views that keep the outer graph."""
    return tuple(
        value.view_as(value) if create_graph and value.requires_grad else value.detach().requires_grad_(need_graph)
        for value in inputs
    )


def _finish(values, create_graph: bool):
    if values and isinstance(values[0], Tensor):
        return values if create_graph else tuple(value.detach() for value in values)
    return tuple(_finish(value, create_graph) for value in values)


def _check_v(v, reference, reference_is_tuple: bool) -> None:
    if len(v) != len(reference):
        if reference_is_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(reference)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for index, (given, wanted) in enumerate(zip(v, reference)):
        if given.size() != wanted.size():
            prefix = f"Entry {index} in " if reference_is_tuple else ""
            raise RuntimeError(f"{prefix}v has invalid size: should be {wanted.size()} but got {given.size()}.")


def _check_outputs_require_grad(outputs, strict: bool) -> None:
    if strict:
        for index, output in enumerate(outputs):
            if not output.requires_grad:
                raise RuntimeError(
                    f"Output {index} of the user-provided function does not require gradients. The outputs must be "
                    "computed in a differentiable manner from the input when running in strict mode."
                )


def _grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """``autograd.grad`` over the outputs that require grad; None for inputs they do not reach."""
    grad_outputs = grad_outputs if grad_outputs is not None else (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    kept_outputs, kept_grads = zip(*pairs)
    if all(g is None for g in kept_grads):
        kept_grads = None
    return grad(kept_outputs, inputs, kept_grads, allow_unused=True, create_graph=create_graph,
                retain_graph=retain_graph)


def _zeros_where_missing(grads, references, strict: bool, message: str):

    filled = []
    for index, (value, reference) in enumerate(zip(grads, references)):
        if value is None:
            if strict:
                raise RuntimeError(message.format(index=index))
            value = _lent_ops.zeros_like(reference)
        filled.append(value)
    return tuple(filled)


_INDEPENDENT = "The output of the user-provided function is independent of input {index}. This is not allowed in " \
               "strict mode."


# -- vector-Jacobian and Jacobian-vector products ---------------------------------------------------
def vjp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), v^T J)``: the output gradient ``v`` pulled back through ``func`` (one backward pass)."""
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "vjp")
        _check_outputs_require_grad(outputs, strict)
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            v = _prepare(v, create_graph, need_graph=False)
            _check_v(v, outputs, outputs_tuple)
        elif len(outputs) != 1 or outputs[0].numel() != 1:
            raise RuntimeError(
                "The vector v can only be None if the user-provided function returns a single Tensor with a single "
                "element."
            )
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        result = _zeros_where_missing(_grad(outputs, inputs, v, create_graph), inputs, strict, _INDEPENDENT)
    return _unpack(_finish(outputs, create_graph), outputs_tuple), _unpack(_finish(result, create_graph), inputs_tuple)


def jvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), J v)`` by the double backward trick (see the module docstring)."""
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        if v is not None:
            _, v = _as_tuple(v, "v", "jvp")
            v = _prepare(v, create_graph, need_graph=False)
            _check_v(v, inputs, inputs_tuple)
        elif len(inputs) != 1 or inputs[0].numel() != 1:
            raise RuntimeError(
                "The vector v can only be None if the input to the user-provided function is a single Tensor with a "
                "single element."
            )
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jvp")
        _check_outputs_require_grad(outputs, strict)
        # g(u) = J^T u for a dummy u (zeros that require grad); d(g(u) . v)/du = J v
        dummies = tuple(_lent_ops.zeros_like(output, requires_grad=True) for output in outputs)
        transposed = _grad(outputs, inputs, dummies, create_graph=True)
        if strict:
            for index, value in enumerate(transposed):
                if value is None or not value.requires_grad:
                    raise RuntimeError(
                        f"The gradient with respect to input {index} is independent of the inputs of the "
                        "user-provided function. This is not allowed in strict mode."
                    )
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        result = _zeros_where_missing(
            _grad(transposed, dummies, v, create_graph), outputs, strict,
            "The gradient with respect to the input is independent of entry {index} in the grad_outputs when using "
            "the double backward trick to compute forward mode gradients. This is not allowed in strict mode.",
        )
    return _unpack(_finish(outputs, create_graph), outputs_tuple), _unpack(_finish(result, create_graph), outputs_tuple)


# -- whole Jacobians and Hessians ------------------------------------------------------------------
def jacobian(func, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
             strategy: str = "reverse-mode"):
    """``J[i][j] = d output_i / d input_j``, shaped ``output.shape + input.shape`` (nested tuples for tuples).

    Reverse mode: one backward pass per output element gives one row of the Jacobian.
    ``strategy="forward-mode"`` (one ``jvp`` per input element, a column each) suits functions
    with more outputs than inputs.
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function has more outputs '
            'than inputs, "forward-mode" tends to be more performant. Otherwise, prefer to use "reverse-mode".'
        )
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and `strategy=\"forward-mode\"` are not "
                "supported together (yet). Please either set `create_graph=False` or `strategy=\"reverse-mode\"`."
            )
        if not vectorize:
            raise NotImplementedError(  # PyTorch's words, its missing space included
                "Computing Jacobian using forward-AD or forward-over-reverse Hessian isonly implemented for "
                "`vectorize=True`."
            )
        return _jacobian_forward(func, inputs, strict)
    if vectorize and strict:
        raise RuntimeError(
            "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not supported together. "
            "Please either set `strict=False` or `vectorize=False`."
        )
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jacobian")
        _check_outputs_require_grad(outputs, strict)
        rows_per_output = []
        for out_index, output in enumerate(outputs):
            rows = tuple([] for _ in inputs)
            flat = output.reshape(-1)
            for element in range(output.numel()):  # one backward pass per row of the Jacobian
                row = _grad((flat[element],), inputs, retain_graph=True, create_graph=create_graph)
                for in_index, (collected, value, reference) in enumerate(zip(rows, row, inputs)):
                    if value is None:
                        if strict:
                            raise RuntimeError(
                                f"Output {out_index} of the user-provided function is independent of input "
                                f"{in_index}. This is not allowed in strict mode."
                            )
                        value = _lent_ops.zeros_like(reference)
                    elif strict and create_graph and not value.requires_grad:
                        raise RuntimeError(
                            f"The jacobian of the user-provided function is independent of input {out_index}. This "
                            "is not allowed in strict mode when create_graph=True."
                        )
                    collected.append(value)
            rows_per_output.append(tuple(
                (_lent_ops.stack(collected, 0) if collected
                 else _lent_ops.zeros_like(reference).reshape((0,) + reference.shape))
                .view(output.shape + reference.shape)
                for collected, reference in zip(rows, inputs)
            ))
    return _unpack(_finish(tuple(rows_per_output), create_graph), (outputs_tuple, inputs_tuple))


def _jacobian_forward(func, inputs, strict: bool):
    """The Jacobian one column at a time: ``jvp`` with each unit vector of the inputs."""
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    columns_per_input = []
    outputs_tuple = False
    for in_index, value in enumerate(inputs):
        columns = []
        for element in range(value.numel()):  # one jvp per column
            directions = [_lent_ops.zeros_like(other, memory_format=contiguous_format) for other in inputs]  # a view
            directions[in_index].reshape(-1)[element] = 1.0
            outputs, column = jvp(func, inputs if inputs_tuple else inputs[0],
                                  tuple(directions) if inputs_tuple else directions[0], strict=strict)
            outputs_tuple = isinstance(outputs, tuple)
            columns.append(column if outputs_tuple else (column,))
        outputs = outputs if outputs_tuple else (outputs,)
        columns_per_input.append(tuple(
            _lent_ops.stack([c[out_index] for c in columns], -1).view(output.shape + value.shape)
            for out_index, output in enumerate(outputs)
        ))
    per_output = tuple(zip(*columns_per_input))
    return _unpack(per_output, (outputs_tuple, inputs_tuple))


def hessian(func, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
            outer_jacobian_strategy: str = "reverse-mode"):
    """``H[i][j] = d^2 func / d input_i d input_j`` for a ``func`` that returns one number: the Jacobian of
    its gradient (shaped ``input_i.shape + input_j.shape``)."""
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def single_output(*values):
        output = func(*values)
        output_tuple, outputs = _as_tuple(output, "outputs of the user-provided function", "hessian")
        _check_outputs_require_grad(outputs, strict)
        if output_tuple or not isinstance(output, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if output.numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single element")
        return output.squeeze()

    def gradient(*values):
        if outer_jacobian_strategy == "forward-mode":
            values = tuple(value.requires_grad_(True) for value in values)
        result = jacobian(single_output, values, create_graph=True)
        if strict:
            for index, part in enumerate(result):
                if not part.requires_grad:
                    raise RuntimeError(
                        "While computing the hessian, found that the jacobian of the user-provided function with "
                        f"respect to input {index} is independent of the input. This is not allowed in strict mode. "
                        "You should ensure that your function is twice differentiable and that the jacobian depends "
                        "on the inputs (this would be violated by a linear function for example)."
                    )
        return result

    result = jacobian(gradient, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                      strategy=outer_jacobian_strategy)
    return _unpack(result, (inputs_tuple, inputs_tuple))


def _second_order(name: str, func, inputs, v, create_graph: bool, strict: bool):
    """``(func(inputs), v^T H)``: the gradient ``g`` with a graph, then ``d(g . v)/d inputs``."""
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", name)
        inputs = _prepare(inputs, create_graph, need_graph=True)
        if v is not None:
            _, v = _as_tuple(v, "v", name)
            v = _prepare(v, create_graph, need_graph=False)
            _check_v(v, inputs, inputs_tuple)
        elif len(inputs) != 1 or inputs[0].numel() != 1:
            raise RuntimeError(
                "The vector v can only be None if the input to the user-provided function is a single Tensor with a "
                "single element."
            )
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", name)
        _check_outputs_require_grad(outputs, strict)
        if outputs_tuple or not isinstance(outputs[0], Tensor):
            raise RuntimeError(f"The function given to {name} should return a single Tensor")
        if outputs[0].numel() != 1:
            raise RuntimeError(f"The Tensor returned by the function given to {name} should contain a single element")
        gradient = _grad(outputs, inputs, create_graph=True)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        result = _zeros_where_missing(
            _grad(gradient, inputs, v, create_graph), inputs, strict,
            "The jacobian of the user-provided function is independent of input {index}. This is not allowed in "
            "strict mode.",
        )
    return _unpack(_finish(outputs, create_graph), outputs_tuple), _unpack(_finish(result, create_graph), inputs_tuple)


def vhp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), v^T H)`` for a ``func`` that returns one number."""
    return _second_order("vhp", func, inputs, v, create_graph, strict)


def hvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), H v)``: equal to ``vhp`` because a Hessian is symmetric (PyTorch computes it by the
    double backward trick; the numbers agree up to rounding)."""
    return _second_order("hvp", func, inputs, v, create_graph, strict)
