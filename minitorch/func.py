"""``minitorch.func``: function transforms in the style of JAX (``torch.func``, formerly functorch).

Where ``loss.backward()`` fills ``.grad`` fields, these turn one *function* into another:

* ``grad(f)`` is the function that returns the gradient of ``f`` (a scalar function) with respect
  to its first argument (or ``argnums``); ``grad_and_value`` returns the value too.
* ``vmap(f)`` maps ``f`` over a batch dimension: ``vmap(f)(xs)`` is ``stack([f(x) for x in xs])``.
  PyTorch batches the ops themselves; minitorch really runs that loop, one call of ``f`` per
  slice along the mapped dimension (a loop over a dimension, never over elements), which gives
  the same results with none of the batching rules. ``vmap(grad(f))`` thus gives per-sample
  gradients exactly as in PyTorch's tutorials.
* ``jacrev`` / ``jacfwd`` / ``hessian``: Jacobians and Hessians as functions (autograd/functional.py).
* ``functional_call(module, params, args)`` runs a module with other parameters, so a module can
  be the ``f`` of the transforms above.

Arguments and results may be tensors or "pytrees": tuples, lists and dicts of tensors (a dict of
parameters, for example).

    >>> import minitorch
    >>> from minitorch.func import grad, vmap
    >>> grad(lambda x: (x ** 2).sum())(minitorch.tensor([1.0, 2.0]))
    tensor([2., 4.])
    >>> vmap(lambda row: row.dot(row))(minitorch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor([ 5., 25.])
"""

from __future__ import annotations

import contextlib
import functools

from ._creation import zeros_like
from ._tensor import Tensor
from .autograd import functional as _functional, grad as _autograd_grad
from .autograd.grad_mode import enable_grad
from .ops.shape import select, stack

__all__ = [
    "grad", "grad_and_value", "vmap", "jacrev", "jacfwd", "hessian", "functional_call", "stack_module_state", "vjp",
    "jvp",
]


# -- pytrees: nested tuples, lists and dicts of tensors ------------------------------------------------
def _flatten(tree):
    """``(leaves, rebuild)``: the tensors of ``tree`` in order, and a function that puts new ones in their place."""
    if isinstance(tree, dict):
        keys = list(tree)
        parts = [_flatten(tree[key]) for key in keys]
        sizes = [len(leaves) for leaves, _ in parts]

        def rebuild(leaves):
            out, start = {}, 0
            for key, size, (_, inner) in zip(keys, sizes, parts):
                out[key] = inner(leaves[start : start + size])
                start += size
            return type(tree)(out) if type(tree) is not dict else out

        return [leaf for leaves, _ in parts for leaf in leaves], rebuild
    if isinstance(tree, (tuple, list)):
        parts = [_flatten(item) for item in tree]
        sizes = [len(leaves) for leaves, _ in parts]

        def rebuild(leaves):
            out, start = [], 0
            for size, (_, inner) in zip(sizes, parts):
                out.append(inner(leaves[start : start + size]))
                start += size
            if hasattr(tree, "_fields"):  # a named tuple
                return type(tree)(*out)
            return type(tree)(out)

        return [leaf for leaves, _ in parts for leaf in leaves], rebuild
    return [tree], lambda leaves: leaves[0]


# -- grad -------------------------------------------------------------------------------------------
def _differentiable(value: Tensor) -> Tensor:
    """A leaf to differentiate at: a view that stays in an outer transform's graph, else a fresh leaf."""
    return value.view_as(value) if value.requires_grad else value.detach().requires_grad_(True)


