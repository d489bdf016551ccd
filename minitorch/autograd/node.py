"""The nodes of the backward graph: what ``grad_fn`` is.

Every recorded op leaves one node behind. A node knows where the gradient of each of its
inputs must go next (``next_functions``: pairs ``(node, output_nr)``) and keeps what the
op's ``forward`` saved for ``backward``. Three kinds:

* ``Node``: the common part, what ``grad_fn.next_functions`` and ``grad_fn.name()`` read.
* ``BackwardNode``: the node of one ``Function`` call. It is also the ``ctx`` that
  ``forward`` and ``backward`` receive: ``ctx.save_for_backward(a, b)`` in forward,
  ``a, b = ctx.saved_tensors`` in backward.
* ``AccumulateGrad``: the node at a leaf tensor; it adds the arriving gradient into
  ``leaf.grad``.

The graph points only from outputs to inputs (a node holds its inputs' nodes and its saved
inputs, never its outputs), so reference counting frees it as soon as the output is dropped.
PyTorch's extras on a node (hooks, the error for a saved tensor changed in place) are in
``_extensions.py``.
"""

from __future__ import annotations

import itertools
import operator
import weakref

from .._tensor_base import TensorBase as Tensor  # isinstance and _make: the graph knows no Tensor methods
from . import _extensions
from ._extensions import RemovableHandle as _RemovableHandle
from .grad_mode import _GradState

_sequence_counter = itertools.count()


class Node:
    """One step of the backward graph (``grad_fn``): gradients in, gradients out.

    ``next_functions`` pairs each differentiable input with the node that receives its
    gradient (``(None, 0)`` for inputs that need none). Nodes are numbered in creation order;
    the engine runs later nodes first when several are ready, as PyTorch's does.
    """

    next_functions: tuple = ()
    # What PyTorch adds (``_extensions.py``) is rare: class-level defaults, and one flag the engine checks.
    _extras = False  # True once a hook is registered on the node (or its tensor): the engine calls _extensions
    _pre_hooks: tuple = ()
    _post_hooks: tuple = ()
    _tensor_pre_hooks = None
    _output_count = 1  # how many outputs its op has (gradient slots in the engine's buffer)
    _output_meta = None  # (shape, dtype) per output, kept only for nodes with several outputs
    materialize_grads = True
    _is_accumulator = False

    def name(self) -> str:
        return type(self).__name__

    def _sequence_nr(self) -> int:
        return self._sequence_number

    @property
    def metadata(self) -> dict:
        return self.__dict__.setdefault("_metadata", {})

    def register_hook(self, hook):
        """``hook(grad_inputs, grad_outputs)`` runs after this node's backward; it may return new grad_inputs."""
        self.__dict__.setdefault("_post_hooks", []).append(hook)
        self._extras = True
        return _RemovableHandle(self._post_hooks, hook)

    def register_prehook(self, hook):
        """``hook(grad_outputs)`` runs before this node's backward; it may return new grad_outputs."""
        self.__dict__.setdefault("_pre_hooks", []).append(hook)
        self._extras = True
        return _RemovableHandle(self._pre_hooks, hook)

    def __repr__(self) -> str:
        # As Python prints objects: ``<AccumulateGrad object at ...>``, though ``name()`` is PyTorch's C++ name.
        return f"<{type(self).__name__} object at {hex(id(self))}>"


class AccumulateGrad(Node):
    """The node at a leaf tensor: it adds the gradient that arrives into ``leaf.grad``."""

    _sequence_number = 2**63 - 1  # PyTorch gives accumulators the highest priority too
    _is_accumulator = True
    _input_meta, _needs_input_grad, _tensor_positions = (), (), None  # no inputs: its backward passes nothing on

    def __init__(self, variable):
        self.variable = variable
        # the leaf's tensor hooks (autograd/hooks.py) and post-accumulate hooks: the engine calls _extensions
        self._extras = variable._backward_hooks is not None or variable._post_accumulate_hooks is not None

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def apply(self, grad) -> tuple:
        """``leaf.grad += grad`` (a copy the first time: two leaves may receive the same gradient tensor); a leaf
        has no inputs, so no gradient goes on. Under ``create_graph=True`` (recording on) ``.grad`` keeps its graph."""
        leaf = self.variable
        if leaf._grad is None:
            leaf._grad = grad if _GradState.enabled else Tensor._make(grad._data.copy(), grad._device)
        elif _GradState.enabled or leaf._grad._requires_grad:
            leaf._grad = leaf._grad + grad
        else:
            leaf._grad._data += grad._data
        return ()


