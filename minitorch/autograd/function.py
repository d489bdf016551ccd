"""``Function``: an op with a forward and a backward, and the graph node it leaves behind.

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

The graph points only from outputs to inputs (a node holds its inputs' nodes and its
saved inputs, never its outputs), so plain reference counting frees it when the output
is dropped, without waiting for Python's cycle collector.
"""

from __future__ import annotations

import functools
import itertools
import traceback
import weakref

from numpy import asarray as _as_numpy_array, generic as _numpy_scalar, ndarray as _numpy_array

from .._device import CPU as _CPU
from .._dtype import from_numpy_dtype
from .._tensor_base import TensorBase as Tensor  # isinstance and _make: the graph knows no Tensor methods
from .grad_mode import _AnomalyState, _GradState

_sequence_counter = itertools.count()


class Node:
    """One step of the backward graph (``grad_fn``): gradients in, gradients out.

    ``next_functions`` pairs each differentiable input with the node that receives its
    gradient (``(node, output_nr)``; ``None`` for inputs that need no gradient).
    Nodes are numbered in creation order (``_sequence_nr()``); the engine runs later
    nodes first when several are ready, as PyTorch's does.
    """

    next_functions: tuple = ()
    # Hooks are rare: class-level defaults keep the engine's per-node checks cheap.
    _pre_hooks: tuple = ()
    _post_hooks: tuple = ()
    _tensor_pre_hooks = None
    _output_meta = None  # (shape, dtype) per output, kept only for nodes with several outputs
    materialize_grads = True

    def name(self) -> str:
        return type(self).__name__

    def _sequence_nr(self) -> int:
        return self._sequence_number

    @property
    def metadata(self) -> dict:
        if "_metadata" not in self.__dict__:
            self._metadata = {}
        return self._metadata

    def register_hook(self, hook):
        """``hook(grad_inputs, grad_outputs)`` runs after this node's backward; it may return new grad_inputs."""
        self.__dict__.setdefault("_post_hooks", []).append(hook)
        return _RemovableHandle(self._post_hooks, hook)

    def register_prehook(self, hook):
        """``hook(grad_outputs)`` runs before this node's backward; it may return new grad_outputs."""
        self.__dict__.setdefault("_pre_hooks", []).append(hook)
        return _RemovableHandle(self._pre_hooks, hook)

    def __repr__(self) -> str:
        # The class name, as Python (and PyTorch) print objects: ``<AccumulateGrad object at ...>``,
        # though ``name()`` of that node is the C++ ``torch::autograd::AccumulateGrad``.
        return f"<{type(self).__name__} object at {hex(id(self))}>"


class _RemovableHandle:
    """Returned by ``register_hook``: ``handle.remove()`` takes the hook off again."""

    def __init__(self, hooks, hook, key=None):
        self.hooks, self.hook, self.key = hooks, hook, key

    def remove(self) -> None:
        try:
            if self.key is None:
                self.hooks.remove(self.hook)
            else:
                del self.hooks[self.key]
        except (ValueError, KeyError):
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.remove()


class AccumulateGrad(Node):
    """The node at a leaf tensor: it adds the gradient that arrives into ``leaf.grad``.

    The engine calls ``accumulate`` rather than a backward, after running the leaf's
    tensor hooks (``register_hook``), which may replace the gradient.
    """

    def __init__(self, variable):
        self.variable = variable
        self._sequence_number = 2**63 - 1  # PyTorch gives accumulators the highest priority too

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def accumulate(self, grad, keep_graph_of_grad: bool) -> None:
        """``leaf.grad += grad`` (a fresh copy the first time, so no two leaves share one array)."""
        variable = self.variable
        if variable._grad is None:
            variable._grad = grad if keep_graph_of_grad else grad._detached_copy()
        elif keep_graph_of_grad or variable._grad.requires_grad:
            variable._grad = variable._grad + grad
        else:
            variable._grad._data += grad._data
        for hook in variable._post_accumulate_hooks or ():
            hook(variable)


