"""Parametrizations: a module's tensor computed, on every access, from other tensors (``torch.nn.utils.parametrize``).

A parametrization is a module ``f``. After ``register_parametrization(layer, "weight", f)``:

* the tensor that was ``layer.weight`` moves to ``layer.parametrizations.weight.original``
  (still a ``Parameter``: the optimizer trains it);
* ``layer.weight`` becomes a property that returns ``f(original)``, recomputed at each
  access, so gradients flow through ``f`` into ``original``. Keeping ``weight`` symmetric,
  orthogonal or of unit norm is then a matter of writing ``f``;
* if ``f`` has a ``right_inverse``, registering sets ``original = f.right_inverse(weight)``
  (so ``layer.weight`` keeps its value when ``f`` allows it), and ``layer.weight = X`` stores
  ``right_inverse(X)``.

Several parametrizations of one tensor compose in registration order:
``weight = f2(f1(original))``. The module's class is swapped for a subclass named
``Parametrized<Class>`` that holds the properties, exactly as PyTorch does, so two modules
of one class never share a parametrization. ``cached()`` computes each parametrized tensor
once inside its ``with`` block (useful when one forward pass reads it many times).

    >>> import minitorch
    >>> from minitorch import nn
    >>> from minitorch.nn.utils import parametrize
    >>> class Symmetric(nn.Module):
    ...     def forward(self, X):
    ...         return X.triu() + X.triu(1).transpose(-1, -2)
    >>> layer = parametrize.register_parametrization(nn.Linear(3, 3), "weight", Symmetric())
    >>> bool((layer.weight == layer.weight.T).all())
    True
    >>> type(layer).__name__
    'ParametrizedLinear'
"""

from __future__ import annotations

import collections.abc
import copy
import copyreg
from collections.abc import Sequence
from contextlib import contextmanager

from ... import _tensor
from ...autograd.grad_mode import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..modules.module import Module
from ..parameter import Parameter

Tensor = _tensor.Tensor

__all__ = [
    "ParametrizationList", "cached", "is_parametrized", "register_parametrization", "remove_parametrizations",
    "type_before_parametrizations", "transfer_parametrizations_and_params",
]

_cache_enabled = 0
_cache: dict[tuple[int, str], Tensor] = {}


@contextmanager
def cached():
    """Inside this block, each parametrized tensor is computed once, on its first access, and reused.

    A recurrent network that reads ``weight`` at every time step then runs the
    parametrization once per forward pass instead of once per step. The cache is emptied
    when the outermost block ends.
    """
    global _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache.clear()


