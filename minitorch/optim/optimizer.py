"""The ``Optimizer`` base class: parameter groups, per-parameter state, checkpoints.

An optimizer owns three things:

* ``param_groups``: a list of dicts. Each holds ``"params"`` (the tensors it updates) and
  the options for them (``"lr"``, ``"momentum"``, ...). Options a group does not give are
  filled in from ``defaults``, so one optimizer can train, say, the last layer with a larger
  learning rate than the rest.
* ``state``: a dict keyed by parameter with what the algorithm remembers between steps
  (Adam's running averages, SGD's momentum buffer, a step counter).
* ``step()``: one update of every parameter that has a gradient. Updates run under
  ``no_grad`` and write into the parameter's memory (``param.add_(...)``), so the parameter
  stays the same object (the model keeps pointing at it) and no graph is recorded.

``state_dict()`` packs groups and state with parameters replaced by their positions
(0, 1, 2, ... in the order the groups list them), exactly PyTorch's layout, so a checkpoint
can be loaded into a new optimizer built over a new model with the same structure.
"""

from __future__ import annotations

import copy
import functools
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable
from itertools import chain
from typing import Any

import minitorch

from .._tensor import Tensor


class _RequiredParameter:
    """Marks a default that every parameter group must give (``defaults={"lr": required}``)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def _typename(obj) -> str:
    """How PyTorch names a value's type in errors (``torch.typename``)."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(type(obj), "__module__", "") or ""
    name = type(obj).__qualname__
    return name if module in ("", "builtins") else f"{module}.{name}"


def _scalar_dtype():
    """The dtype of 0-d state such as ``"step"``: float64 if that is the default dtype, else float32."""
    return minitorch.float64 if minitorch.get_default_dtype() == minitorch.float64 else minitorch.float32


def _zero_step(device=None) -> Tensor:
    """A fresh step counter: a 0-d float tensor, as PyTorch keeps it (on the CPU unless told otherwise).

    Reading it back with ``.item()`` from the CPU costs no wait for a GPU.
    """
    return minitorch.tensor(0.0, dtype=_scalar_dtype(), device=device)


def _check_non_negative(**options) -> None:
    """PyTorch's ``ValueError`` for the first option, in the order given, that is negative (or NaN)."""
    for name, value in options.items():
        if not 0.0 <= value:
            label = {"lr": "learning rate", "eps": "epsilon value"}.get(name, f"{name} value")
            raise ValueError(f"Invalid {label}: {value}")


# The options that choose how PyTorch runs an update, not what it computes. PyTorch records
# them in every parameter group (so they appear in ``state_dict()["param_groups"]``):
#   foreach         None/True/False: one loop over the parameters, or "multi-tensor" kernels that
#                   update a whole list at once. Same numbers; minitorch has the loop only.
#   fused           None/True/False: one fused kernel per parameter. Same numbers; minitorch
#                   records the choice and runs its one implementation.
#   capturable      True: keep the step counter on the parameter's device (for CUDA graphs).
#   differentiable  True: run ``step()`` with autograd recording, so the updated parameters are
#                   functions of the gradients and the hyperparameters (meta-learning).
IMPLEMENTATION_FLAGS = ("foreach", "fused", "capturable", "differentiable")