class _SavedRecord:
    """One tensor that ``forward`` saved, with the version it had then.

    ``kind`` is "input" (one of the op's inputs, kept as that Tensor), "output" (one of
    the op's outputs: only its array is kept, and the Tensor is rebuilt on unpacking with
    this node as ``grad_fn``, so the node never points at its own output) or "constant"
    (anything else; no gradient flows through it).
    """

    __slots__ = ("kind", "value", "output_nr", "version_counter", "version")

    def __init__(self, kind, value, output_nr, version_counter):
        self.kind, self.value, self.output_nr = kind, value, output_nr
        self.version_counter = version_counter
        self.version = version_counter[0]


class BackwardNode(Node):
    """The node (and ``ctx``) of a ``Function`` call; ``forward`` stores on it what ``backward`` needs."""

    _forward_class = None  # the Function subclass whose backward this node runs
    output_device = None  # set by a forward whose outputs live on another device than its inputs
    # Per-node state starts at these class defaults; forward and the engine set what they need.
    _to_save = ()
    _saved = None
    _released = False
    _non_differentiable = ()

    def __init__(self):
        self._sequence_number = next(_sequence_counter)

    # -- what forward calls -------------------------------------------------------
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

    # -- what backward calls ------------------------------------------------------
    @property
    def saved_tensors(self) -> tuple:
        """The tensors saved by ``forward``, checked against later in-place changes."""
        if self._released:
            raise RuntimeError(
                "Trying to backward through the graph a second time (or directly access saved tensors after they "
                "have already been freed). Saved intermediate values of the graph are freed when you call "
                ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
                "graph a second time or if you need to access saved tensors after calling backward."
            )
        if not self._saved:
            return ()
        return tuple(self._unpack(record) for record in self._saved)

    def _unpack(self, record):
        if record is None:
            return None
        if record.version_counter[0] != record.version:
            value = record.value
            data = value._data if isinstance(value, Tensor) else value
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an inplace operation: "
                f"[{_type_string(data, self)}{list(data.shape)}], which is output {record.output_nr} of "
                f"{self.name() if record.kind == 'output' else _producer_name(value)}, is at version "
                f"{record.version_counter[0]}; expected version {record.version} instead. Hint: the backtrace "
                "further above can help find the operation that failed to compute its gradient; enable "
                "minitorch.autograd.set_detect_anomaly(True) to see it."
            )
        if record.kind == "output":
            return Tensor._make(
                record.value, self._device, requires_grad=True, grad_fn=self,
                output_nr=record.output_nr, version_counter=record.version_counter,
            )
        return record.value

    def _release_saved(self) -> None:
        """Drop the saved tensors so their memory is freed once backward is done."""
        self._saved = None
        self._released = True

    @property
    def needs_input_grad(self) -> tuple:
        return self._needs_input_grad

    def apply(self, *grad_outputs):
        """Run the forward class's backward on this node (the engine's per-node step)."""
        return self._forward_class.backward(self, *grad_outputs)

    def name(self) -> str:
        return type(self).__name__


def _producer_name(tensor) -> str:
    grad_fn = getattr(tensor, "grad_fn", None)
    return grad_fn.name() if grad_fn is not None else "a leaf tensor (AsStridedBackward0)"


def _type_string(data, node) -> str:
    device_part = "cuda." if getattr(node, "_device", None) is not None and node._device.type == "cuda" else ""
    return f"torch.{device_part}{from_numpy_dtype(data.dtype).type_name}Tensor "


