"""Every public function, method and class that minitorch shares with PyTorch takes PyTorch's parameters.

For each name both libraries have, PyTorch's signatures (its type stubs for the C++ builtins,
``inspect`` for Python code; ``tests/api_signatures.py``) are compared with minitorch's:

* every parameter name PyTorch accepts is accepted (so keyword calls such as
  ``flip(x, dims=(0,))`` work), except the ones below that minitorch has no use for;
* minitorch's positional parameters are, in order, those of one of PyTorch's overloads;
* where both give a parameter a default, the defaults are equal.

Known differences are listed in ``ALLOWED`` with the reason for each; the test also fails when
an allowed difference has gone away, so the list stays true.
"""

from __future__ import annotations

import inspect

import pytest

import minitorch
import minitorch.nn.functional as F
from tests.api_signatures import (
    functional_functions,
    overload_from_signature,
    overloads_of,
    tensor_methods,
    torch_functions,
)
from tests.support import require_torch

# Parameters PyTorch has that minitorch never needs: memory layouts and formats (minitorch has only
# strided, dense memory), pinned memory, named tensors, asynchronous copies. ``out`` is checked by
# tests/test_arguments.py instead.
IGNORED_PARAMETERS = {"layout", "pin_memory", "memory_format", "names", "non_blocking", "out", "self"}

ALLOWED = {
    # -- torch namespace --
    ("torch", "addmm"): "missing out_dtype: PyTorch 2.x's low-precision output option; minitorch computes in the "
                        "inputs' dtype",
    ("torch", "baddbmm"): "missing out_dtype (as addmm)",
    ("torch", "bmm"): "missing out_dtype (as addmm)",
    ("torch", "mm"): "missing out_dtype (as addmm)",
    ("torch", "asarray"): "default requires_grad=False where the stub says None: the same meaning",
    ("torch", "cumulative_trapezoid"): "default dx=None: None means spacing 1 unless x is given (PyTorch's two "
                                       "overloads in one function)",
    ("torch", "trapezoid"): "default dx=None (as cumulative_trapezoid)",
    ("torch", "trapz"): "default dx=None (as cumulative_trapezoid)",
    ("torch", "dsplit"): "indices_or_sections in one parameter, where PyTorch's overloads call it indices or sections",
    ("torch", "hsplit"): "as dsplit",
    ("torch", "vsplit"): "as dsplit",
    ("torch", "tensor_split"): "as dsplit",
    ("torch", "from_dlpack"): "missing copy/device: minitorch imports DLPack capsules as they are",
    ("torch", "isin"): "the stub's scalar overloads name their operands element/test_element",
    ("torch", "save"): "default pickle_module=None: None means the pickle module",
    ("torch", "max"): "missing other: max(a, b) by keyword; the elementwise form is minitorch.maximum",
    ("torch", "min"): "missing other (as max)",
    ("torch", "norm"): "out is keyword-only in minitorch (PyTorch's Python norm also takes it by position)",
    ("torch", "numel"): "the stub calls the tensor self, PyTorch's parser input",
    ("torch", "result_type"): "one function for PyTorch's four tensor/scalar overloads",
    ("torch", "roll"): "default dims=None where the stub says (): both mean 'flatten, then roll'",
    ("torch", "std"): "default unbiased=None: None means 'not given' (correction decides, 1 by default), as "
                      "PyTorch's True does",
    ("torch", "std_mean"): "as std",
    ("torch", "var"): "as std",
    ("torch", "var_mean"): "as std",
    ("torch", "tril_indices"): "missing requires_grad: the result is an integer tensor, which cannot require grad",
    ("torch", "triu_indices"): "as tril_indices",
    # -- Tensor methods --
    ("Tensor", "dsplit"): "as torch.dsplit",
    ("Tensor", "hsplit"): "as torch.dsplit",
    ("Tensor", "vsplit"): "as torch.dsplit",
    ("Tensor", "tensor_split"): "as torch.dsplit",
    ("Tensor", "expand"): "missing implicit: an internal flag of PyTorch's tracer",
    ("Tensor", "max"): "as torch.max",
    ("Tensor", "min"): "as torch.max",
    ("Tensor", "random_"): "the stub names the bounds from_/to; PyTorch's parser takes from/to, which Python "
                           "keywords cannot spell: pass them by position",
    ("Tensor", "uniform_"): "as random_ (minitorch calls them a and b)",
    ("Tensor", "requires_grad_"): "the stub says mode; PyTorch's parser (and minitorch) take requires_grad",
    ("Tensor", "roll"): "as torch.roll",
    ("Tensor", "std"): "as torch.std",
    ("Tensor", "var"): "as torch.std",
    ("Tensor", "view"): "view(dtype) is accepted by position only, and casts (PyTorch reinterprets the bytes)",
}

