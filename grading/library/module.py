"""Chapter 4's piece of the learner's library: ``MyModule``, the learner's complete ``nn.Module`` (buffers,
forward hooks, ``_apply``/``to`` and a strict ``state_dict``).

Two things live here, both public (learner-side) code:

* ``machinery_report``: builds a tree of small ``Block`` modules on a Module class (the learner's, minitorch's
  ``nn.Module``, or in the tests PyTorch's ``torch.nn.Module``) from a description, exercises the machinery,
  and returns what it shows as arrays. The notebook's check function and the exercise's reference call the
  same report, so they cannot drift apart;
* the registration of the piece (minitorch's ``nn.Module`` is the fallback: the same interface).

A tree is described by ``structure``, one row per module, parents before children::

    (parent, size, buffers, shares)

``parent`` is the row of the parent (-1 for the root, row 0); ``size`` the length of the module's weight;
``buffers`` a bit set: 1 a persistent float buffer ``running``, 2 a non-persistent float buffer ``scratch``,
4 a persistent integer buffer ``count``; ``shares`` is -1, or an earlier row whose weight this module reuses
(the same Parameter object: a shared parameter). A child is assigned to its parent under the name
``CHILD_NAMES[row]``: names that do not sort in the order they are assigned.

Names are reported as numbers: each name's position in the sorted list of every path the tree could name
(``paths``), and -1 for a name the tree does not have. The notebook prints the names themselves.
"""

from __future__ import annotations

import numpy as np

from grading.library import piece

CHILD_NAMES = ("encoder", "block", "norm", "adapter", "head", "mixer", "gate", "proj", "attn", "embed", "out", "mlp")
BUFFER_NAMES = ((1, "running"), (2, "scratch"), (4, "count"))
MISSING_MESSAGE, UNEXPECTED_MESSAGE = "Missing key(s) in state_dict", "Unexpected key(s) in state_dict"

MACHINERY_OUTPUTS = (
    "named_parameters() names (registered Parameters only, own before the children's, a shared one once)",
    "named_buffers() names (buffers, persistent or not, are not parameters)",
    "parameters() values, in named_parameters() order",
    "forward hooks: which ran, in order (registration order; a removed hook never runs; a child's inside forward)",
    "forward hooks: the outputs (a hook that returns a value replaces the output, and the next hook sees it)",
    "_apply/to(float64): each parameter is still the same object afterwards (1 yes, 0 replaced)",
    "to(float64): dtypes of every parameter and buffer at every depth (1 float64, 0 float32, 2 int64 kept)",
    "state_dict() keys (parameters under every path, persistent buffers only)",
    "values after load_state_dict(another tree's state_dict): parameters and buffers",
    "strict load_state_dict: a missing key, then an unexpected key (1 PyTorch's RuntimeError, 0 accepted, -1 other)",
)


def tree_classes(base, lib):
    """``Block`` on the Module class ``base``, with tensors from ``lib`` (minitorch or torch)."""

    class Block(base):
        def __init__(self, weight, buffers):
            super().__init__()
            self.weight = weight if isinstance(weight, lib.nn.Parameter) else lib.nn.Parameter(weight)
            size = int(self.weight.shape[0])
            if buffers & 1:
                self.register_buffer("running", lib.arange(size, dtype=lib.float32) / 10.0)
            if buffers & 2:
                self.register_buffer("scratch", lib.ones(size, dtype=lib.float32), persistent=False)
            if buffers & 4:
                self.register_buffer("count", lib.zeros(1, dtype=lib.int64))
            self.buffers_kept = buffers  # plain attributes: never registered
            self.order = []

        def forward(self, x):
            y = x * self.weight.sum()
            if self.buffers_kept & 1:
                y = y + self.running.sum()
            for child in self.order:
                y = child(y)
            return y

    return Block


def _rows(structure):
    return [tuple(int(v) for v in row) for row in np.asarray(structure).reshape(-1, 4).tolist()]


def build_tree(base, structure, values, lib):
    """The tree of ``structure`` on ``base``, weights filled from ``values`` (cycled); (root, modules, prefixes)."""
    Block = tree_classes(base, lib)
    rows = _rows(structure)
    pool = np.resize(np.asarray(values, dtype=np.float32), sum(size for _, size, _, _ in rows) + 1)
    modules, prefixes, used = [], [], 0
    for row, (parent, size, buffers, shares) in enumerate(rows):
        if shares >= 0:
            weight = modules[shares].weight
        else:
            weight = lib.tensor(pool[used : used + size].copy())
        used += size
        module = Block(weight, buffers)
        if parent >= 0:
            setattr(modules[parent], CHILD_NAMES[row], module)  # registers the child
            modules[parent].order.append(module)
            prefixes.append(prefixes[parent] + CHILD_NAMES[row] + ".")
        else:
            prefixes.append("")
        modules.append(module)
    return modules[0], modules, prefixes


