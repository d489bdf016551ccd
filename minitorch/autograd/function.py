"""``Function``: an op with a forward and a backward, and the nodes of the backward graph it leaves behind.

Every differentiable op is a subclass of ``Function`` with two static methods::

    class Mul(Op):
        @staticmethod
        def forward(ctx, a, b):          # y = a * b
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, grad):         # da = grad * b,  db = grad * a
            a, b = ctx.saved_tensors
            return grad * b, grad * a

``Function.apply(*args)`` runs ``forward`` and, when any input requires grad and
recording is on, makes the ``ctx`` object into a *node* of the backward graph: the
output's ``grad_fn``. The node remembers where each input's gradient must go next
(``next_functions``) and what ``forward`` saved. ``backward`` is written with Tensor
operations, so running it while recording (``create_graph=True``) builds a graph of the
gradient itself: that is how gradients of gradients work.

Two flavours share this machinery:

* ``Function`` is PyTorch's: ``forward`` receives and returns Tensors. Subclass it for
  your own ops, exactly as in PyTorch.
* ``Op`` is for minitorch's built-in ops: ``forward`` receives the raw arrays (NumPy or
  CuPy) and returns arrays, which is faster and shows the math plainly. Its
  ``backward`` still works on Tensors.

The nodes (what ``grad_fn`` is) come first in this file, then ``Function`` and ``apply``, which
makes them. Every recorded op leaves one node behind. A node knows where the gradient of each of its
inputs must go next (``next_functions``: pairs ``(node, output_nr)``) and keeps what the op's
``forward`` saved for ``backward``. Three kinds:

* ``Node``: the common part, what ``grad_fn.next_functions`` and ``grad_fn.name()`` read.
* ``BackwardNode``: the node of one ``Function`` call. It is also the ``ctx`` that ``forward`` and
  ``backward`` receive: ``ctx.save_for_backward(a, b)`` in forward, ``a, b = ctx.saved_tensors`` in
  backward.
* ``AccumulateGrad``: the node at a leaf tensor; it adds the arriving gradient into ``leaf.grad``.

The graph points only from outputs to inputs (a node holds its inputs' nodes and its saved inputs,
never its outputs), so reference counting frees it as soon as the output is dropped.

What PyTorch adds around ``apply`` and the nodes (views brought up to date, devices joined, outputs
marked non-differentiable, anomaly mode's traceback, hooks, the error for a saved tensor changed in
place) is in ``_extensions.py``, called at named points.
"""

from __future__ import annotations

import functools
import itertools
import operator
import weakref

from numpy import asarray as _as_numpy_array, generic as _numpy_scalar, ndarray as _numpy_array

from .._device import CPU as _CPU
from .._dtype import FLOATING_NUMPY_DTYPES
from .._tensor_base import TensorBase as Tensor  # isinstance and _make: the graph knows no Tensor methods
from . import _extensions
from ._extensions import RemovableHandle as _RemovableHandle, common_device  # noqa: F401  (imported from here)
from .grad_mode import _AnomalyState, _GradState

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


class _ForwardOnlyContext:
    """The ``ctx`` of a call that records no graph: it accepts what forward stores, and nothing reads it back."""

    materialize_grads = True
    output_device = None
    _non_differentiable = ()
    needs_input_grad = ()

    # What forward stores is kept on this ctx and dropped with it (BackwardNode's methods: one place to read them).
    save_for_backward, mark_non_differentiable = BackwardNode.save_for_backward, BackwardNode.mark_non_differentiable

    def set_materialize_grads(self, value: bool) -> None:
        pass

    def mark_dirty(self, *tensors) -> None:
        pass


