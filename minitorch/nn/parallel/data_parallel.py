"""``DataParallel``: train one model on several devices by splitting every batch between them.

Each call of ``DataParallel(model)(batch)`` does four steps (the other files of this
package, one step each):

1. **scatter** (``scatter_gather.py``): cut the batch along ``dim`` into one chunk per
   device and move each chunk there;
2. **replicate** (``replicate.py``): copy the model onto each device, the weights through
   the differentiable ``Broadcast`` (``_functions.py``), so gradients can flow back;
3. **parallel_apply** (``parallel_apply.py``): run each replica on its chunk, one thread
   per device, all at once;
4. **gather** (``scatter_gather.py``): concatenate the outputs on ``output_device``.

``loss.backward()`` then runs through gather, the replicas and ``Broadcast``, whose
backward adds up each weight's gradients from all devices: the original parameters get
exactly the gradient a single device would have computed on the whole batch, and an
optimizer steps them as usual.

Devices
-------
As in PyTorch, ``device_ids`` are CUDA devices (``[0, 1]``, ``["cuda:0", "cuda:1"]``); by
default all of them. The module must already be on ``device_ids[0]``. On a machine
without a GPU, PyTorch's ``DataParallel`` simply calls the module; so does this one.

To watch data parallelism without GPUs, minitorch also runs replicas on the CPU: pass
CPU devices, ``DataParallel(model, device_ids=["cpu", "cpu"])``, or, equivalently,
``DataParallel(model, num_replicas=2)``. (This is a minitorch addition: PyTorch refuses
CPU device ids.) The replicas then share the weights' memory and each runs in its own
thread; the arithmetic is the same as on GPUs.

    >>> import minitorch
    >>> from minitorch import nn
    >>> model = nn.Linear(4, 2)
    >>> parallel = nn.DataParallel(model, num_replicas=3)
    >>> out = parallel(minitorch.randn(5, 4))   # rows 0-1, 2-3 and 4 run on three replicas
    >>> out.shape
    minitorch.Size([5, 2])
    >>> out.sum().backward()
    >>> model.weight.grad.shape                 # gradients land on the original weights
    minitorch.Size([2, 4])
    >>> list(parallel.state_dict())             # the wrapped model's keys, under "module."
    ['module.weight', 'module.bias']

Limits
------
* Gradient mode is one flag per thread, as in PyTorch: each replica's thread starts with
  the caller's setting, and a ``no_grad()`` block inside one replica's ``forward`` (BatchNorm
  updating its running statistics) does not affect the others.
* A replica's buffer updates (BatchNorm's running statistics) reach the original module
  only from the first replica, as in PyTorch.
* ``backward`` runs on the calling thread, device after device.
"""

from __future__ import annotations

from itertools import chain

from ... import cuda
from ...autograd.grad_mode import is_grad_enabled
from ..modules.module import Module
from ._functions import as_device
from .parallel_apply import parallel_apply
from .replicate import replicate
from .scatter_gather import gather, scatter_kwargs

__all__ = ["DataParallel", "data_parallel"]


def _resolve_devices(device_ids, output_device, num_replicas):
    """(devices, output device) to replicate over, or None when the module should simply be called."""
    if num_replicas is not None:
        if device_ids is not None:
            raise ValueError("DataParallel: give device_ids or num_replicas, not both")
        if isinstance(num_replicas, bool) or not isinstance(num_replicas, int) or num_replicas < 1:
            raise ValueError(f"DataParallel: num_replicas must be a positive integer, got {num_replicas!r}")
        device_ids = ["cpu"] * num_replicas
    if device_ids is None:
        if not cuda.is_available():
            return None
        device_ids = list(range(cuda.device_count()))
    devices = [as_device(spec) for spec in device_ids]
    if not devices:
        raise ValueError("DataParallel: device_ids must name at least one device")
    if len({d.type for d in devices}) > 1:
        raise ValueError(
            "DataParallel runs on CUDA devices or on CPU replicas, not on a mix of both; got device_ids="
            f"{[str(d) for d in devices]}"
        )
    if devices[0].type == "cuda" and not cuda.is_available():
        return None  # PyTorch on a machine without GPUs: the module is called as it is
    output = devices[0] if output_device is None else as_device(output_device)
    return devices, output


