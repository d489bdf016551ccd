"""Chapter 5's pieces of the learner's library: the ``Optimizer`` base and ``AdamW`` on it.

Two things live here, both public (learner-side) code:

* ``optimizer_report``: runs an AdamW class (the learner's, minitorch's ``optim.AdamW``, or in the tests
  PyTorch's ``torch.optim.AdamW``) through what the base class promises (``param_groups`` with defaults
  filled in, ``defaults``, a parameter in two groups refused, ``state`` keyed by parameter,
  ``zero_grad(set_to_none=...)``, ``state_dict``/``load_state_dict`` in PyTorch's format) and through
  AdamW's steps on two groups, and returns what it shows as arrays. The notebook's check function and the
  exercise's reference call the same report;
* the registration of the two pieces (minitorch's ``optim.Optimizer`` and ``optim.AdamW`` are the fallbacks).

The parameters are three tensors cut from ``values`` (sizes ``split[0]``, ``split[1]`` and the rest): the
first two in a group with the optimizer's defaults (weight decay ``weight_decay``), the third in a group of
its own with half the learning rate and no weight decay; ``grads`` holds one row of gradients per step
(the third parameter has no gradient at the first step, so it is skipped there).
"""

from __future__ import annotations

import math

import numpy as np

from grading.library import piece

TWO_GROUPS_MESSAGE = "some parameters appear in more than one parameter group"
BETAS = (0.9, 0.99)

OPTIMIZER_OUTPUTS = (
    "param_groups: each group's lr, weight_decay, eps and betas (what a group leaves out comes from the defaults)",
    "defaults: lr, weight_decay, eps and betas as given to the constructor",
    "a parameter in two groups: 1 refused with PyTorch's ValueError and message, 0 accepted, -1 another error",
    "zero_grad(set_to_none=False) leaves zero tensors, then zero_grad() leaves None (1 as PyTorch does, 0 not)",
    "the no-decay group's parameter after every step (its own lr; Adam's moments with bias correction)",
    "the decay group's parameters after every step (weight decay decoupled: p(1 - lr wd), the gradient untouched)",
    "optimizer.state[param] of each parameter: step, then exp_avg_sq (state is keyed by the parameter itself)",
    "state_dict(): each group's params as integer indices across the groups, then the indices its state has",
    "a fresh optimizer given that state_dict: the parameters after two more steps (resumes identically)",
    "a state_dict in PyTorch's format (saved by torch.optim.AdamW, its own lr, betas and eps) loaded: two steps",
)


def _tensor(lib, values, requires_grad=False):
    return lib.tensor(np.array(values, dtype=np.float32), requires_grad=requires_grad)


def _flat(tensors) -> np.ndarray:
    parts = [np.asarray(t.detach().cpu().numpy(), dtype=np.float64).reshape(-1) for t in tensors]
    return np.concatenate(parts) if parts else np.zeros(0)


def _options(mapping) -> list[float]:
    def number(key):
        value = mapping.get(key, math.nan) if hasattr(mapping, "get") else math.nan
        return float(value) if isinstance(value, (int, float)) else math.nan

    betas = mapping.get("betas") if hasattr(mapping, "get") else None
    betas = [float(b) for b in betas] if isinstance(betas, (tuple, list)) and len(betas) == 2 else [math.nan] * 2
    return [number("lr"), number("weight_decay"), number("eps"), *betas]


def _index(value) -> int:
    return int(value) if isinstance(value, (int, np.integer)) and not isinstance(value, bool) else -1


def pytorch_state_dict(lib, shapes, grads, learning_rate, weight_decay):
    """A state_dict as torch.optim.AdamW saves one (every key it writes), after five steps of its own."""
    flat_grads = np.asarray(grads, dtype=np.float32)
    state, start = {}, 0
    for index, size in enumerate(shapes):
        rows = flat_grads[:, start : start + size]
        state[index] = {
            "step": lib.tensor(5.0),
            "exp_avg": _tensor(lib, rows.mean(axis=0) * 0.5),
            "exp_avg_sq": _tensor(lib, (rows**2).mean(axis=0) * 0.05),
        }
        start += size
    flags = {"amsgrad": False, "maximize": False, "foreach": None, "capturable": False, "differentiable": False,
             "fused": None, "decoupled_weight_decay": True}  # fmt: skip
    return {
        "state": state,
        "param_groups": [
            {"lr": learning_rate * 2, "betas": (0.8, 0.95), "eps": 1e-6, "weight_decay": weight_decay, **flags,
             "params": [0, 1]},
            {"lr": learning_rate, "betas": (0.85, 0.9), "eps": 1e-7, "weight_decay": 0.0, **flags, "params": [2]},
        ],
    }  # fmt: skip


