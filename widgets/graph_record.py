"""Watching a forward pass: ``record_forward`` and the ``ForwardRecord`` it fills.

The graph alone keeps only what backward needs. Run the forward pass inside ``record_forward``
and the record also holds every op's output values, the names of the function's local
variables, and which ``nn.Module`` made each node. ``GraphStepper.capture`` (``graph.py``) does
this for you; the timeline (``graph_timeline.py``) reads the record.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager

import minitorch

from .graph_values import to_numpy

__all__ = ["ForwardRecord", "record_forward"]


# == watching a forward pass ==========================================================================
class ForwardRecord:
    """What ``record_forward`` saw: each op's output values, the module that made each node, names.

    Keys: a node's outputs are ``(id(node), output_nr)``; a leaf is ``id(tensor)``. The
    record keeps every node it saw alive, so those ids stay unique while it exists.
    """

    def __init__(self):
        self.values: dict = {}  # (id(node), output_nr) -> NumPy copy of that output
        self.node_modules: dict = {}  # id(node) -> path of the innermost module running when it was made
        self.modules: dict = {}  # module path -> type name ("" is the model itself)
        self.parameter_modules: dict = {}  # id(parameter) -> module path that owns it
        self.names: dict = {}  # (id(node), output_nr) or id(leaf) -> a name
        self._kept = []  # nodes and leaves, kept alive so their ids are not reused

    def _add_outputs(self, result, module_path) -> None:
        outputs = result if isinstance(result, tuple) else (result,)
        for output in outputs:
            if not isinstance(output, minitorch.Tensor) or output.grad_fn is None:
                continue
            node = output.grad_fn
            self.values[(id(node), output.output_nr)] = to_numpy(output)
            if id(node) not in self.node_modules:
                self.node_modules[id(node)] = module_path
                self._kept.append(node)

    def _add_names(self, variables: dict) -> None:
        for name, value in variables.items():
            if isinstance(value, minitorch.Tensor) and value.requires_grad and not name.startswith("_"):
                self.name(value, name, overwrite=False)

    def name(self, tensor, name: str, overwrite: bool = True) -> None:
        """Call ``tensor`` by ``name`` in the pictures."""
        key = id(tensor) if tensor.grad_fn is None else (id(tensor.grad_fn), tensor.output_nr)
        if overwrite or key not in self.names:
            self.names[key] = name
            self._kept.append(tensor if tensor.grad_fn is None else tensor.grad_fn)


@contextmanager
def record_forward(model=None, function=None):
    """Watch the forward pass run inside the ``with`` block; yields a ``ForwardRecord``.

    It keeps a copy of every op's output, and with ``model`` (an ``nn.Module``) it notes
    which submodule made each node, through forward hooks on every submodule. With
    ``function``, the names of that function's local variables name the tensors they hold.

        >>> import minitorch, widgets
        >>> model = minitorch.nn.Sequential(minitorch.nn.Linear(2, 2), minitorch.nn.ReLU())
        >>> with widgets.record_forward(model) as record:
        ...     loss = model(minitorch.ones(1, 2)).sum()
        >>> list(record.node_modules.values())      # linear, relu, then the sum outside the model
        ['0', '1', None]

    How: Python's profiler hook (``sys.setprofile``) sees every return from
    ``minitorch.autograd.Function.apply``, the one door through which every op passes, and
    the module hooks tell which module is running. Nothing in minitorch is changed.
    """
    record = ForwardRecord()
    stack = []
    handles = []
    if model is not None:
        for path, module in model.named_modules():
            record.modules[path] = type(module).__name__
            handles.append(module.register_forward_pre_hook(_push_module(stack, path)))
            handles.append(module.register_forward_hook(_pop_module(stack)))
        for name, parameter in model.named_parameters():
            record.parameter_modules[id(parameter)] = name.rpartition(".")[0]
            record.name(parameter, name)

    apply_code = minitorch.autograd.Function.apply.__func__.__code__
    function_code = getattr(function, "__code__", None)
    previous = sys.getprofile()

    def profiler(frame, event, argument):
        if event == "return":
            code = frame.f_code
            if code is apply_code:
                record._add_outputs(argument, stack[-1] if stack else None)
            elif code is function_code:
                record._add_names(frame.f_locals)
        if previous is not None:
            previous(frame, event, argument)

    sys.setprofile(profiler)
    try:
        yield record
    finally:
        sys.setprofile(previous)
        for handle in handles:
            handle.remove()


def _push_module(stack, path):
    def hook(module, inputs):
        stack.append(path)

    return hook


def _pop_module(stack):
    def hook(module, inputs, output):
        if stack:
            stack.pop()

    return hook
