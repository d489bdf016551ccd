"""Run PyTorch code on minitorch: ``import torch`` gives ``minitorch``, ``import torchvision`` its vision.

``import functorch`` (shipped in PyTorch's wheel, the forerunner of ``torch.func``) gives ``minitorch.func``.

Python imports ``sitecustomize`` at start-up when it is found on ``sys.path``; the corpus tests put
this folder first on ``PYTHONPATH`` for the minitorch run of each program, so the program's own
text stays exactly as it is written for PyTorch.

A meta-path finder answers for ``torch``, ``torch.*``, ``torchvision`` and ``torchvision.*``: the
name is rewritten (``torch.nn.functional`` -> ``minitorch.nn.functional``, ``torchvision.transforms``
-> ``minitorch.vision.transforms``), the minitorch module is imported under its own name, and the
same module object is registered under the PyTorch name too. One module under two names keeps
identity (``isinstance(x, torch.Tensor)``, subclassing ``torch.nn.Module``) and state (the default
generator, the default dtype) shared. A name minitorch lacks raises the ``ModuleNotFoundError``
PyTorch code would see for a missing module, naming the minitorch module that was looked for.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys

# PyTorch's top-level names and the minitorch module each maps to (longest prefix wins).
ALIASES = {
    "torch": "minitorch",
    "torchvision": "minitorch.vision",
    "functorch": "minitorch.func",  # the functorch package of PyTorch's wheel: torch.func is the same API now
}


def minitorch_name(fullname: str) -> str | None:
    """The minitorch module that stands in for the PyTorch module ``fullname`` (None: not ours)."""
    top, _, rest = fullname.partition(".")
    if top not in ALIASES:
        return None
    return ALIASES[top] + ("." + rest if rest else "")


class _AliasLoader(importlib.abc.Loader):
    """Hands the already-imported minitorch module to the import system under the PyTorch name."""

    def __init__(self, module):
        self.module = module
        self.original_spec = module.__spec__

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        # The import system stamps the alias spec on the module before this call; put minitorch's
        # own spec back, so the module still names itself truthfully (pickling, reload, tracebacks).
        module.__spec__ = self.original_spec


class TorchAliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        target_name = minitorch_name(fullname)
        if target_name is None:
            return None
        module = importlib.import_module(target_name)
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(module), is_package=hasattr(module, "__path__"))


sys.meta_path.insert(0, TorchAliasFinder())
