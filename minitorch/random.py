"""``minitorch.random``: PyTorch's ``torch.random`` module, the default generator's state and ``fork_rng``.

The generator itself is in ``_random.py``; this module gives it PyTorch's public home, so code that writes
``torch.random.manual_seed(0)`` or ``with torch.random.fork_rng(): ...`` runs unchanged.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterable, Iterator

from . import accelerator, cuda
from ._device import device as Device
from ._random import Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state

__all__ = ["Generator", "default_generator", "fork_rng", "get_rng_state", "initial_seed", "manual_seed", "seed",
           "set_rng_state"]

_fork_rng_warned_already = False


@contextlib.contextmanager
def fork_rng(devices: Iterable[int] | None = None, enabled: bool = True, _caller: str = "fork_rng",
             _devices_kw: str = "devices", device_type: str | None = None) -> Iterator[None]:
    """Run the block with a copy of the random state: on exit the CPU generator (and the devices') are restored.

    Draws inside the block do not move the stream outside it, so ``x = rand(2)`` after the block gives what
    it would have given without the block. ``devices`` lists the accelerator's devices whose state is saved
    too (all of them when None, with PyTorch's warning when there are several); ``enabled=False`` makes it a
    no-op. ``device_type`` defaults to the current accelerator's, else ``"cuda"``.
    """
    global _fork_rng_warned_already
    if device_type == "meta":
        yield
        return
    current = accelerator.current_accelerator()
    device_type = Device(device_type or (current.type if current is not None else "cuda")).type
    if device_type != "cuda":  # minitorch's only accelerator module is minitorch.cuda
        raise RuntimeError(f"torch has no module of `{device_type}`, you should register "
                           "a module by `torch._register_device_module`.")
    if not enabled:
        yield
        return
    if devices is None:
        count = cuda.device_count()
        if count > 1 and not _fork_rng_warned_already:
            kind = device_type.upper()
            warnings.warn(
                f"{kind} reports that you have {count} available devices, and you have used {_caller} without "
                f"explicitly specifying which devices are being used. For safety, we initialize *every* {kind} "
                f"device by default, which can be quite slow if you have a lot of {kind}s. If you know that you "
                f"are only making use of a few {kind} devices, set the environment variable {kind}_VISIBLE_DEVICES "
                f"or the '{_devices_kw}' keyword argument of {_caller} with the set of devices you are actually "
                "using. For example, if you are using CPU only, set device.upper()_VISIBLE_DEVICES= or devices=[]; "
                f"if you are using device 0 only, set {kind}_VISIBLE_DEVICES=0 or devices=[0].  To initialize all "
                f"devices and suppress this warning, set the '{_devices_kw}' keyword argument to "
                f"`range(torch.{device_type}.device_count())`.", stacklevel=3)
            _fork_rng_warned_already = True
        devices = list(range(count))
    else:
        devices = list(devices)  # a generator would be used up by the first pass
    cpu_state = get_rng_state()
    device_states = [cuda.get_rng_state(index) for index in devices]
    try:
        yield
    finally:
        set_rng_state(cpu_state)
        for index, state in zip(devices, device_states):
            cuda.set_rng_state(state, index)