def grad_and_value(func, argnums=0, has_aux: bool = False):
    """The function ``(*args) -> (gradient, value)`` (``((gradient, aux), value)``... see ``grad``)."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        numbers = (argnums,) if isinstance(argnums, int) else tuple(argnums)
        args = list(args)
        with enable_grad():
            rebuilds = {}
            leaves_of = {}
            for number in numbers:
                leaves, rebuild = _flatten(args[number])
                leaves = [_differentiable(leaf) for leaf in leaves]
                args[number] = rebuild(leaves)
                rebuilds[number], leaves_of[number] = rebuild, leaves
            # an outer transform is differentiating through this one when an input already had a graph
            nested = any(leaf.grad_fn is not None for leaves in leaves_of.values() for leaf in leaves)
            output = func(*args, **kwargs)
            aux = None
            if has_aux:
                if not (isinstance(output, tuple) and len(output) == 2):
                    raise RuntimeError(
                        "grad_and_value(f)(*args): output of function f should be a tuple: (output, aux) if "
                        "has_aux is True"
                    )
                output, aux = output
            if not isinstance(output, Tensor):
                raise RuntimeError(
                    f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got {type(output)}"
                )
            if output.dim() != 0:
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor with "
                    f"{output.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?"
                )
            flat = [leaf for number in numbers for leaf in leaves_of[number]]
            if output.requires_grad:
                grads = _autograd_grad(output, flat, create_graph=nested, allow_unused=True, materialize_grads=True)
            else:
                grads = tuple(zeros_like(leaf) for leaf in flat)
        results, start = [], 0
        for number in numbers:
            size = len(leaves_of[number])
            results.append(rebuilds[number](list(grads[start : start + size])))
            start += size
        gradient = results[0] if isinstance(argnums, int) else tuple(results)
        value = output if nested else output.detach()
        return ((gradient, aux), value) if has_aux else (gradient, value)

    return wrapper


def grad(func, argnums=0, has_aux: bool = False):
    """The function that returns the gradient of the scalar function ``func`` with respect to argument
    ``argnums`` (an int, or a tuple for several); with ``has_aux``, ``func`` returns ``(loss, aux)``
    and the new function ``(gradient, aux)``. Composes with itself: ``grad(grad(f))`` is ``f''``.
    """

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        result, _ = grad_and_value(func, argnums, has_aux)(*args, **kwargs)
        return result

    return wrapper


# -- vmap -------------------------------------------------------------------------------------------
def _per_argument(in_dims, args):
    if isinstance(in_dims, int) or in_dims is None:
        return [in_dims] * len(args)
    in_dims = list(in_dims)
    if len(in_dims) != len(args):
        raise ValueError(
            f"vmap(f, in_dims={tuple(in_dims)}, ...)(<inputs>): in_dims is not compatible with the structure of "
            f"`inputs`. in_dims has structure {len(in_dims)} but inputs has structure {len(args)}."
        )
    return in_dims


def _dims_per_leaf(dims, tree, leaves) -> list:
    """The mapped dimension of each leaf of ``tree``: one int (or None) for all, or a pytree of them like ``tree``."""
    if dims is None or isinstance(dims, int):
        return [dims] * len(leaves)
    dim_leaves, _ = _flatten(dims)
    if len(dim_leaves) == len(leaves):
        return dim_leaves
    if not isinstance(tree, (tuple, list, dict)):
        raise ValueError(f"vmap: in_dims {dims} does not match the structure of an input that is a single tensor")
    per_item = list(tree.values()) if isinstance(tree, dict) else list(tree)
    item_dims = list(dims.values()) if isinstance(dims, dict) else list(dims)
    if len(per_item) != len(item_dims):
        raise ValueError(
            f"vmap: in_dims is not compatible with the structure of `inputs`. in_dims has structure {dims} but "
            f"inputs has {len(per_item)} entries."
        )
    return [dim for item, dim in zip(per_item, item_dims) for dim in _dims_per_leaf(dim, item, _flatten(item)[0])]


def vmap(func, in_dims=0, out_dims=0, randomness: str = "error", *, chunk_size=None):
    """``func`` mapped over dimension ``in_dims`` of its arguments; the results stacked along ``out_dims``.

    ``in_dims``: an int for every argument, or one entry per argument (None: not mapped, the same
    value for every call). minitorch calls ``func`` once per slice (see the module docstring);
    ``randomness`` and ``chunk_size`` are accepted for PyTorch's signature (each call draws its own
    random numbers, as PyTorch's ``randomness="different"``).
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        dims = _per_argument(in_dims, args)
        sizes = []
        plans = []
        for arg, dim in zip(args, dims):
            leaves, rebuild = _flatten(arg)
            leaf_dims = _dims_per_leaf(dim, arg, leaves)
            for leaf, dim in zip(leaves, leaf_dims):
                if dim is not None:
                        if not isinstance(leaf, Tensor):
                            raise ValueError(
                                f"vmap({getattr(func, '__name__', 'f')}, in_dims={in_dims}, ...)(<inputs>): Got "
                                f"in_dim={dim} for an input but the input is of type {type(leaf)}. We cannot vmap over "
                                "non-Tensor arguments, please use None as the respective in_dim"
                            )
                        if not -leaf.dim() <= dim < max(leaf.dim(), 1) or leaf.dim() == 0:
                            raise ValueError(
                                f"vmap({getattr(func, '__name__', 'f')}, in_dims={in_dims}, ...)(<inputs>): Got in_dim="
                                f"{dim} for some input, but that input is a Tensor of dimensionality {leaf.dim()} so "
                                f"expected in_dim to satisfy -{leaf.dim()} <= in_dim < {leaf.dim()}."
                            )
                        sizes.append(leaf.shape[dim])
            plans.append((leaves, rebuild, leaf_dims))
        if not sizes:
            raise ValueError(
                f"vmap({getattr(func, '__name__', 'f')}, in_dims={in_dims}, ...)(<inputs>): at least one input must "
                "be a Tensor to vmap over (all in_dims are None)"
            )
        if len(set(sizes)) != 1:
            raise ValueError(
                f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes {sizes} for "
                "the mapped dimension"
            )
        results = []
        for index in range(sizes[0]):  # one call of func per slice of the mapped dimension
            call_args = [
                rebuild([leaf if dim is None else select(leaf, dim, index) for leaf, dim in zip(leaves, leaf_dims)])
                for leaves, rebuild, leaf_dims in plans
            ]
            results.append(func(*call_args, **kwargs))
        first_leaves, rebuild = _flatten(results[0])
        per_call = [_flatten(result)[0] for result in results]
        out_per_leaf = _dims_per_leaf(out_dims, results[0], first_leaves)
        stacked = [
            stack([leaves[position] for leaves in per_call], dim=out_per_leaf[position])
            for position in range(len(first_leaves))
        ]
        return rebuild(stacked)

    return wrapper