def optimizer_report(adamw_class, values, split, grads, learning_rate, weight_decay, lib=None):
    """Everything the exercise compares (OPTIMIZER_OUTPUTS), for ``adamw_class``."""
    if lib is None:
        import minitorch as lib
    values = np.asarray(values, dtype=np.float32)
    grads = np.asarray(grads, dtype=np.float32)
    cuts = np.cumsum([int(split[0]), int(split[1])]).tolist()
    sizes = [cuts[0], cuts[1] - cuts[0], values.size - cuts[1]]
    pieces_of_grads = [np.split(row, cuts) for row in grads]
    learning_rate, weight_decay = float(learning_rate), float(weight_decay)

    def parameters():
        return [_tensor(lib, part, requires_grad=True) for part in np.split(values, cuts)]

    def make(params):
        groups = [{"params": params[:2]}, {"params": [params[2]], "lr": learning_rate / 2, "weight_decay": 0.0}]
        return adamw_class(groups, lr=learning_rate, betas=BETAS, eps=1e-8, weight_decay=weight_decay)

    def run(optimizer, params, rows, skip_first):
        trajectory = []
        for step, row in enumerate(rows):
            for index, param in enumerate(params):
                skipped = skip_first and step == 0 and index == 2
                param.grad = None if skipped else _tensor(lib, row[index])
            optimizer.step()
            trajectory.append([param.detach().clone() for param in params])
        return trajectory

    params = parameters()
    optimizer = make(params)
    group_options = np.array([_options(group) for group in optimizer.param_groups], dtype=np.float64)
    defaults = np.array(_options(optimizer.defaults), dtype=np.float64)
    try:
        adamw_class([{"params": params[:1]}, {"params": params[:1], "lr": 0.1}], lr=learning_rate)
        refused = 0
    except NotImplementedError:
        raise  # a blank piece: the check says "not implemented yet"
    except ValueError as error:
        refused = 1 if str(error) == TWO_GROUPS_MESSAGE else -1
    except Exception:  # noqa: BLE001 - which error it is, is part of the answer
        refused = -1
    spare = parameters()  # zero_grad on an optimizer of its own, so the run below starts clean
    spare_optimizer = make(spare)
    for param in spare:
        param.grad = lib.ones_like(param)
    spare_optimizer.zero_grad(set_to_none=False)
    zeroed = [int(param.grad is not None and not bool(param.grad.abs().sum().item())) for param in spare]
    spare_optimizer.zero_grad()
    zeroed += [int(param.grad is None) for param in spare]
    done = [group_options, defaults, np.int64(refused), np.array(zeroed, dtype=np.int64)]

    def promise_broken() -> bool:
        """An output whose right value is known whatever the case (no option missing, the refusal, zero_grad's
        codes, a state entry for every parameter, integer indices) is already wrong."""
        known = [np.isnan(group_options).any(), np.isnan(defaults).any(), refused != 1, min(zeroed) != 1]
        if len(done) > 6:
            known.append(np.isnan(done[6]).any())
        if len(done) > 7:
            known.append((done[7] < 0).any())
        return any(known)

    def stage(compute):
        """Run the next stage; an error after a broken promise ends the report there (the comparison names
        that promise first), any other error is the learner's to see."""
        try:
            done.append(compute())
            return True
        except NotImplementedError:
            raise  # a blank piece: the check says "not implemented yet"
        except Exception:
            if promise_broken():
                return False
            raise

    def trajectories():
        trajectory = run(optimizer, params, pieces_of_grads, skip_first=True)
        done.append(_flat([step[2] for step in trajectory]))  # the no-decay group's parameter
        return _flat([tensor for step in trajectory for tensor in step[:2]])

    def state_values():
        found = []
        for param, size in zip(params, sizes):
            try:
                entry = optimizer.state[param]
            except (KeyError, TypeError):
                entry = {}
            step = entry.get("step", math.nan) if hasattr(entry, "get") else math.nan
            found.append(float(step) if not isinstance(step, str) else math.nan)
            exp_avg_sq = entry.get("exp_avg_sq") if hasattr(entry, "get") else None
            found += _flat([exp_avg_sq]).tolist() if exp_avg_sq is not None else [math.nan] * size
        return np.array(found, dtype=np.float64)

    saved = {}

    def indices():
        saved.update(optimizer.state_dict())
        numbers = [_index(index) for group in saved.get("param_groups", []) for index in group.get("params", [])]
        numbers += sorted(_index(index) for index in saved.get("state", {}))
        return np.array(numbers, dtype=np.int64)

    def continued():
        resumed = make(params)
        resumed.load_state_dict(saved)
        return _flat(run(resumed, params, pieces_of_grads[-2:], skip_first=False)[-1])

    def from_pytorch():
        fresh = parameters()
        optimizer = make(fresh)
        optimizer.load_state_dict(pytorch_state_dict(lib, sizes, grads, learning_rate, weight_decay))
        return _flat(run(optimizer, fresh, pieces_of_grads[:2], skip_first=False)[-1])

    for compute in (trajectories, state_values, indices, continued, from_pytorch):
        if not stage(compute):
            break
    return tuple(done) + tuple(np.zeros(0) for _ in range(len(OPTIMIZER_OUTPUTS) - len(done)))


def _minitorch(name):
    def fallback():
        import minitorch.optim as optim

        return getattr(optim, name)

    return fallback


for _name in ("Optimizer", "AdamW"):
    piece(_name, chapter="05_losses_and_optimizers", cells=("ch05-optimizer",),
          checks={"ch05.optimizer_base": "optimizer_report_of_mine"}, fallback=_minitorch(_name))  # fmt: skip
# exercise 6's AdamW, on minitorch's optim.Optimizer (exercise 7's AdamW above stands on the learner's own base)
piece("MyAdamW", chapter="05_losses_and_optimizers", cells=("ch05-adamw",),
      checks={"ch05.adamw_run": "adamw_run_of_my_optimizer"}, fallback=_minitorch("AdamW"))  # fmt: skip
