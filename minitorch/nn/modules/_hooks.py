"""Hook plumbing for modules: removable handles, and how full backward hooks see gradients.

A *full backward hook* on a module wants two things at once: the gradients with respect
to the module's outputs (``grad_output``) and with respect to its inputs
(``grad_input``). Autograd has no "module" node, so, like PyTorch, the module wraps its
inputs and its outputs in an identity ``Function`` (``BackwardHookFunction``). The node
behind the outputs sees ``grad_output`` first and remembers it; the node in front of the
inputs later sees ``grad_input`` and then calls the user's hooks with both.
"""

from __future__ import annotations

import itertools
import warnings

from ..._creation import zeros
from ..._tensor import Tensor
from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled

_handle_ids = itertools.count()


class RemovableHandle:
    """Returned by every ``register_*_hook``: ``handle.remove()`` takes the hook off again.

    Also a context manager: ``with module.register_forward_hook(f): ...`` removes it on exit.
    """

    def __init__(self, hooks_dict: dict, *, extra_dict=None):
        self.hooks_dict = hooks_dict
        self.id = next(_handle_ids)
        if extra_dict is None:
            extra_dict = ()
        elif isinstance(extra_dict, dict):
            extra_dict = (extra_dict,)
        self.extra_dicts = tuple(extra_dict)

    def remove(self) -> None:
        for dictionary in (self.hooks_dict,) + self.extra_dicts:
            dictionary.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc_info) -> None:
        self.remove()


class BackwardHookFunction(Function):
    """The identity on several tensors; its graph node is where module backward hooks attach."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[arg for arg in args if not arg.requires_grad])
        # Gradients that never arrived stay None, so the output-side hook reports them as None.
        ctx.set_materialize_grads(False)
        return args

    @staticmethod
    def backward(ctx, *grads):
        return grads


class BackwardHook:
    """Connects one forward call of ``module`` to its full backward (pre-)hooks (see the module docstring).

    Non-tensor inputs and outputs appear as ``None`` in ``grad_input`` / ``grad_output``,
    so the tuples line up with the positional arguments and outputs of ``forward``.
    """

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None
        self.input_meta = ()  # (shape, dtype, device) of each tensor input

    @staticmethod
    def _pack_with_none(indices, values, size) -> tuple:
        packed = [None] * size
        for index, value in zip(indices, values):
            packed[index] = value
        return tuple(packed)

    @staticmethod
    def _unpack_none(indices, values) -> tuple:
        return tuple(values[index] for index in indices)

    def _apply_on_tensors(self, attach, args):
        """Pass the tensors among ``args`` through ``BackwardHookFunction`` and ``attach`` a hook to its node."""
        tensor_indices = [index for index, arg in enumerate(args) if isinstance(arg, Tensor)]
        tensors = [args[index] for index in tensor_indices]
        if not (any(t.requires_grad for t in tensors) and is_grad_enabled()):
            return args, None
        wrapped = BackwardHookFunction.apply(*tensors)
        if not isinstance(wrapped, tuple):
            wrapped = (wrapped,)
        attach(next(t.grad_fn for t in wrapped if t.grad_fn is not None))
        new_args = list(args)
        for index, value in zip(tensor_indices, wrapped):
            new_args[index] = value
        return tuple(new_args), tensor_indices

    def setup_input_hook(self, args):
        """Wrap the inputs: the node in front of them calls the user hooks with ``grad_input``."""

        def attach(grad_fn):
            def hook(grad_input, _grad_output):
                if self.grad_outputs is None:
                    # The gradient reached the inputs without passing through the outputs
                    # (double backward, for instance): there is no grad_output to report.
                    return None
                # Like PyTorch, a tensor input that received no gradient is reported with zeros.
                grad_input = [
                    zeros(shape, dtype=dtype, device=device) if grad is None else grad
                    for grad, (shape, dtype, device) in zip(grad_input, self.input_meta)
                ]
                result = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
                for user_hook in self.user_hooks:
                    replaced = user_hook(self.module, result, self.grad_outputs)
                    if replaced is None:
                        continue
                    if len(replaced) != len(result):
                        raise RuntimeError(
                            "Backward hook returned an invalid number of grad_input, "
                            f"got {len(replaced)}, but expected {len(result)}"
                        )
                    result = replaced
                self.grad_outputs = None
                return self._unpack_none(self.input_tensors_index, result)

            grad_fn.register_hook(hook)

        wrapped, indices = self._apply_on_tensors(attach, args)
        self.n_inputs = len(args)
        self.input_tensors_index = indices
        if indices is not None:
            self.input_meta = [(args[i].shape, args[i].dtype, args[i].device) for i in indices]
        return wrapped

    def setup_output_hook(self, outputs):
        """Wrap the outputs: the node behind them records ``grad_output`` (after the pre-hooks)."""

        def attach(grad_fn):
            def hook(_grad_input, grad_output):
                self.grad_outputs = self._pack_with_none(self.output_tensors_index, grad_output, self.n_outputs)
                for user_pre_hook in self.user_pre_hooks:
                    replaced = user_pre_hook(self.module, self.grad_outputs)
                    if replaced is None:
                        continue
                    if len(replaced) != len(self.grad_outputs):
                        raise RuntimeError(
                            "Backward pre hook returned an invalid number of grad_output, "
                            f"got {len(replaced)}, but expected {len(self.grad_outputs)}"
                        )
                    self.grad_outputs = replaced
                local_grad_outputs = self.grad_outputs
                if self.input_tensors_index is None:
                    # No input needs a gradient, so the input-side node never runs: call the hooks now.
                    warnings.warn(
                        "Full backward hook is firing when gradients are computed with respect to module outputs "
                        "since no inputs require gradients.",
                        stacklevel=2,
                    )
                    grad_inputs = (None,) * self.n_inputs
                    for user_hook in self.user_hooks:
                        result = user_hook(self.module, grad_inputs, self.grad_outputs)
                        if result is not None and not (isinstance(result, tuple) and all(r is None for r in result)):
                            raise RuntimeError(
                                "Backward hook for Modules where no input requires gradient should always return "
                                "None or None for all gradients."
                            )
                    self.grad_outputs = None
                return tuple(local_grad_outputs[index] for index in self.output_tensors_index)

            grad_fn.register_hook(hook)

        is_tuple = isinstance(outputs, tuple)
        as_tuple = outputs if is_tuple else (outputs,)
        wrapped, indices = self._apply_on_tensors(attach, as_tuple)
        self.n_outputs = len(as_tuple)
        self.output_tensors_index = indices
        return wrapped if is_tuple else wrapped[0]
