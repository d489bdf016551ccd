"""Activation checkpointing, as ``torch.utils.checkpoint``: trade compute for memory.

Backward needs what forward saved (a layer's input, an activation's output). ``checkpoint(fn, *args)``
keeps none of what ``fn`` saves: only its inputs. When backward first needs one of those tensors, it
runs ``fn`` again on the same inputs (with the random state forward had, so dropout draws the same
mask) and takes the tensors from that second run. Peak memory drops from every activation of the
block to its inputs, for one more forward pass of the block.

Two ways to do it, both PyTorch's:

* ``use_reentrant=False`` (recommended): forward runs inside ``autograd.graph.saved_tensors_hooks``
  whose pack hook keeps an empty *holder* in place of each saved tensor. The first unpack in
  backward runs ``fn`` again under a second pair of hooks that drops each tensor recomputed, in
  order, into its holder; the graph of forward is used as it is, only its saved tensors come back.
* ``use_reentrant=True``: the whole block is one ``autograd.Function`` whose forward runs ``fn``
  without recording. Its backward runs ``fn`` again with recording on and calls ``backward`` on
  that fresh graph from inside the outer backward (re-entering the engine).

``checkpoint_sequential(model, segments, input)`` checkpoints a ``Sequential`` segment by segment
(all segments but the last).
"""

from __future__ import annotations

import contextlib
import warnings
import weakref

from .. import _random, random
from .._tensor import Tensor
from ..autograd import backward as _backward
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, is_grad_enabled, no_grad
from ..autograd.graph import saved_tensors_hooks
from ..cuda import get_rng_state as _cuda_get_rng_state, set_rng_state as _cuda_set_rng_state
from ..nn import Sequential

__all__ = ["CheckpointError", "checkpoint", "checkpoint_sequential", "detach_variable"]


class CheckpointError(RuntimeError):
    """The tensors saved while recomputing differ from those saved by the original forward."""


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


