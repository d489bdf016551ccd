"""``parallel_apply``: run each replica on its piece of the batch, one thread per device.

Threads suit this because the heavy work happens outside Python: a GPU runs its queue
while the thread that filled it waits, and NumPy's matrix products release the
interpreter lock, so CPU replicas overlap too. Each thread makes its device current
(CuPy keeps the current device per thread) before calling its replica.

An exception in a replica is caught in its thread and raised again in the caller's,
with the replica's own traceback in the message (``Caught ValueError in replica 1 on
device 1.``), as PyTorch does.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import traceback

from ..._tensor import Tensor
from ...autograd.grad_mode import is_grad_enabled, set_grad_enabled
from ._functions import as_device

__all__ = ["parallel_apply"]


class _ExceptionWrapper:
    """An exception caught in a worker thread, with its traceback as text, to raise again in the caller."""

    def __init__(self, where: str):
        exc_type, exc_value, exc_traceback = sys.exc_info()
        self.exc_type = exc_type
        self.message = "".join(traceback.format_exception(exc_type, exc_value, exc_traceback))
        self.where = where

    def reraise(self):
        message = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.message}"
        try:
            exception = self.exc_type(message)
        except Exception:  # an exception class whose constructor wants other arguments
            raise RuntimeError(message) from None
        raise exception


def _first_tensor(obj):
    """Some tensor inside ``obj`` (to learn a device from), or None."""
    if isinstance(obj, Tensor):
        return obj
    if isinstance(obj, (list, tuple)):
        for item in obj:
            found = _first_tensor(item)
            if found is not None:
                return found
    if isinstance(obj, dict):
        for item in obj.values():
            found = _first_tensor(item)
            if found is not None:
                return found
    return None


def _device_label(device) -> str:
    return str(device.index) if device.type == "cuda" else str(device)  # PyTorch names GPUs by index here


def parallel_apply(modules, inputs, kwargs_tup=None, devices=None) -> list:
    """``[modules[i](*inputs[i], **kwargs_tup[i]) for i]``, each call in its own thread on ``devices[i]``."""
    if len(modules) != len(inputs):
        raise AssertionError(f"The number of modules {len(modules)} is not equal to the number of inputs {len(inputs)}")
    if kwargs_tup is None:
        kwargs_tup = ({},) * len(modules)
    if len(modules) != len(kwargs_tup):
        raise AssertionError(
            f"The number of modules {len(modules)} is not equal to the number of kwargs {len(kwargs_tup)}"
        )
    devices = [None] * len(modules) if devices is None else [as_device(d) for d in devices]
    results = [None] * len(modules)
    grad_enabled = is_grad_enabled()

    def worker(position, module, args, kwargs, device):
        set_grad_enabled(grad_enabled)  # PyTorch keeps this flag per thread: a new thread starts with the caller's
        try:
            if device is None:
                tensor = _first_tensor(args)
                if tensor is None:
                    raise RuntimeError(
                        f"in replica {position}, no device was provided and no tensor input was found; device cannot "
                        "be resolved"
                    )
                device = tensor.device
            current = device.backend.use_device(device.index) if device.type != "cpu" else contextlib.nullcontext()
            with current:
                if not isinstance(args, (list, tuple)):
                    args = (args,)
                results[position] = module(*args, **kwargs)
        except Exception:
            where = f"in replica {position}" + (f" on device {_device_label(device)}" if device is not None else "")
            results[position] = _ExceptionWrapper(where)

    if len(modules) > 1:
        threads = [
            threading.Thread(target=worker, args=(i, module, args, kwargs, device), name=f"DataParallel replica {i}")
            for i, (module, args, kwargs, device) in enumerate(zip(modules, inputs, kwargs_tup, devices))
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        set_grad_enabled(grad_enabled)  # the caller's setting, whatever the workers did (as PyTorch does)
    else:
        worker(0, modules[0], inputs[0], kwargs_tup[0], devices[0])

    for output in results:
        if isinstance(output, _ExceptionWrapper):
            output.reraise()
    return results