class Function:
    """A differentiable op you define: ``forward(ctx, *inputs)`` and ``backward(ctx, *grad_outputs)``.

    As in PyTorch, ``forward`` receives Tensors (gradient recording is off inside it) and
    returns a Tensor or a tuple of them; ``backward`` receives one gradient per output and
    returns one gradient per input of ``forward`` (``None`` for inputs that are not
    tensors or need none). Call it with ``MyFunction.apply(x, ...)``, never ``forward``.

        >>> import minitorch
        >>> class Cube(minitorch.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x)
        ...         return x ** 3
        ...     @staticmethod
        ...     def backward(ctx, grad):          # d(x^3)/dx = 3 x^2
        ...         (x,) = ctx.saved_tensors
        ...         return grad * 3 * x ** 2
        >>> x = minitorch.tensor(2.0, requires_grad=True)
        >>> Cube.apply(x).backward()
        >>> x.grad
        tensor(12.)
    """

    _forward_takes_arrays = False  # Op sets True: forward then computes on raw arrays
    # PyTorch's arithmetic (add, sub, mul, div) turns a Python number operand into a 0-d tensor
    # (a "wrapped number") before it runs, so ``(c + 1).grad_fn.next_functions`` lists the number
    # as an input with no history: ``(None, 0)``. An op that does the same sets this True.
    wraps_numbers = False
    _node_suffix = "Backward"
    _node_class = None
    is_view = False  # an op whose output shares its first input's memory (view, transpose, slicing)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        name = getattr(cls, "node_name", None) or cls.__name__ + cls._node_suffix
        cls._node_class = type(name, (BackwardNode,), {"_forward_class": cls, "__module__": cls.__module__})

    @staticmethod
    def forward(ctx, *args):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom autograd.Function "
            "to use it with backward mode AD."
        )

    @staticmethod
    def jvp(ctx, *grad_inputs):
        """Forward mode (``autograd.forward_ad``): the tangent of each output from the tangent of each input."""
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with forward mode AD."
        )

    @classmethod
    def apply(cls, *args):
        """Run ``forward`` on ``args`` and, if any input requires grad, record the node for backward."""
        # 1. Collect the inputs: their device, what forward receives, whether to record a node.
        device, args, inputs, needs_grad = _collect_inputs(args, cls._forward_takes_arrays)
        record = _GradState.enabled and True in needs_grad
        ctx = cls._node_class(needs_grad) if record else _ForwardOnlyContext()
        # 2. Run forward (``_run_forward``: a custom Function's, with recording off, or an Op's off the CPU).
        on_cpu_arrays = cls._forward_takes_arrays and device is _CPU
        raw = cls.forward(ctx, *inputs) if on_cpu_arrays else cls._run_forward(ctx, inputs, device)
        # 3. Wrap what forward returned as Tensors and, when recording, connect the node to the graph.
        device = ctx.output_device or device  # an op that moves data (``to``) names the device its result is on
        outputs = _wrap_outputs(cls, raw, device, args)
        if record:
            _connect(ctx, args, inputs, raw, outputs, device)
        return outputs

    @classmethod
    def _run_forward(cls, ctx, inputs, device):
        """``forward`` on Tensors, with recording off inside it (PyTorch's rule for a custom Function)."""
        previous, _GradState.enabled = _GradState.enabled, False
        try:
            if "setup_context" in cls.__dict__:  # PyTorch 2 style: forward(*args), then setup_context(ctx, ...)
                output = cls.forward(*inputs)
                cls.setup_context(ctx, inputs, output)
                return output
            return cls.forward(ctx, *inputs)
        finally:
            _GradState.enabled = previous


class Op(Function):
    """A built-in minitorch op: ``forward`` computes on raw arrays; ``backward`` on Tensors."""

    _forward_takes_arrays = True
    _node_suffix = "Backward0"

    @classmethod
    def _run_forward(cls, ctx, inputs, device):
        """``forward`` on arrays off the CPU, with their device current (CuPy computes on the current GPU)."""
        with device.backend.use_device(device.index):
            return cls.forward(ctx, *inputs)


# -- step 1: collect the inputs and decide whether to record -------------------------------------
def _collect_inputs(args, want_arrays: bool):
    """``(device, args, inputs, needs_grad)``: the tensors' device, ``forward``'s inputs, what requires grad."""
    device, needs_grad, arrays = None, [], []
    for arg in args:
        if isinstance(arg, Tensor):
            if (arg._base is not None and arg._base_history is not arg._base.grad_fn) or (
                    device is not None and arg._device is not device):  # a stale view; tensors on two devices
                return _extensions.collect_inputs(args, want_arrays)
            device = arg._device
            needs_grad.append(arg._requires_grad)
            arrays.append(arg._data)
        else:
            needs_grad.append(False)
            arrays.append(arg)
    return device or _CPU, args, arrays if want_arrays else args, tuple(needs_grad)


# -- step 3: wrap the outputs and connect the node -------------------------------------------
def _wrap_outputs(cls, raw, device, args):
    """What ``forward`` returned as Tensors: one Tensor for one output, a tuple for several."""
    if type(raw) is _numpy_array:  # the common case: one NumPy array from an Op
        return _wrap_view(raw, device, args[0]) if cls.is_view else Tensor._make(raw, device)
    if type(raw) is tuple:
        return tuple([_wrap_output(cls, value, device, args, index) for index, value in enumerate(raw)])
    return _wrap_output(cls, raw, device, args, 0)


def _wrap_view(value, device, base):
    """The output of a view op: it shares its base's memory, so its version counter too."""
    output = Tensor._make(value, device, version_counter=base._version_counter)
    output._base = root = base if base._base is None else base._base
    output._base_history, output._view_made_without_grad = root.grad_fn, not _GradState.enabled
    return output


def _wrap_output(cls, value, device, args, index):
    """One output of ``forward`` as a Tensor (a NumPy scalar becomes a 0-d array first)."""
    if value is None or isinstance(value, Tensor):
        return _extensions.returned_by_function(value, device, args)  # a custom Function's forward gives Tensors
    if isinstance(value, _numpy_scalar):
        value = _as_numpy_array(value)
    return _wrap_view(value, device, args[0]) if cls.is_view and index == 0 else Tensor._make(value, device)