# -- Jacobians as functions ----------------------------------------------------------------------------
def _jacobian_transform(func, argnums, has_aux, strategy):
    """``jacrev``/``jacfwd``: the Jacobian of every output leaf with respect to every input leaf.

    Inputs and outputs may be pytrees: the Jacobians are computed between their flattened leaves
    and put back in the same structures (outputs outside, the selected arguments inside), as
    ``torch.func`` nests them.
    """

    @functools.wraps(func)
    def wrapper(*args):
        numbers = (argnums,) if isinstance(argnums, int) else tuple(argnums)
        flattened = [_flatten(args[number]) for number in numbers]
        counts = [len(leaves) for leaves, _ in flattened]
        flat_inputs = tuple(leaf for leaves, _ in flattened for leaf in leaves)
        aux_box, output_structure = [], []

        def of_leaves(*leaves):
            call, start = list(args), 0
            for number, count, (_, rebuild) in zip(numbers, counts, flattened):
                call[number] = rebuild(list(leaves[start : start + count]))
                start += count
            output = func(*call)
            if has_aux:
                output, aux = output
                aux_box.append(aux)
            output_leaves, rebuild_output = _flatten(output)
            output_structure.append(rebuild_output)
            return tuple(output_leaves)

        # Inside an outer transform (its inputs carry a graph) the Jacobian must stay differentiable; that
        # needs reverse mode here. The numbers are the same Jacobian either way.
        nested = any(leaf.requires_grad for leaf in flat_inputs)
        rows = _functional.jacobian(of_leaves, flat_inputs, create_graph=nested,
                                    strategy="reverse-mode" if nested else strategy,
                                    vectorize=strategy == "forward-mode" and not nested)

        def per_argument(row):
            parts, start = [], 0
            for count, (_, rebuild) in zip(counts, flattened):
                parts.append(rebuild(list(row[start : start + count])))
                start += count
            return parts[0] if isinstance(argnums, int) else tuple(parts)

        result = output_structure[0]([per_argument(row) for row in rows])
        return (result, aux_box[0]) if has_aux else result

    return wrapper