def _paths(rows, prefixes) -> list[str]:
    names = [prefix + "weight" for prefix in prefixes]
    names += [prefix + name for prefix, row in zip(prefixes, rows) for bit, name in BUFFER_NAMES if row[2] & bit]
    return sorted(names)


def _numbers(names, paths) -> np.ndarray:
    return np.array([paths.index(name) if name in paths else -1 for name in names], dtype=np.int64)


def _flat(tensors, lib) -> np.ndarray:
    parts = [np.asarray(t.detach().cpu().numpy(), dtype=np.float64).reshape(-1) for t in tensors]
    return np.concatenate(parts) if parts else np.zeros(0)


def _dtype_code(tensor, lib) -> int:
    return {lib.float64: 1, lib.float32: 0, lib.int64: 2}.get(tensor.dtype, -1)


def _load_refusal(model, state) -> int:
    try:
        model.load_state_dict(state)
    except NotImplementedError:
        raise  # a blank piece: the check says "not implemented yet"
    except RuntimeError as error:
        text = str(error)
        return 1 if text.startswith("Error(s) in loading state_dict for ") and "key(s) in state_dict" in text else -1
    except Exception:  # noqa: BLE001 - which error it is, is part of the answer
        return -1
    return 0


def machinery_report(base, structure, values, new_values, x, lib=None):
    """Everything the exercise compares (MACHINERY_OUTPUTS), for a tree built on the Module class ``base``."""
    if lib is None:
        import minitorch as lib
    rows = _rows(structure)
    model, modules, prefixes = build_tree(base, structure, values, lib)
    paths = _paths(rows, prefixes)
    names = _numbers([name for name, _ in model.named_parameters()], paths)
    buffer_names = _numbers([name for name, _ in model.named_buffers()], paths)
    values_out = _flat(list(model.parameters()), lib)

    # forward hooks: three on the root (the second replaces the output, then is removed), one on the deepest
    calls = []
    model.register_forward_hook(lambda module, args, output: calls.append(1))
    doubling = model.register_forward_hook(lambda module, args, output: (calls.append(2), output * 2)[1])
    model.register_forward_hook(lambda module, args, output: (calls.append(3), output + 1)[1])
    modules[-1].register_forward_hook(lambda module, args, output: calls.append(10))
    x = lib.tensor(np.asarray(x, dtype=np.float32))
    with lib.no_grad():
        outputs = [model(x)]
        calls.append(0)  # between the two calls
        doubling.remove()
        outputs.append(model(x))
    hook_calls = np.full(12, -1, dtype=np.int64)
    hook_calls[: min(len(calls), 12)] = calls[:12]
    hook_outputs = _flat(outputs, lib)

    # _apply through to(float64): parameters keep their identity, buffers are replaced, at every depth
    weights = [module.weight for module in modules]
    returned = model.to(lib.float64)
    kept = np.array([module.weight is weight for module, weight in zip(modules, weights)] + [returned is model])
    dtypes = []
    for module, row in zip(modules, rows):
        dtypes.append(_dtype_code(module.weight, lib))
        dtypes += [_dtype_code(getattr(module, name), lib) for bit, name in BUFFER_NAMES if row[2] & bit]
    dtypes = np.array(dtypes, dtype=np.int64)

    # state_dict and a strict load_state_dict
    state = model.state_dict()
    keys = _numbers(list(state), paths)
    other, other_modules, _ = build_tree(base, structure, new_values, lib)
    with lib.no_grad():
        for module in other_modules:
            if module.buffers_kept & 1:
                module.running.add_(1.5)
            if module.buffers_kept & 4:
                module.count.add_(3)
    other_state = other.to(lib.float64).state_dict()
    model.load_state_dict(other_state)
    loaded = [module.weight for module in modules]
    for module, row in zip(modules, rows):
        loaded += [getattr(module, name) for bit, name in BUFFER_NAMES if row[2] & bit]
    loaded_values = _flat(loaded, lib)
    missing = dict(list(other_state.items())[1:])
    unexpected = dict(other_state, **{"extra.weight": next(iter(other_state.values()))})
    refusals = np.array([_load_refusal(model, missing), _load_refusal(model, unexpected)], dtype=np.int64)
    return names, buffer_names, values_out, hook_calls, hook_outputs, kept, dtypes, keys, loaded_values, refusals


def minitorch_module():
    import minitorch.nn as nn

    return nn.Module


piece("MyModule", chapter="04_networks", cells=("ch04-module-machinery",),
      checks={"ch04.module_machinery": "module_machinery_report"}, fallback=minitorch_module)  # fmt: skip


def minitorch_linear():
    import minitorch.nn.functional as F

    return F.linear


# chapter 4's first build-it: x @ weight.T + bias, what F.linear computes (the capstone's layers call it)
piece("linear_forward", chapter="04_networks", cells=("ch04-linear-forward",),
      checks={"ch04.linear_forward": "linear_forward"}, fallback=minitorch_linear)  # fmt: skip