def _check_module_device(module: Module, source) -> None:
    for tensor in chain(module.parameters(), module.buffers()):
        if tensor.device != source:
            raise RuntimeError(
                f"module must have its parameters and buffers on device {source} (device_ids[0]) but found one of "
                f"them on device: {tensor.device}"
            )


class DataParallel(Module):
    """Run ``module`` on several devices at once, each on a slice of the batch along ``dim``.

    ``DataParallel(module, device_ids=None, output_device=None, dim=0)`` as in PyTorch, plus
    the minitorch keyword ``num_replicas=N`` for N CPU replicas (see the module docstring).
    The wrapped model is ``.module``; the state dict has its keys under ``"module."``.
    """

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0, *,
                 num_replicas: int | None = None):
        super().__init__()
        self.module = module
        self.dim = dim
        resolved = _resolve_devices(device_ids, output_device, num_replicas)
        if resolved is None:
            self.device_ids = []
            self.output_device = None
            self.src_device_obj = None
            return
        devices, output = resolved
        on_gpus = devices[0].type == "cuda"
        # PyTorch keeps CUDA devices as indices (output -1 means the CPU); CPU replicas stay devices.
        self.device_ids = [d.index for d in devices] if on_gpus else devices
        self.output_device = (output.index if output.type == "cuda" else -1) if on_gpus else output
        self.src_device_obj = devices[0]
        if len(devices) == 1:
            self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        _check_module_device(self.module, self.src_device_obj)
        inputs, module_kwargs = self.scatter(inputs, kwargs, self.device_ids)
        # A forward without any inputs still runs, once, on the first device.
        if not inputs and not module_kwargs:
            inputs, module_kwargs = ((),), ({},)
        if len(self.device_ids) == 1:
            return self.module(*inputs[0], **module_kwargs[0])
        replicas = self.replicate(self.module, self.device_ids[: len(inputs)])
        outputs = self.parallel_apply(replicas, inputs, module_kwargs)
        return self.gather(outputs, self.output_device)

    def replicate(self, module: Module, device_ids) -> list[Module]:
        # Under no_grad nothing will flow back, so the replicas need not be connected to the graph.
        return replicate(module, device_ids, not is_grad_enabled())

    def scatter(self, inputs, kwargs, device_ids):
        return scatter_kwargs(inputs, kwargs, device_ids, dim=self.dim)

    def parallel_apply(self, replicas, inputs, kwargs):
        return parallel_apply(replicas, inputs, kwargs, self.device_ids[: len(replicas)])

    def gather(self, outputs, output_device):
        return gather(outputs, output_device, dim=self.dim)


def data_parallel(module: Module, inputs, device_ids=None, output_device=None, dim: int = 0, module_kwargs=None):
    """The functional form: one ``DataParallel`` call of ``module`` on ``inputs`` (a tensor or a tuple)."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    resolved = _resolve_devices(device_ids, output_device, None)
    if resolved is None:
        raise RuntimeError("device type could not be determined")
    devices, output = resolved
    _check_module_device(module, devices[0])
    inputs, module_kwargs = scatter_kwargs(inputs, module_kwargs, devices, dim)
    if not inputs and not module_kwargs:
        inputs, module_kwargs = ((),), ({},)
    if len(devices) == 1:
        return module(*inputs[0], **module_kwargs[0])
    used = devices[: len(inputs)]
    replicas = replicate(module, used, not is_grad_enabled())
    outputs = parallel_apply(replicas, inputs, module_kwargs, used)
    return gather(outputs, output, dim)