def _register_parameter_or_buffer(module: Module, name: str, value: Tensor) -> None:
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _set_value(destination: Tensor, source: Tensor) -> None:
    """``destination.set_(source)``: the same tensor object (an optimizer may hold it) takes ``source``'s values."""
    destination.data = source


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, in order, and the unconstrained tensor(s) they start from.

    ``original`` (or ``original0``, ``original1``, ... when the first ``right_inverse`` returns
    several tensors) is registered here as a parameter or buffer, like the tensor it replaces.
    Calling the list computes ``f_n(...f_2(f_1(original)))``.
    """

    def __init__(self, modules: Sequence[Module], original: Tensor, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype

        # The tensor to store: right_inverse of the current value, through every parametrization backwards.
        with no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, Tensor) and not isinstance(new, Sequence):
            raise ValueError(
                "'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                f"Got {type(new).__name__}"
            )
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)

        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                    f"original.dtype: {original.dtype}\nright_inverse(original).dtype: {new.dtype}"
                )
            if original.device != new.device:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the device.\n"
                    f"original.device: {original.device}\nright_inverse(original).device: {new.device}"
                )
            with no_grad():
                _set_value(original, new)  # the same Parameter object, so an optimizer built before still holds it
            _register_parameter_or_buffer(self, "original", original)
        else:
            for index, original_i in enumerate(new):
                if not isinstance(original_i, Tensor):
                    raise ValueError(
                        "'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                        f"Got element {index} of the sequence with type {type(original_i).__name__}."
                    )
                if isinstance(original, Parameter):
                    original_i = Parameter(original_i, original.requires_grad)
                original_i.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{index}", original_i)

        if not self.unsafe:
            value = self()
            if not isinstance(value, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(value).__name__}.")
            if value.dtype != original_dtype:
                raise ValueError(
                    "Registering a parametrization may not change the dtype of the tensor, unless `unsafe` flag is "
                    f"enabled.\nunparametrized dtype: {original_dtype}\nparametrized dtype: {value.dtype}"
                )
            if value.shape != original_shape:
                raise ValueError(
                    "Registering a parametrization may not change the shape of the tensor, unless `unsafe` flag is "
                    f"enabled.\nunparametrized shape: {original_shape}\nparametrized shape: {value.shape}"
                )

    def right_inverse(self, value: Tensor) -> None:
        """Store ``value``: run each ``right_inverse`` from the last parametrization to the first, keep the result."""
        with no_grad():
            for module in reversed(self):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(
                        f"The tensor returned by `right_inverse` has dtype {value.dtype} while `original` has dtype "
                        f"{self.original.dtype}"
                    )
                _set_value(self.original, value)
                return
            if not isinstance(value, collections.abc.Sequence):
                raise ValueError(f"'right_inverse' must return a sequence of tensors. Got {type(value).__name__}.")
            if len(value) != self.ntensors:
                raise ValueError(
                    f"'right_inverse' must return a sequence of tensors of length {self.ntensors}. Got a sequence of "
                    f"length {len(value)}."
                )
            for index, tensor in enumerate(value):
                original_i = getattr(self, f"original{index}")
                if not isinstance(tensor, Tensor):
                    raise ValueError(
                        "'right_inverse' must return a sequence of tensors or reference-type opaques. Got element "
                        f"{index} of type {type(tensor).__name__}."
                    )
                if original_i.dtype != tensor.dtype:
                    raise ValueError(
                        f"Tensor {index} returned by `right_inverse` has dtype {tensor.dtype} while `original{index}` "
                        f"has dtype {original_i.dtype}"
                    )
                _set_value(original_i, tensor)

    def forward(self) -> Tensor:
        """``f_n(...f_1(original))``; the first parametrization takes every stored tensor as an argument."""
        if self.is_tensor:
            value = self[0](self.original)
        else:
            value = self[0](*(getattr(self, f"original{index}") for index in range(self.ntensors)))
        for module in list(self)[1:]:
            value = module(value)
        return value


def _inject_new_class(module: Module) -> None:
    """Give ``module`` a class of its own, ``Parametrized<Class>``, to carry the properties."""
    cls = module.__class__

    def default_deepcopy(self, memo):
        found = memo.get(id(self), None)
        if found is not None:
            return found
        replica = self.__new__(self.__class__)
        memo[id(self)] = replica
        replica.__dict__ = copy.deepcopy(self.__dict__, memo)
        for slot in copyreg._slotnames(self.__class__):
            if hasattr(self, slot):
                setattr(replica, slot, copy.deepcopy(getattr(self, slot), memo))
        return replica

    def getstate(self):
        raise RuntimeError(
            "Serialization of parametrized modules is only supported through state_dict(). See:\n"
            "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
            "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training"
        )

    namespace = {"__getstate__": getstate}
    if not hasattr(cls, "__deepcopy__"):
        namespace["__deepcopy__"] = default_deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), namespace)


def _inject_property(module: Module, tensor_name: str) -> None:
    """Make ``module.<tensor_name>`` a property: reading runs the parametrizations, writing runs right_inverse."""
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_parametrized(self) -> Tensor:
        parametrization = self.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        key = (id(module), tensor_name)
        tensor = _cache.get(key)
        if tensor is None:
            tensor = _cache[key] = parametrization()
        return tensor

    def set_original(self, value: Tensor) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def register_parametrization(module: Module, tensor_name: str, parametrization: Module, *,
                             unsafe: bool = False) -> Module:
    """Make ``module.<tensor_name>`` the output of ``parametrization`` applied to the tensor it replaces.

    Args:
        module: the module that holds the parameter or buffer.
        tensor_name: its name (``"weight"``).
        parametrization: a module whose ``forward`` maps the stored tensor(s) to the value;
            an optional ``right_inverse`` maps a value back to the stored tensor(s).
        unsafe: skip the checks that the parametrization keeps the shape and dtype.

    Returns the module (its class is now ``Parametrized<Class>``). A second registration on the
    same name appends to the list: the new parametrization is applied to the previous result.
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            current = getattr(module, tensor_name)
            result = parametrization(current)
            if not isinstance(result, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(result).__name__}.")
            if result.dtype != current.dtype:
                raise ValueError(
                    "Registering a parametrization may not change the dtype of the tensor, unless the `unsafe` flag "
                    f"is enabled.\nmodule.{tensor_name}.dtype: {current.dtype}\n"
                    f"parametrization(module.{tensor_name}).dtype: {result.dtype}"
                )
            if result.shape != current.shape:
                raise ValueError(
                    "Registering a parametrization may not change the shape of the tensor, unless the `unsafe` flag "
                    f"is enabled.\nmodule.{tensor_name}.shape: {current.shape}\n"
                    f"parametrization(module.{tensor_name}).shape: {result.shape}"
                )
            if hasattr(parametrization, "right_inverse"):
                try:
                    inverse = parametrization.right_inverse(result)
                except NotImplementedError:
                    pass
                else:
                    _check_inverse(inverse, current, tensor_name)
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(
            f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with name "
            f"'{tensor_name}'"
        )
    return module