def leaf_accumulator(tensor) -> AccumulateGrad:
    """The leaf's ``AccumulateGrad`` node, shared by every graph that uses the leaf (weakly cached)."""
    node = tensor._accumulator_ref() if tensor._accumulator_ref is not None else None
    if node is None:
        node = AccumulateGrad(tensor)
        tensor._accumulator_ref = weakref.ref(node)
    return node


class SavedTensor:
    """One value that ``forward`` saved, with the version its tensor had then.

    ``kind`` is "input" (kept as that Tensor), "output" (only its array is kept: the Tensor is
    rebuilt on unpacking with the node as ``grad_fn``, so a node never points at its own
    output) or "constant" (anything else; no gradient flows through it).
    """

    __slots__ = ("kind", "value", "output_nr", "version_counter", "version")

    def __init__(self, kind, value, output_nr, version_counter):
        self.kind, self.value, self.output_nr, self.version_counter = kind, value, output_nr, version_counter
        self.version = version_counter[0]


class BackwardNode(Node):
    """The node (and ``ctx``) of one ``Function`` call; ``forward`` stores on it what ``backward`` needs."""

    _forward_class = None  # the Function subclass whose backward this node runs
    output_device = None  # set by a forward whose outputs live on another device than its inputs
    _to_save = ()
    _saved = None
    _released = False
    _non_differentiable = ()
    _tensor_positions = None  # which arguments are inputs, when some are not (numbers, settings)
    needs_input_grad = property(operator.attrgetter("_needs_input_grad"))  # read-only, as in PyTorch

    def __init__(self, needs_input_grad: tuple):
        self._sequence_number = next(_sequence_counter)
        self._needs_input_grad = needs_input_grad  # per argument of the call: does it require grad?

    # -- what forward calls -------------------------------------------------------------------
    def save_for_backward(self, *values) -> None:
        """Keep tensors (or, in an ``Op``, arrays) for ``backward``; read them back as ``saved_tensors``."""
        self._to_save = values

    def mark_non_differentiable(self, *outputs) -> None:
        """Outputs that never get a gradient (indices, masks): they come back with ``requires_grad=False``."""
        self._non_differentiable = outputs

    def set_materialize_grads(self, value: bool) -> None:
        """When False, ``backward`` gets ``None`` rather than zeros for outputs that received no gradient."""
        self.materialize_grads = value

    def mark_dirty(self, *tensors) -> None:
        """Accepted for PyTorch compatibility; minitorch's in-place ops track versions themselves."""

    # -- what backward calls ------------------------------------------------------------------
    @property
    def saved_tensors(self) -> tuple:
        """The values ``forward`` saved, each checked against later in-place changes."""
        if self._released:
            _extensions.raise_saved_tensors_freed()  # a second backward without retain_graph=True
        return tuple([self._unpack(saved) for saved in self._saved or ()])

    def _unpack(self, saved):
        if saved.version_counter[0] != saved.version:  # changed in place (PyTorch's error), or packed by hooks
            return _extensions.unpack_checked(self, saved)
        if saved.kind == "output":
            return Tensor._make(saved.value, self._device, requires_grad=True, grad_fn=self,
                                output_nr=saved.output_nr, version_counter=saved.version_counter)
        return saved.value

    def __getattr__(self, name):
        """PyTorch's ``grad_fn._saved_self``, ``_saved_result``, ``_raw_saved_other``... (only reached for a
        name the node does not have)."""
        return _extensions.saved_by_name(self, name)

    def apply(self, *grad_outputs):
        """Run the forward class's backward on this node (the engine's step)."""
        return self._forward_class.backward(self, *grad_outputs)
