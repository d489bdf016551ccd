"""Lazy modules: layers whose input size is read from the first input instead of being given.

``nn.LazyLinear(10)`` is a ``Linear`` that does not know its ``in_features`` yet. Its ``weight``
and ``bias`` are ``UninitializedParameter``s (no shape, no values). The first call runs a
forward pre-hook, ``_infer_parameters``, before ``forward``: the layer reads the size it needs
from the input (``input.shape[-1]`` for Linear, ``input.shape[1]`` for a convolution or a batch
norm), gives its parameters that shape (``materialize``), initialises them as the eager layer
would (``reset_parameters``), removes its hooks and becomes the eager class: after one batch,
``type(layer)`` is ``Linear``. The parameters keep their identity throughout, so an optimizer
made before the first batch updates them.

    >>> import minitorch
    >>> layer = minitorch.nn.LazyLinear(2)
    >>> layer
    LazyLinear(in_features=0, out_features=2, bias=True)
    >>> layer(minitorch.ones(4, 3)).shape
    minitorch.Size([4, 2])
    >>> layer
    Linear(in_features=3, out_features=2, bias=True)

A lazily built network draws its initial weights at its first batch, after every eager layer has
drawn its own, so under one seed it starts from other numbers than the same network built eagerly
(PyTorch's documentation says the same). The lazy versions of each layer sit beside it, in
``linear.py``, ``conv.py``, ``batchnorm.py`` and ``instancenorm.py``, as in PyTorch.
"""

from __future__ import annotations

from typing import Any

from ..parameter import is_lazy

__all__ = ["LazyModuleMixin"]


class LazyModuleMixin:
    """Put first in a layer's bases (``class LazyLinear(LazyModuleMixin, Linear)``) to infer its sizes.

    The layer defines ``initialize_parameters(*inputs)`` (materialize each uninitialized parameter
    and buffer, then ``reset_parameters()``) and names the eager class in ``cls_to_become``.
    """

    cls_to_become: type | None = None

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)

    def initialize_parameters(self, *args, **kwargs) -> None:
        raise NotImplementedError(f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self) -> bool:
        """Whether any of this module's own parameters or buffers is still uninitialized."""
        return any(is_lazy(tensor) for tensor in [*self._parameters.values(), *self._buffers.values()])

    def _infer_parameters(self, module, args, kwargs=None) -> None:
        """The forward pre-hook of the first call: size the parameters from the inputs, then become eager."""
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._materialize()

    def _materialize(self) -> None:
        self._initialize_hook.remove()
        del self._initialize_hook
        if self.cls_to_become is not None:
            self.__class__ = self.cls_to_become

    # -- saving and loading ---------------------------------------------------------------------
    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        # An uninitialized parameter is saved as itself (detaching it would make an empty plain tensor).
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if is_lazy(param) or keep_vars else param.detach()
        for name, buffer in self._buffers.items():
            if buffer is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buffer if is_lazy(buffer) or keep_vars else buffer.detach()

    def _load_from_state_dict(self, state_dict, prefix: str, local_metadata: dict, strict: bool,
                              missing_keys: list, unexpected_keys: list, error_msgs: list) -> None:
        # A lazy module that loads initialized values takes their shapes first, then loads them as usual. It
        # stays a lazy module until its next call, which finds nothing to initialize and makes it eager.
        for name, tensor in [*self._parameters.items(), *self._buffers.items()]:
            key = prefix + name
            if tensor is not None and is_lazy(tensor) and key in state_dict and not is_lazy(state_dict[key]):
                tensor.materialize(state_dict[key].shape)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def _replicate_for_data_parallel(self) -> Any:
        raise RuntimeError(
            "Modules with uninitialized parameters can't be used with `DataParallel`. "
            "Run a dummy forward pass to correctly initialize the modules"
        )