def _connect(ctx, args, inputs, raw, outputs, device):
    """Make ``ctx`` the node of ``outputs``: its edges, the outputs' ``grad_fn``, what ``forward`` saved."""
    if type(raw) is not tuple:
        raw, outputs = (raw,), (outputs,)
    ctx._device = device
    ctx.next_functions, ctx._input_meta, ctx._tensor_positions = _edges(ctx, args)
    for output_nr, output in enumerate(outputs):  # floating outputs get ctx as their grad_fn
        if output is not None and output._data.dtype in FLOATING_NUMPY_DTYPES:
            output._requires_grad, output.grad_fn, output._output_nr = True, ctx, output_nr
    if len(outputs) > 1 or ctx._non_differentiable or _AnomalyState.enabled:
        _extensions.after_forward(ctx, raw, outputs)  # mark_non_differentiable, several outputs, detect_anomaly
    if ctx._to_save:
        saved = [_saved_tensor(value, args, inputs, raw, outputs) for value in ctx._to_save]
        ctx._saved, ctx._to_save = _extensions.pack_saved(ctx, saved) if _extensions.saved_hooks else saved, ()


def _edges(ctx, args):
    """``next_functions``, each input's ``(shape, dtype)`` and which arguments are inputs (``None``: all)."""
    next_functions, input_meta, positions = [], [], []
    for position, arg in enumerate(args):
        if ctx._needs_input_grad[position]:  # a tensor that requires grad: to its maker's node, or its leaf's
            next_functions.append((arg.grad_fn, arg._output_nr) if arg.grad_fn else (leaf_accumulator(arg), 0))
            input_meta.append((arg._data.shape, arg._data.dtype))
            positions.append(position)
        elif isinstance(arg, Tensor) or (ctx._forward_class.wraps_numbers and type(arg) in _WRAPPED_NUMBER_TYPES):
            next_functions.append((None, 0))  # no gradient: a tensor that needs none, or a wrapped number
            input_meta.append(None)
            positions.append(position)
    return tuple(next_functions), tuple(input_meta), None if len(positions) == len(args) else tuple(positions)


_WRAPPED_NUMBER_TYPES = (int, float, bool, complex)


def _saved_tensor(value, args, inputs, raw_outputs, outputs):
    """One saved value as a ``SavedTensor``: one of the op's outputs or inputs, else a constant."""
    for output_nr, raw in enumerate(raw_outputs):
        if value is raw and outputs[output_nr].grad_fn is not None:  # only its array: the node never holds its output
            return SavedTensor("output", outputs[output_nr]._data, output_nr, outputs[output_nr]._version_counter)
    for position, given in enumerate(inputs):
        if value is given and isinstance(args[position], Tensor):
            return SavedTensor("input", args[position], args[position]._output_nr, args[position]._version_counter)
    return SavedTensor(*_extensions.saved_otherwise(value, raw_outputs, outputs))  # a mask, a number, None...


def once_differentiable(backward):
    """Mark a ``backward`` that cannot itself be differentiated (it works on raw arrays).

    It runs without recording; under ``create_graph=True`` its results carry a node that
    raises a clear error if anything tries to differentiate through them.
    """

    @functools.wraps(backward)
    def wrapper(ctx, *grad_outputs):
        recording = _GradState.enabled
        previous, _GradState.enabled = _GradState.enabled, False
        try:
            results = backward(ctx, *grad_outputs)
        finally:
            _GradState.enabled = previous
        if not recording or not any(isinstance(g, Tensor) and g.requires_grad for g in grad_outputs):
            return results
        single = not isinstance(results, tuple)
        # Like PyTorch: each result becomes a fresh leaf that requires grad, passed through a node
        # whose backward raises, so the error comes only if something differentiates through it.
        wrapped = tuple(
            _OnceDifferentiableError.apply(r.detach().requires_grad_(), ctx.name())
            if isinstance(r, Tensor) and r.is_floating_point() else r
            for r in ((results,) if single else results)
        )
        return wrapped[0] if single else wrapped

    return wrapper


class _OnceDifferentiableError(Op):
    node_name = "Error"  # PyTorch's name for this node

    @staticmethod
    def forward(ctx, value, op_name):
        ctx.op_name = op_name
        return value

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("trying to differentiate twice a function that was marked with @once_differentiable")



def _first_order_only(backward):
    """``once_differentiable``, and stricter: under ``create_graph=True`` every gradient it returns is marked.

    ``once_differentiable`` marks its results only when an incoming gradient requires grad.
    For the fused ops on arrays (``ops/recurrent.py``, ``ops/ctc.py``) the saved inputs carry the
    dependence on the inputs too, so a gradient of a gradient would silently miss terms; marking
    the results makes any attempt to differentiate through them raise PyTorch's
    once_differentiable error instead.
    """
    first_order = once_differentiable(backward)

    @functools.wraps(backward)
    def wrapper(ctx, *grad_outputs):
        results = first_order(ctx, *grad_outputs)
        if not _GradState.enabled:
            return results
        return tuple(
            _OnceDifferentiableError.apply(result.detach().requires_grad_(), ctx.name())
            if isinstance(result, Tensor) and not result.requires_grad else result
            for result in results
        )

    return wrapper