def _check_inverse(inverse, current: Tensor, tensor_name: str) -> None:
    if not isinstance(inverse, Tensor):
        raise ValueError(f"parametrization.right_inverse must return a tensor. Got: {type(inverse).__name__}")
    if inverse.dtype != current.dtype:
        raise ValueError(
            "The tensor returned by parametrization.right_inverse must have the same dtype as "
            f"module.{tensor_name}, unless the `unsafe` flag is enabled.\nmodule.{tensor_name}.dtype: "
            f"{current.dtype}\nreturned dtype: {inverse.dtype}"
        )
    if inverse.shape != current.shape:
        raise ValueError(
            "The tensor returned by parametrization.right_inverse must have the same shape as "
            f"module.{tensor_name}, unless the `unsafe` flag is enabled.\nmodule.{tensor_name}.shape: "
            f"{current.shape}\nreturned shape: {inverse.shape}"
        )


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether ``module`` has a parametrization on ``tensor_name`` (on anything, if ``tensor_name`` is None)."""
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module: Module, tensor_name: str, leave_parametrized: bool = True) -> Module:
    """Undo ``register_parametrization`` on ``tensor_name``.

    ``leave_parametrized=True``: the tensor keeps its current (parametrized) value, stored in
    the original parameter object. ``False``: it goes back to the unconstrained ``original``
    (possible only when the parametrization stores one tensor). The module gets its own class
    back when nothing else is parametrized.
    """
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                value = getattr(module, tensor_name)
                _set_value(original, value)
    else:
        if not leave_parametrized:
            raise ValueError(
                "Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized in terms of "
                "a sequence of tensors."
            )
        value = getattr(module, tensor_name)
        original = Parameter(value) if value.requires_grad else value
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module: Module) -> type:
    """The class ``module`` had before any parametrization (``Linear`` for a ``ParametrizedLinear``)."""
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module: Module, to_module: Module,
                                         tensor_name: str | None = None) -> Module:
    """Give ``to_module`` the parametrizations of ``from_module`` (all, or ``tensor_name``'s) and their originals.

    The parametrization modules themselves are shared; the stored tensors are copied in.
    """
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        for parametrization in from_module.parametrizations[name]:
            if hasattr(parametrization, "right_inverse"):
                register_parametrization(to_module, name, parametrization)
            else:
                register_parametrization(to_module, name, parametrization, unsafe=True)
        with no_grad():
            source = from_module.parametrizations[name]
            target = to_module.parametrizations[name]
            if source.is_tensor:
                target.original = Parameter(source.original.detach().clone(), source.original.requires_grad)
            else:
                for index in range(source.ntensors):
                    stored = getattr(source, f"original{index}")
                    setattr(target, f"original{index}", Parameter(stored.detach().clone(), stored.requires_grad))
    return to_module
