"""Every public function of a namespace called with a list in each place (``tests/test_argument_types.py``).

``python -m tests.argument_sweep`` prints, as its last line, a JSON object: for each namespace (torch,
nn.functional, linalg, special, and the methods of Tensor), the calls that PyTorch refuses with a ``TypeError``
and minitorch answers with an internal error (``AttributeError``, ``IndexError``, ``KeyError``). It runs in a
process of its own: the sweep calls setters (``set_default_dtype``, ``set_grad_enabled``...) with nonsense too,
which must not leak into other tests.
"""

from __future__ import annotations

import json
import warnings

import torch

import minitorch


def _calls(lib):
    t = lib.ones(2, 2)
    return [([1.0],), (t, [1.0]), (t, t, [1.0]), (t, t, t, [1.0])]


def _internal_error(theirs, torch_args, ours, mini_args) -> str | None:
    """Where ``theirs(*torch_args)`` raises a ``TypeError``: the internal error ``ours(*mini_args)`` raises, if any."""
    try:
        theirs(*torch_args)
        return None
    except TypeError:
        pass
    except Exception:  # noqa: BLE001 - only PyTorch's TypeError makes a case
        return None
    try:
        ours(*mini_args)
    except (AttributeError, IndexError, KeyError) as error:
        return f"{type(error).__name__}: {error}"
    except Exception:  # noqa: BLE001 - any error that is not an internal one is fine here
        pass
    return None


def sweep(torch_module, mini_module) -> list:
    raw = []
    for name in sorted(dir(mini_module)):
        ours, theirs = getattr(mini_module, name), getattr(torch_module, name, None)
        if name.startswith("_") or not callable(ours) or theirs is None or isinstance(ours, type):
            continue
        for torch_args, mini_args in zip(_calls(torch), _calls(minitorch)):
            error = _internal_error(theirs, torch_args, ours, mini_args)
            if error:
                raw.append(f"{name}{len(mini_args)}: {error}")
    return raw


def sweep_methods() -> list:
    """The same over the methods of ``Tensor`` (in-place ones included), called on a 2x2 tensor."""
    raw = []
    for name in sorted(dir(minitorch.Tensor)):
        if name.startswith("_") or not callable(getattr(torch.Tensor, name, None)):
            continue
        for count in (1, 2):
            error = _internal_error(getattr(torch.ones(2, 2), name), [*[torch.ones(2, 2)] * (count - 1), [1.0]],
                                    getattr(minitorch.ones(2, 2), name), [*[minitorch.ones(2, 2)] * (count - 1), [1.0]])
            if error:
                raw.append(f"Tensor.{name}{count}: {error}")
    return raw


NAMESPACES = {
    "torch": (torch, minitorch),
    "nn.functional": (torch.nn.functional, minitorch.nn.functional),
    "linalg": (torch.linalg, minitorch.linalg),
    "special": (torch.special, minitorch.special),
}

if __name__ == "__main__":
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = {namespace: sweep(*modules) for namespace, modules in NAMESPACES.items()}
        found["Tensor methods"] = sweep_methods()
    print(json.dumps(found))