def jacrev(func, argnums=0, *, has_aux: bool = False, chunk_size=None):
    """The function that returns the Jacobian of ``func`` by reverse mode (one backward pass per output element)."""
    return _jacobian_transform(func, argnums, has_aux, "reverse-mode")


def jacfwd(func, argnums=0, has_aux: bool = False, *, randomness: str = "error"):
    """The function that returns the Jacobian of ``func`` column by column (one Jacobian-vector product each)."""
    return _jacobian_transform(func, argnums, has_aux, "forward-mode")


def hessian(func, argnums=0):
    """The function that returns the Hessian of the scalar function ``func``: the Jacobian of its gradient
    (PyTorch composes ``jacfwd(jacrev(func))``; the numbers are the same)."""
    return jacrev(jacrev(func, argnums), argnums)


def vjp(func, *primals, has_aux: bool = False):
    """``(func(*primals), vjp_fn)``: ``vjp_fn(v)`` gives ``v^T J`` for each primal."""
    output = func(*primals)

    def vjp_fn(cotangents):
        return _functional.vjp(lambda *values: func(*values), primals, cotangents)[1]

    return output, vjp_fn


def jvp(func, primals, tangents, *, strict: bool = False, has_aux: bool = False):
    """``(func(*primals), J tangents)``."""
    return _functional.jvp(func, tuple(primals), tuple(tangents), strict=strict)


# -- running a module with other parameters ----------------------------------------------------------------
@contextlib.contextmanager
def _swapped(module, values: dict):
    saved = []
    try:
        for name, value in values.items():
            *path, leaf = name.split(".")
            owner = module
            for part in path:
                owner = owner._modules[part]
            table = owner._parameters if leaf in owner._parameters else owner._buffers
            saved.append((table, leaf, table.get(leaf)))
            table[leaf] = value
        yield
    finally:
        for table, leaf, old in reversed(saved):
            table[leaf] = old


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights: bool = True,
                    strict: bool = False):
    """``module(*args, **kwargs)`` computed with the tensors of ``parameter_and_buffer_dicts`` (one dict, or a
    tuple of dicts, keyed by ``named_parameters()`` names) in place of the module's own; the module is left
    as it was."""
    dicts = parameter_and_buffer_dicts if isinstance(parameter_and_buffer_dicts, (tuple, list)) else (
        parameter_and_buffer_dicts,)
    merged = {}
    for values in dicts:
        for key, value in values.items():
            if key in merged:
                raise ValueError(f"{key} appeared in multiple dictionaries; behavior of functional call is ambiguous")
            merged[key] = value
    if strict:
        expected = {name for name, _ in module.named_parameters()} | {name for name, _ in module.named_buffers()}
        missing, unexpected = sorted(expected - set(merged)), sorted(set(merged) - expected)
        if missing or unexpected:
            raise RuntimeError(
                f"Error(s) in reparametrizing for {type(module).__name__}:\n\t"
                + (f"Unexpected key(s): {', '.join(map(repr, unexpected))}." if unexpected else "")
                + (f"Missing key(s): {', '.join(map(repr, missing))}." if missing else "")
            )
    args = () if args is None else (args if isinstance(args, tuple) else (args,))
    with _swapped(module, merged):
        return module(*args, **(kwargs or {}))


def stack_module_state(models) -> tuple[dict, dict]:
    """``(params, buffers)``: each parameter and buffer of several same-shaped models, stacked along a new dim 0.

    With ``functional_call`` and ``vmap`` this runs an ensemble as one call (PyTorch's model-ensembling
    tutorial). Stacked parameters are new leaves that require grad (the models' own are left alone).
    """
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(model.training for model in models) or not any(model.training for model in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    if any(type(model) is not type(models[0]) for model in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    def stacked_leaf(tensors, name):
        requiring = [tensor.requires_grad for tensor in tensors]
        if any(requiring) and not all(requiring):
            raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
        result = stack(tensors)
        return result.detach().requires_grad_() if all(requiring) else result

    all_params = [dict(model.named_parameters()) for model in models]
    all_buffers = [dict(model.named_buffers()) for model in models]
    params = {name: stacked_leaf([each[name] for each in all_params], name) for name in all_params[0]}
    buffers = {name: stacked_leaf([each[name] for each in all_buffers], name) for name in all_buffers[0]}
    return params, buffers