def detach_variable(inputs):
    """Each tensor of ``inputs`` detached, keeping its ``requires_grad`` (PyTorch's helper of the same name)."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    out = []
    for inp in inputs:
        if not isinstance(inp, Tensor):
            out.append(inp)
            continue
        x = inp.detach()
        x.requires_grad = inp.requires_grad
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs) -> None:
    if not any(isinstance(inp, Tensor) and inp.requires_grad for inp in inputs):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=3)


# -- the random state forward had ---------------------------------------------------------------------
class _RandomState:
    """The CPU generator's state (and that of each GPU an input is on) when forward ran; ``replay()`` runs
    the recomputation from it and puts the surrounding state back afterwards."""

    def __init__(self, args, enabled: bool):
        self.enabled = enabled
        self.devices = sorted({a.device.index or 0 for a in args if isinstance(a, Tensor) and a.device.type == "cuda"})
        if enabled:
            self.cpu_state = _random.get_rng_state()
            self.device_states = [_cuda_get_rng_state(f"cuda:{index}") for index in self.devices]

    @contextlib.contextmanager
    def replay(self):
        with random.fork_rng(devices=self.devices, enabled=self.enabled, device_type="cuda"):
            if self.enabled:
                _random.set_rng_state(self.cpu_state)
                for index, state in zip(self.devices, self.device_states):
                    _cuda_set_rng_state(state, f"cuda:{index}")
            yield


# -- use_reentrant=True: one Function around the block ----------------------------------------------------
class CheckpointFunction(Function):
    """Forward: ``fn`` without recording, keeping its tensor inputs. Backward: ``fn`` again with recording
    on detached inputs, then ``backward`` on that graph; the inputs' ``.grad`` are the gradients returned."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function, ctx.random_state = run_function, _RandomState(args, preserve_rng_state)
        ctx.inputs = [None if isinstance(arg, Tensor) else arg for arg in args]
        ctx.tensor_indices = [i for i, arg in enumerate(args) if isinstance(arg, Tensor)]
        ctx.save_for_backward(*[arg for arg in args if isinstance(arg, Tensor)])
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grad_outputs):
        inputs = list(ctx.inputs)
        for index, tensor in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[index] = tensor
        with ctx.random_state.replay():
            detached = detach_variable(tuple(inputs))
            with enable_grad():
                outputs = ctx.run_function(*detached)
        outputs = (outputs,) if isinstance(outputs, Tensor) else outputs
        pairs = [(out, grad) for out, grad in zip(outputs, grad_outputs)
                 if isinstance(out, Tensor) and out.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        _backward([out for out, _ in pairs], [grad for _, grad in pairs])
        return (None, None) + tuple(inp.grad if isinstance(inp, Tensor) else None for inp in detached)


# -- use_reentrant=False: saved-tensor hooks that drop and recompute -----------------------------------------
class _Holder:
    """Stands in, in the graph, for one tensor the block saved; the recomputation fills ``holders[self]``."""


class _Frame:
    """One checkpointed call: how to run it again, the holders forward left (weakly: a node freed by backward
    frees its holder, and that tensor is not recomputed), and the recomputed tensors waiting to be unpacked."""

    def __init__(self, recompute, args, kwargs):
        self.recompute, self.args, self.kwargs = recompute, args, kwargs
        self.holders = []  # weak references, in the order forward saved
        self.count = 0  # how many tensors the recomputation running now has saved
        self.recomputed = weakref.WeakKeyDictionary()  # holder -> tensor, until unpacked

    def pack(self, tensor):
        holder = _Holder()
        self.holders.append(weakref.ref(holder))
        return holder

    def unpack(self, holder):
        if holder not in self.recomputed:  # the first unpack of this backward: run the block again
            self.count = 0
            try:
                with saved_tensors_hooks(self.keep_recomputed, lambda tensor: tensor), enable_grad():
                    self.recompute(*self.args, **self.kwargs)
            except _StopRecomputation:
                pass
            if self.count != len(self.holders):
                raise CheckpointError(
                    "torch.utils.checkpoint: A different number of tensors was saved during the original forward "
                    f"and recomputation.\nNumber of tensors saved during forward: {len(self.holders)}\n"
                    f"Number of tensors saved during recomputation: {self.count}."
                )
        return self.recomputed.pop(holder)

    def keep_recomputed(self, tensor):
        """The recomputation's pack hook: the ``count``-th tensor saved goes to the ``count``-th holder."""
        if self.count >= len(self.holders):
            raise CheckpointError("torch.utils.checkpoint: trying to save more tensors during recomputation than "
                                  "during the original forward pass.")
        holder = self.holders[self.count]()
        self.count += 1
        if holder is not None:
            self.recomputed[holder] = tensor.detach() if tensor.requires_grad else tensor
        if self.count == len(self.holders):
            raise _StopRecomputation  # everything needed is back: the rest of the block need not run
        return tensor


class _StopRecomputation(Exception):
    pass


def _checkpoint_without_reentrant(function, preserve_rng_state, args, kwargs):
    if not is_grad_enabled():
        return function(*args, **kwargs)
    random_state = _RandomState(args, preserve_rng_state)

    def recompute(*args, **kwargs):
        with random_state.replay():
            function(*args, **kwargs)

    frame = _Frame(recompute, args, kwargs)
    with saved_tensors_hooks(frame.pack, frame.unpack):
        return function(*args, **kwargs)


def checkpoint(function, *args, use_reentrant: bool | None = None, context_fn=noop_context_fn,
               determinism_check: str = "default", debug: bool = False, early_stop: bool = True, **kwargs):
    """``function(*args, **kwargs)``, keeping for backward only ``args``: what ``function`` saved is computed
    again when backward needs it. ``preserve_rng_state=True`` (default) replays forward's random draws."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch "
            "2.9, calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is "
            "recommended, but if you need to preserve the current default behavior, you can pass "
            "use_reentrant=True. Refer to docs for more details on the differences between the two variants.",
            stacklevel=2,
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    if context_fn is not noop_context_fn:
        raise NotImplementedError("minitorch's checkpoint takes no context_fn (selective checkpointing)")
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got {determinism_check}")
    return _checkpoint_without_reentrant(function, preserve, args, kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant: bool | None = None, **kwargs):
    """Run ``functions`` (a ``Sequential`` or a list) in ``segments`` chunks, checkpointing all but the last."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed explicitly. "
            "In version 2.9 we will raise an exception if use_reentrant is not passed. use_reentrant=False is "
            "recommended, but if you need to preserve the current default behavior, you can pass "
            "use_reentrant=True. Refer to docs for more details on the differences between the two variants.",
            stacklevel=2,
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input

        return forward

    if isinstance(functions, Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
