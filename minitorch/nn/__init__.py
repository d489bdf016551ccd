"""``minitorch.nn``: layers, the ``Module`` system, initialisation and training utilities.

Mirrors ``torch.nn``: ``nn.Module`` and the layers from ``nn/modules/``, ``nn.Parameter``,
the functional forms in ``nn.functional``, weight initialisation in ``nn.init``,
gradient utilities in ``nn.utils`` and ``nn.DataParallel`` in ``nn.parallel``.
"""

from . import functional, init, utils
from .modules import *  # noqa: F401,F403  (every layer, as torch.nn exports them)
from .modules import __all__ as _modules_all

# isort: split
from . import parallel  # after .modules: modules re-exports parallel.DataParallel (a circular import otherwise)
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter

__all__ = [
    "Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer", "functional", "init", "utils", "parallel",
    *_modules_all,
]
