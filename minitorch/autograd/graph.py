"""Look at a recorded graph from the outside, and step a backward pass through it.

This is the public window that tools (the graph-stepper widget, a learner's own
experiments) use; nothing here changes the graph.

    >>> import minitorch
    >>> from minitorch.autograd import graph
    >>> a = minitorch.tensor([1.0, 2.0], requires_grad=True)
    >>> loss = (a * a).sum()
    >>> [node.name() for node in graph.nodes(loss)]
    ['SumBackward0', 'MulBackward0', 'torch::autograd::AccumulateGrad']
    >>> steps = graph.step_backward(loss)
    >>> first = next(steps)
    >>> first.node.name(), first.grad_outputs
    ('SumBackward0', (tensor(1.),))
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import NamedTuple

from .._dtype import from_numpy_dtype
from . import _extensions
from ._extensions import make_root_grads
from .engine import BackwardStep, _call_node, run_backward
from .function import AccumulateGrad, Function, Node, Op
from .grad_mode import set_grad_enabled


class Edge(NamedTuple):
    """``source`` sends its gradient for forward input ``input_nr`` to output ``output_nr`` of ``target``."""

    source: Node
    input_nr: int
    target: Node
    output_nr: int


def nodes(root) -> list:
    """Every node reachable from ``root`` (a tensor or a node), ordered from the output back, latest created first."""
    start = root.grad_fn if hasattr(root, "grad_fn") else root
    if start is None:
        return []
    found = {}
    stack = [start]
    while stack:
        node = stack.pop()
        if id(node) in found:
            continue
        found[id(node)] = node
        stack.extend(n for n, _ in node.next_functions if n is not None)
    # Later nodes first (a node is always created after the nodes of its inputs), leaves last:
    # AccumulateGrad nodes carry the highest sequence number, so they are placed explicitly.
    return sorted(found.values(), key=lambda n: (isinstance(n, AccumulateGrad), -n._sequence_nr()))


def edges(root) -> list:
    """Every edge between the nodes of ``nodes(root)``."""
    result = []
    for node in nodes(root):
        for input_nr, (target, output_nr) in enumerate(node.next_functions):
            if target is not None:
                result.append(Edge(node, input_nr, target, output_nr))
    return result


def sequence_number(node) -> int:
    """Creation order: forward ran nodes in increasing sequence number."""
    return node._sequence_nr()


def is_leaf_node(node) -> bool:
    return isinstance(node, AccumulateGrad)


def leaf_tensor(node):
    """The leaf tensor behind an ``AccumulateGrad`` node (``None`` for other nodes)."""
    return node.variable if isinstance(node, AccumulateGrad) else None


def saved_tensors(node) -> tuple | None:
    """What ``node``'s forward saved for backward, or ``None`` once backward has freed it."""
    if isinstance(node, AccumulateGrad) or getattr(node, "_released", False):
        return None
    try:
        return node.saved_tensors
    except RuntimeError:  # modified in place since: report nothing rather than fail a viewer
        return None


def arguments(node) -> dict:
    """The non-tensor settings ``forward`` stored on the node (axes, shapes, scalars...)."""
    return {
        key: value
        for key, value in vars(node).items()
        if not key.startswith("_") and key not in ("next_functions", "materialize_grads")
    }


def input_shapes(node) -> tuple:
    """The shape of each differentiable input of ``node`` (``None`` for inputs that need no gradient)."""
    if isinstance(node, AccumulateGrad):
        return (tuple(node.variable.shape),)
    return tuple(None if meta is None else tuple(meta[0]) for meta in node._input_meta)


class InputMetadata(NamedTuple):
    """What ``node`` knows about one differentiable input: its shape, dtype and device."""

    shape: tuple
    dtype: object
    device: object


def input_metadata(node) -> tuple:
    """An ``InputMetadata`` per differentiable input of ``node`` (``None`` for inputs that need no gradient).

    The graph keeps no reference to an intermediate tensor, but every node remembers the
    shape and dtype of what flowed into it (the engine checks gradients against them).
    """
    if isinstance(node, AccumulateGrad):
        variable = node.variable
        return (InputMetadata(tuple(variable.shape), variable.dtype, variable.device),)
    device = getattr(node, "_device", None)
    return tuple(
        None if meta is None else InputMetadata(tuple(meta[0]), from_numpy_dtype(meta[1]), device)
        for meta in node._input_meta
    )


def formula(node) -> str:
    """The math of the op that made ``node``, as its docstring states it (``""`` when there is none).

    Built-in ops document ``y = ...`` and the gradient of each input::

        >>> import minitorch
        >>> from minitorch.autograd import graph
        >>> a = minitorch.tensor(2.0, requires_grad=True)
        >>> graph.formula((a * a).grad_fn)
        '``y = a * b``;  ``da = grad * b``,  ``db = grad * a``.'
    """
    function = getattr(type(node), "_forward_class", None)
    doc = getattr(function, "__doc__", None) if function is not None else None
    if not doc or function.__doc__ is Function.__doc__ or function.__doc__ is Op.__doc__:
        return ""
    return doc.strip().split("\n\n")[0].strip()