class _ForwardOnlyContext:
    """The ``ctx`` of a call that records no graph: it accepts what forward stores and keeps no tensors."""

    materialize_grads = True
    output_device = None

    def save_for_backward(self, *values) -> None:
        pass

    def mark_non_differentiable(self, *outputs) -> None:
        self._non_differentiable = outputs

    def set_materialize_grads(self, value: bool) -> None:
        pass

    def mark_dirty(self, *tensors) -> None:
        pass

    _non_differentiable = ()
    needs_input_grad = ()


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

    @classmethod
    def apply(cls, *args):
        """Run ``forward`` on ``args`` and, if any input requires grad, record the node for backward.

        The three steps of every op in the kit (the details live in the helpers named here):

        1. Collect the inputs (``_collect_inputs``): the device they share, the values
           ``forward`` receives, and whether to record a node: some input requires grad
           and recording is on (``no_grad`` turns it off).
        2. Run ``forward`` (``_run_forward``: on raw arrays for an ``Op``, on Tensors with
           recording off for a ``Function``).
        3. Wrap what ``forward`` returned as Tensors (``_wrap_outputs``) and, when recording,
           connect the node to the graph (``_connect``): the outputs get it as ``grad_fn``,
           it gets edges to the inputs' nodes and the tensors ``forward`` saved.
        """
        device, args, inputs, record = _collect_inputs(args, cls._forward_takes_arrays)
        ctx = _new_node(cls, args) if record else _ForwardOnlyContext()

        raw = cls._run_forward(ctx, inputs, device)

        if ctx.output_device is not None:  # an op that moves data (``to``) names the device its result is on
            device = ctx.output_device
        outputs = _wrap_outputs(cls, raw, device, args)
        if record:
            _connect(ctx, args, inputs, raw, outputs, device)
        return outputs

    @classmethod
    def _run_forward(cls, ctx, inputs, device):
        """``forward`` on Tensors, with recording off inside it (PyTorch's rule for a custom Function)."""
        previous, _GradState.enabled = _GradState.enabled, False
        try:
            setup_context = cls.__dict__.get("setup_context")
            if setup_context is not None:  # PyTorch 2 style: forward(*args) then setup_context(ctx, inputs, output)
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
        """``forward`` on the raw arrays, with the inputs' device current (CuPy computes on the current GPU)."""
        if device is _CPU:
            return cls.forward(ctx, *inputs)
        with device.backend.use_device(device.index):
            return cls.forward(ctx, *inputs)


# -- step 1: collect the inputs and decide whether to record -------------------------------------
def _collect_inputs(args, want_arrays: bool):
    """``(device, args, inputs, record)`` for ``Function.apply``.

    ``device`` is the one device the tensors share (CPU when there are none), ``inputs`` what
    ``forward`` receives (each tensor's array for an ``Op``; ``args`` themselves for a
    ``Function``), ``record`` whether a node is recorded. A view whose base was written in
    place since it was made is brought up to date first (``_refresh_if_stale``). Tensors on
    different devices go to ``_join_devices``, which also gives back new ``args``.

    This is the hottest loop of the kit: one pass over the arguments does all four jobs.
    """
    device = None
    requires_grad = False
    arrays = []
    for arg in args:
        if isinstance(arg, Tensor):
            if arg._base is not None:
                _refresh_if_stale(arg)
            if device is None:
                device = arg._device
            elif arg._device is not device:
                return _collect_across_devices(args, want_arrays)
            if arg._requires_grad:
                requires_grad = True
            arrays.append(arg._data)
        else:
            arrays.append(arg)
    return (
        device if device is not None else _CPU,
        args,
        arrays if want_arrays else args,
        requires_grad and _GradState.enabled,
    )


def _collect_across_devices(args, want_arrays: bool):
    """``_collect_inputs`` for tensors on several devices: 0-d CPU tensors join the others' device
    (``_join_devices``), anything else raises PyTorch's device mismatch error."""
    device, args = _join_devices(args)
    requires_grad = any(isinstance(a, Tensor) and a._requires_grad for a in args)
    inputs = [a._data if isinstance(a, Tensor) else a for a in args] if want_arrays else args
    return device, args, inputs, requires_grad and _GradState.enabled


