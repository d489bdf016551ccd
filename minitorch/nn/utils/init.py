"""``torch.nn.utils.skip_init``: build a module without spending time on its initialisation.

PyTorch builds the module on the ``meta`` device (shapes only, no values) and then allocates
uninitialised memory on the requested device, so no random number is drawn. minitorch builds
the module normally and then puts the random generator back where it was: the parameters hold
values a program must overwrite (as PyTorch's uninitialised memory must be), and the random
stream that follows is PyTorch's.
"""

from __future__ import annotations

import inspect

from ... import _random
from ..modules.module import Module


def skip_init(module_cls, *args, **kwargs):
    """An instance of ``module_cls(*args, **kwargs)`` whose parameters are left for the caller to set.

    >>> import minitorch
    >>> layer = minitorch.nn.utils.skip_init(minitorch.nn.Linear, 5, 1)
    >>> layer.weight.shape
    minitorch.Size([1, 5])
    """
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    state = _random.get_rng_state()
    try:
        module = module_cls(*args, **kwargs, device=final_device)
    finally:
        _random.set_rng_state(state)
    return module