# A gradient formula in an op's docstring: a code span ``d<input> = ...`` or ``d<input>[...] += ...`` that
# uses the incoming ``grad`` (``dx = grad @ W``, ``dx_i = (softmax(x_i) - onehot(y_i)) * grad_i``).
_DERIVATIVE = re.compile(r"``(d[A-Za-z][^`=]*?\+?= [^`]*grad[^`]*)``")


def derivatives(node) -> list[str]:
    """The gradient of each input, as the docstring of the op that made ``node`` writes it.

    Wherever the docstring states them (after the forward formula, or in a later paragraph); an op
    that is "the same op" as its base class under another name (``SumDim``) has its base's::

        >>> import minitorch
        >>> from minitorch.autograd import graph
        >>> a = minitorch.tensor(2.0, requires_grad=True)
        >>> graph.derivatives((a * a).grad_fn)
        ['da = grad * b', 'db = grad * a']
    """
    function = getattr(type(node), "_forward_class", None)
    for cls in getattr(function, "__mro__", ()):
        if cls is Function or cls is Op:
            break
        found = _DERIVATIVE.findall(cls.__dict__.get("__doc__") or "")
        if found:
            return [" ".join(text.split()) for text in found]
    return []


def step_backward(
    tensor, gradient=None, retain_graph: bool = False, create_graph: bool = False
) -> Iterator[BackwardStep]:
    """The real engine's backward pass on ``tensor``, one ``BackwardStep`` at a time.

    Draining it is exactly ``tensor.backward(gradient, retain_graph, create_graph)``.
    """
    roots = make_root_grads((tensor,), None if gradient is None else (gradient,), create_graph)
    return run_backward((tensor,), roots, retain_graph or create_graph, create_graph)


def call_node(node, *grad_outputs, create_graph: bool = False) -> tuple:
    """Run one node's backward as one step of the engine does.

    That is PyTorch's ``grad_fn(*grad_outputs)`` followed by what its engine does with the result
    (``validate_outputs``): each gradient summed back to its input's shape where forward broadcast it.

    ``grad_outputs`` holds one gradient per output of the node's operation; the result holds one gradient
    per entry of ``node.next_functions`` (``None`` where no gradient flows). As in the engine, the call
    itself is recorded only with ``create_graph=True``. The node's saved tensors are kept, so a node can be
    called again. For a leaf's ``AccumulateGrad`` node, which has no inputs, it returns ``()``.

        >>> import minitorch
        >>> from minitorch.autograd import graph
        >>> a = minitorch.tensor([1.0, 2.0], requires_grad=True)
        >>> y = a * 3
        >>> graph.call_node(y.grad_fn, minitorch.ones(2))
        (tensor([3., 3.]),)
    """
    if isinstance(node, AccumulateGrad):
        return ()
    with set_grad_enabled(create_graph):  # with the node's hooks, as the engine runs it (accumulate=False: no .grad)
        return _extensions.call_node(node, list(grad_outputs), None, False, _call_node)


def forward_order(root) -> list:
    """The nodes in the order forward created them (the reverse of ``nodes``)."""
    return list(reversed(nodes(root)))


class saved_tensors_hooks:  # noqa: N801 - PyTorch's name
    """Inside ``with graph.saved_tensors_hooks(pack_hook, unpack_hook):`` every tensor an op saves for
    backward goes through ``pack_hook(tensor)`` as it is saved; backward gets it back from
    ``unpack_hook(packed)``, which must return a tensor with the same values. The hooks can keep
    saved activations elsewhere (on disk, compressed) or drop them and recompute them
    (``utils.checkpoint``). Contexts nest: the innermost pair packs.

        >>> import minitorch
        >>> from minitorch.autograd import graph
        >>> a = minitorch.tensor([1.0, 2.0], requires_grad=True)
        >>> with graph.saved_tensors_hooks(lambda t: t * 4, lambda t: t / 4):
        ...     y = (a * a).sum()
        >>> y.backward()
        >>> a.grad
        tensor([2., 4.])
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        if _extensions.saved_hooks_disabled:
            raise RuntimeError(_extensions.saved_hooks_disabled[-1])
        _extensions.saved_hooks.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc_info):
        _extensions.saved_hooks.pop()


class save_on_cpu(saved_tensors_hooks):  # noqa: N801 - PyTorch's name
    """Saved tensors are moved to the CPU as they are saved and back to their device in backward
    (``pin_memory`` is accepted; minitorch has no pinned memory)."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda"):
        def pack_to_cpu(tensor):
            return tensor.device, tensor.cpu()

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack_to_cpu, unpack_from_cpu)


class disable_saved_tensors_hooks:  # noqa: N801 - PyTorch's name
    """While open, opening a ``saved_tensors_hooks`` context raises ``RuntimeError(error_message)``."""

    def __init__(self, error_message: str):
        self.error_message = error_message

    def __enter__(self):
        _extensions.saved_hooks_disabled.append(self.error_message)
        return self

    def __exit__(self, *exc_info):
        _extensions.saved_hooks_disabled.pop()

    def __call__(self, function):
        @functools.wraps(function)
        def disabled(*args, **kwargs):
            with disable_saved_tensors_hooks(self.error_message):
                return function(*args, **kwargs)

        return disabled