def _check_implementation_flags(*, foreach=None, fused=None, differentiable=False) -> None:
    """PyTorch's errors for combinations of the implementation flags that cannot run together."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def _use_grad_for_differentiable(step: Callable) -> Callable:
    """Run ``step`` with recording on if the optimizer was built with ``differentiable=True``, else off.

    An ordinary update must not enter the graph (it is not part of the model's computation);
    a differentiable one must, so that ``updated_param`` is a function of, say, the learning
    rate or the gradient, and a meta-gradient can flow through the update.
    """

    @functools.wraps(step)
    def step_with_grad_mode(self, *args, **kwargs):
        with minitorch.set_grad_enabled(bool(self.defaults.get("differentiable", False))):
            return step(self, *args, **kwargs)

    return step_with_grad_mode


def _step_device(param: Tensor, group: dict[str, Any]):
    """Where a new step counter lives: on the parameter's device if capturable or fused, else the CPU."""
    return param.device if group.get("capturable") or group.get("fused") else None


def _check_betas(betas) -> None:
    """Adam-style decay rates must lie in [0, 1)."""
    for index, beta in enumerate(betas[:2]):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {index}: {beta}")


class Optimizer:
    """Base class of all optimizers.

    Args:
        params: an iterable of tensors, or of dicts (parameter groups) each with a ``"params"``
            entry and any options that differ from ``defaults``.
        defaults: the default value of every option of the algorithm.

    A subclass sets its defaults and writes ``step``. Here is a complete optimizer, sign SGD
    (each parameter moves by ``lr`` against the sign of its gradient):

        >>> import minitorch
        >>> from minitorch.optim import Optimizer
        >>> class SignSGD(Optimizer):
        ...     def __init__(self, params, lr=0.01):
        ...         super().__init__(params, {"lr": lr})
        ...
        ...     @minitorch.no_grad()
        ...     def step(self, closure=None):
        ...         loss = None
        ...         if closure is not None:
        ...             with minitorch.enable_grad():
        ...                 loss = closure()
        ...         for group in self.param_groups:
        ...             for param in group["params"]:
        ...                 if param.grad is not None:
        ...                     param.add_(param.grad.sign(), alpha=-group["lr"])
        ...         return loss
        >>> weight = minitorch.tensor([1.0, -2.0], requires_grad=True)
        >>> optimizer = SignSGD([weight], lr=0.5)
        >>> (weight * weight).sum().backward()
        >>> optimizer.step()
        >>> weight
        tensor([ 0.5000, -1.5000], requires_grad=True)

    Whatever the algorithm must remember goes in ``self.state[param]`` (a dict, created empty
    on first use), which ``state_dict()`` then saves for you.
    """

    def __init__(self, params: Iterable, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, but got "
                + _typename(params)
            )
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    # -- parameter groups ---------------------------------------------------------------
    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters with its own options (e.g. a layer unfrozen during fine-tuning).

        Options missing from ``param_group`` take the optimizer's defaults.
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the ordering of tensors in "
                "sets will change between runs. Please use a list instead."
            )
        # ``model.named_parameters()`` gives (name, tensor) pairs; the names are kept beside the tensors.
        tensors, names = [], []
        for param in params:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names

        for param in tensors:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + _typename(param))
            # An intermediate result is recomputed from the leaves on every forward pass:
            # changing it in place would be overwritten, so only leaves can be optimized (a
            # differentiable optimizer is the exception: its update is part of the graph).
            if not self.defaults.get("differentiable", False) and not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)

        if len(tensors) != len(set(tensors)):
            # PyTorch only warns here (a future version will raise); each duplicate would be updated twice.
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, this will cause an error; "
                "see github.com/pytorch/pytorch/issues/40967 for more information",
                stacklevel=3,
            )
        already_optimized: set[Tensor] = set()
        for group in self.param_groups:
            already_optimized.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. "
                    f"cannot add param group {which} to the optimizer"
                )
        if not already_optimized.isdisjoint(tensors):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # -- one training step ----------------------------------------------------------------
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients of the last backward pass before the next one accumulates new ones.

        ``set_to_none=True`` (the default) drops them (``param.grad`` becomes None, and a step
        skips that parameter); ``False`` fills them with zeros instead.
        """
        for group in self.param_groups:
            for param in group["params"]:
                grad = param.grad
                if grad is None:
                    continue
                if set_to_none:
                    param.grad = None
                else:
                    if grad.grad_fn is not None:
                        grad.detach_()
                    else:
                        grad.requires_grad_(False)
                    grad.zero_()

    @staticmethod
    def _evaluate_closure(closure: Callable[[], Any] | None):
        """Run ``closure`` (which recomputes the loss and calls backward) with recording on; return its loss."""
        if closure is None:
            return None
        with minitorch.enable_grad():
            return closure()

    # -- checkpoints ----------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """The optimizer's state as ``{"state": {index: {...}}, "param_groups": [{..., "params": [indices]}]}``.

        Parameters are replaced by their position across all groups, so the dict refers to no
        model. State tensors are copies: the checkpoint does not change as training goes on.
        """
        index_of: dict[int, int] = {}
        next_index = 0

        def pack_group(group: dict[str, Any]) -> dict[str, Any]:
            nonlocal next_index
            packed = {key: value for key, value in group.items() if key != "params"}
            for param in group["params"]:
                if id(param) not in index_of:
                    index_of[id(param)] = next_index
                    next_index += 1
            packed["params"] = [index_of[id(param)] for param in group["params"]]
            return packed

        param_groups = [pack_group(group) for group in self.param_groups]
        packed_state = {
            (index_of[id(key)] if isinstance(key, Tensor) else key): _copy_state(value)
            for key, value in self.state.items()
        }
        return {"state": packed_state, "param_groups": param_groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore groups and state saved by ``state_dict`` onto this optimizer's parameters.

        The groups must match in number and size. Floating-point state is converted to each
        parameter's dtype and device (``"step"`` keeps its own); everything is copied.
        """
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(group["params"]) != len(saved["params"]) for group, saved in zip(groups, saved_groups)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"
            )

        param_of_index = dict(
            zip(
                chain.from_iterable(saved["params"] for saved in saved_groups),
                chain.from_iterable(group["params"] for group in groups),
            )
        )
        state: defaultdict[Any, dict[str, Any]] = defaultdict(dict)
        for index, value in state_dict["state"].items():
            if index in param_of_index:
                param = param_of_index[index]
                state[param] = _cast_state(param, value)
            else:
                state[index] = _copy_state(value)

        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            # A checkpoint from before the implementation flags were recorded runs as the default.
            for flag in IMPLEMENTATION_FLAGS:
                if flag in self.defaults:
                    saved.setdefault(flag, self.defaults[flag])
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
        self.state = state
        self.param_groups = saved_groups

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def __repr__(self) -> str:
        text = self.__class__.__name__ + " ("
        for index, group in enumerate(self.param_groups):
            text += f"\nParameter Group {index}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"


def _copy_state(value):
    """A copy of one state entry: tensors cloned, containers rebuilt, other values as they are."""
    if isinstance(value, Tensor):
        return value.detach().to(copy=True)
    if isinstance(value, dict):
        return {key: _copy_state(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_copy_state(item) for item in value)
    return value


def _cast_state(param: Tensor, value, key=None):
    """A loaded state entry on ``param``'s device; floating state also takes ``param``'s dtype.

    ``"step"`` keeps its dtype (the counter is always a float32/float64 0-d tensor).
    """
    if isinstance(value, Tensor):
        if key == "step":
            return value.detach().to(copy=True)
        if param.is_floating_point():
            return value.detach().to(device=param.device, dtype=param.dtype, copy=True)
        return value.detach().to(device=param.device, copy=True)
    if isinstance(value, dict):
        return {name: _cast_state(param, item, key=name) for name, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_state(param, item) for item in value)
    return value