def _refresh_if_stale(view) -> None:
    """A view whose base was written in place after the view's history was recorded reads its
    history again from the base's current one (``ops/copy_slices.py``), if recording.
    A view made without recording keeps none (PyTorch's rule)."""
    if view._base_history is not view._base.grad_fn and _GradState.enabled and not view._view_made_without_grad:
        from ..ops.copy_slices import refresh_view  # ops sit above autograd: imported when first needed

        refresh_view(view)


def _new_node(cls, args):
    """The node (``ctx``) of a call that records: it knows which inputs need a gradient before forward runs."""
    ctx = cls._node_class()
    ctx._needs_input_grad = tuple([isinstance(a, Tensor) and a._requires_grad for a in args])
    return ctx


# -- step 3: wrap the outputs and connect the node -------------------------------------------
def _wrap_outputs(cls, raw, device, args):
    """What ``forward`` returned as Tensors: one Tensor for one output, a tuple for several."""
    if type(raw) is tuple:
        return tuple([_wrap_output(cls, value, device, args, index) for index, value in enumerate(raw)])
    if type(raw) is _numpy_array and not cls.is_view:
        return Tensor._make(raw, device)  # the common case: a fresh NumPy array (from an Op) just needs wrapping
    return _wrap_output(cls, raw, device, args, 0)


_WRAPPED_NUMBER_TYPES = (int, float, bool, complex)


def _is_input(node, arg) -> bool:
    """Whether ``arg`` has an entry in ``node.next_functions``: a tensor, or a number the op wraps."""
    return isinstance(arg, Tensor) or (node._forward_class.wraps_numbers and type(arg) in _WRAPPED_NUMBER_TYPES)


def _wrap_output(cls, value, device, args, index):
    """One output of ``forward`` as a Tensor: a view shares its base's version counter; an input
    returned as it is gets an identity of its own."""
    if isinstance(value, Tensor):  # a Function's forward returned a Tensor
        for arg in args:
            if value is arg:  # it returned an input: give the output its own identity
                return Tensor._make(value._data, device, version_counter=value._version_counter)
        return value
    if value is None:
        return None
    if isinstance(value, _numpy_scalar):  # NumPy gives 0-d results as scalars (np.float64); a tensor holds an array
        value = _as_numpy_array(value)
    if cls.is_view and index == 0:
        base = args[0]
        output = Tensor._make(value, device, version_counter=base._version_counter)
        output._base = root = base if base._base is None else base._base
        output._base_history, output._view_made_without_grad = root.grad_fn, not _GradState.enabled
        return output
    return Tensor._make(value, device)


def _connect(ctx, args, inputs, raw, outputs, device):
    """Make ``ctx`` the node that produced ``outputs``: edges to the inputs, the outputs' ``grad_fn``,
    and the tensors ``forward`` saved. ``raw``/``outputs`` are one value each or tuples of them."""
    if type(raw) is not tuple:
        raw, outputs = (raw,), (outputs,)
    ctx._device = device

    # The edges: for each tensor input, the node its gradient goes to ((None, 0) if it needs none),
    # and its shape and dtype, to which the engine reduces the gradient.
    next_functions = []
    input_meta = []
    for arg in args:
        if isinstance(arg, Tensor):
            if arg._requires_grad:
                grad_fn = arg.grad_fn
                next_functions.append((grad_fn, arg._output_nr) if grad_fn is not None else (_leaf_accumulator(arg), 0))
                input_meta.append((arg._data.shape, arg._data.dtype))
            else:
                next_functions.append((None, 0))
                input_meta.append(None)
        elif ctx._forward_class.wraps_numbers and type(arg) in _WRAPPED_NUMBER_TYPES:
            # a wrapped number: an input that needs no gradient
            next_functions.append((None, 0))
            input_meta.append(None)
    ctx.next_functions = tuple(next_functions)
    ctx._input_meta = tuple(input_meta)
    # backward returns one gradient per argument; the engine keeps those of the tensor arguments
    ctx._tensor_positions = (
        None if len(next_functions) == len(args) else tuple(i for i, a in enumerate(args) if _is_input(ctx, a))
    )

    # The outputs: each floating one that was not marked non-differentiable gets ``ctx`` as grad_fn.
    non_differentiable = ctx._non_differentiable
    for output_nr, output in enumerate(outputs):
        if output is None or output._data.dtype.kind not in "fc":
            continue
        if non_differentiable and any(raw[output_nr] is marked for marked in non_differentiable):
            continue
        output._requires_grad = True
        output.grad_fn = ctx
        output._output_nr = output_nr
    if len(outputs) > 1:
        ctx._output_meta = tuple(None if o is None else (o._data.shape, o._data.dtype) for o in outputs)

    # What forward saved: each value classified as an input, an output or a constant.
    if ctx._to_save:
        ctx._saved = [_record(value, args, inputs, raw, outputs) for value in ctx._to_save]
        ctx._to_save = ()
    if _AnomalyState.enabled:
        ctx._forward_trace = "".join(traceback.format_stack()[:-3])