# The optimizers' implementation switches: foreach and fused (multi-tensor and fused CUDA kernels), capturable
# (CUDA graphs) and differentiable (gradients through the update step). minitorch has one implementation of
# each update and does not differentiate through it.
OPTIMIZER_SWITCHES = ("capturable", "differentiable", "foreach", "fused")
for _name in ("ASGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "NAdam", "RAdam", "RMSprop", "Rprop", "SGD"):
    ALLOWED[("optim", _name)] = f"does not accept {OPTIMIZER_SWITCHES}"


def _problems(ours, overloads, drop_self: bool) -> list:
    try:
        signature = inspect.signature(ours)
    except (TypeError, ValueError):
        return ["minitorch's signature cannot be read"]
    mine = overload_from_signature(signature, drop_self)
    takes_any_keyword = any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values())
    problems = []
    wanted = set()
    for overload in overloads:
        wanted |= set(overload.positional) | set(overload.keyword_only)
    missing = sorted(wanted - IGNORED_PARAMETERS - set(mine.positional) - set(mine.keyword_only))
    if missing and not takes_any_keyword:
        problems.append(f"does not accept {missing}")
    if mine.positional and not any(
        o.positional[: len(mine.positional)] == mine.positional[: len(o.positional)] for o in overloads
    ):
        problems.append(f"positional {mine.positional}, PyTorch's {[o.positional for o in overloads]}")
    for name, value in mine.defaults.items():
        theirs = [o.defaults[name] for o in overloads if name in o.defaults and o.defaults[name] is not Ellipsis]
        if callable(value):  # a default function (Transformer's activation=relu): the same function by name
            value, theirs = value.__name__, [getattr(t, "__name__", t) for t in theirs]
        if isinstance(value, minitorch.memory_format):  # the stub spells it as its source text
            value = repr(value).replace("minitorch.", "torch.")
        if theirs and not any(type(t) is type(value) and t == value or t is value for t in theirs):
            numbers = (int, float)
            if not (isinstance(value, numbers) and any(isinstance(t, numbers) and t == value for t in theirs)):
                problems.append(f"default {name}={value!r}, PyTorch's {theirs}")
    return problems


def _shared_callables(ours_namespace, theirs_namespace):
    for name in sorted(dir(ours_namespace)):
        if name.startswith("_"):
            continue
        ours, theirs = getattr(ours_namespace, name), getattr(theirs_namespace, name, None)
        if theirs is not None and callable(ours) and not isinstance(ours, type):
            yield name, ours, theirs


def _check(label, ours_namespace, theirs_namespace, stubs, drop_self=False, python_first=False):
    found, compared = {}, 0
    for name, ours, theirs in _shared_callables(ours_namespace, theirs_namespace):
        overloads = overloads_of(theirs, stubs, name, drop_self, python_first)
        if not overloads:
            continue
        compared += 1
        problems = _problems(ours, overloads, drop_self)
        if problems:
            found[(label, name)] = problems
    unexpected = {key: value for key, value in found.items() if key not in ALLOWED}
    stale = sorted(key for key in ALLOWED if key[0] == label and key not in found)
    assert unexpected == {}, "\n".join(f"{key}: {value}" for key, value in unexpected.items())
    assert stale == [], f"allowed differences that are gone (remove them from ALLOWED): {stale}"
    return compared


def test_torch_functions_take_pytorchs_parameters():
    torch = require_torch()
    assert _check("torch", minitorch, torch, torch_functions()) > 300


def test_tensor_methods_take_pytorchs_parameters():
    torch = require_torch()
    assert _check("Tensor", minitorch.Tensor, torch.Tensor, tensor_methods(), drop_self=True) > 300


def test_functional_takes_pytorchs_parameters():
    require_torch()
    import torch.nn.functional as torch_functional

    assert _check("F", F, torch_functional, functional_functions(), python_first=True) > 70


@pytest.mark.parametrize("namespace", ["nn", "optim", "optim.lr_scheduler", "utils.data"])
def test_classes_take_pytorchs_parameters(namespace):
    torch = require_torch()
    import importlib

    ours_module = importlib.import_module(f"minitorch.{namespace}")
    theirs_module = importlib.import_module(f"torch.{namespace}")
    found = {}
    for name in sorted(dir(ours_module)):
        ours, theirs = getattr(ours_module, name), getattr(theirs_module, name, None)
        if name.startswith("_") or not isinstance(ours, type) or not isinstance(theirs, type):
            continue
        try:
            overloads = [overload_from_signature(inspect.signature(theirs.__init__), drop_self=True)]
        except (TypeError, ValueError):
            continue
        problems = _problems(ours.__init__, overloads, drop_self=True)
        if problems:
            found[(namespace, name)] = problems
    unexpected = {key: value for key, value in found.items() if key not in ALLOWED}
    assert unexpected == {}, "\n".join(f"{key}: {value}" for key, value in unexpected.items())
    assert torch is not None