def _record(value, args, inputs, raw_outputs, outputs):
    """Classify one saved value as an input, an output, or a constant (see ``_SavedRecord``)."""
    if value is None:
        return None
    for output_nr, raw in enumerate(raw_outputs):
        if value is raw:
            output = outputs[output_nr]
            if output.grad_fn is None:  # a non-differentiable output: save it as a plain constant
                return _SavedRecord("constant", output, output_nr, output._version_counter)
            return _SavedRecord("output", output._data, output_nr, output._version_counter)
    for position, given in enumerate(inputs):
        if value is given and isinstance(args[position], Tensor):
            tensor = args[position]
            return _SavedRecord("input", tensor, tensor._output_nr, tensor._version_counter)
    if isinstance(value, Tensor):
        return _SavedRecord("input", value, value._output_nr, value._version_counter)
    if hasattr(value, "shape") and hasattr(value, "dtype"):  # an array computed in forward (a mask, a norm...)
        constant = Tensor._make(value, outputs[0]._device)
        return _SavedRecord("constant", constant, 0, constant._version_counter)
    return _SavedRecord("constant", value, 0, _CONSTANT_VERSION)  # a Python number or other setting


_CONSTANT_VERSION = [0]


def common_device(tensors):
    """The one device that ``tensors`` share, or PyTorch's error naming the first two that differ.

    PyTorch's one exception: a 0-d CPU tensor acts like a Python number and may join an op
    on any device (``x_on_gpu * torch.tensor(2.0)``); the result stays on the other device.
    """
    device = None
    for tensor in tensors:
        if isinstance(tensor, Tensor) and not (tensor._data.ndim == 0 and tensor._device is _CPU):
            if device is None:
                device = tensor._device
            elif tensor._device is not device:
                _raise_device_mismatch(device, tensor._device)
    return device if device is not None else _CPU


def _join_devices(args):
    """Move 0-d CPU tensors to the device of the other tensors (differentiably), or raise the mismatch."""
    device = common_device(args)
    from ..ops.conversion import to  # ops sit above autograd: imported when first needed

    moved = tuple(to(a, device) if isinstance(a, Tensor) and a._device is not device else a for a in args)
    return device, moved


def _raise_device_mismatch(first, second):
    raise RuntimeError(
        "Expected all tensors to be on the same device, but found at least two devices, "
        f"{first} and {second}!"
    )


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


def _leaf_accumulator(tensor):
    """The leaf's AccumulateGrad node, shared by every graph that uses the leaf (weakly cached)."""
    reference = tensor._accumulator_ref
    node = reference() if reference is not None else None
    if node is None:
        node = AccumulateGrad(tensor)
        tensor._accumulator_ref = weakref.ref(node)
    return node
