"""``GraphModule``: a ``Module`` whose ``forward`` is generated from a ``Graph``.

It holds the graph (``.graph``), the Python source generated from it (``.code``) and the
submodules, parameters and buffers that the graph's ``call_module`` and ``get_attr`` nodes
name, copied by reference from the module that was traced. After editing the graph, call
``recompile()`` to generate ``forward`` again.

    >>> import minitorch
    >>> from minitorch import fx
    >>> def double_then_relu(x):
    ...     return minitorch.relu(x * 2)
    >>> traced = fx.symbolic_trace(double_then_relu)
    >>> traced(minitorch.tensor([-1.0, 3.0]))
    tensor([0., 6.])
"""

from __future__ import annotations

import itertools
import linecache

from .._tensor import Tensor
from ..nn import Module, Parameter
from .graph import Graph

_source_numbers = itertools.count()


def _forward_from_source(source: str, globals_: dict):
    """Execute the generated source and return its ``forward``; the source is registered with
    ``linecache`` so a traceback through the generated code shows its lines."""
    filename = f"<eval_with_key>.{next(_source_numbers)}"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    namespace = dict(globals_)
    exec(compile(source, filename, "exec"), namespace)
    return namespace["forward"]


def _copy_attr(from_module: Module, to_module: Module, target: str) -> None:
    """Make ``to_module.<target>`` the object ``from_module.<target>`` is, with empty modules on the way."""
    *prefix, field = target.split(".")
    for item in prefix:
        source, destination = getattr(from_module, item), getattr(to_module, item, None)
        if destination is None or destination is not source and not isinstance(destination, Module):
            destination = Module()
            setattr(to_module, item, destination)
        from_module, to_module = source, destination
    value = getattr(from_module, field)
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        to_module.register_buffer(field, value)  # a tensor that is not a parameter: a buffer, as in PyTorch
    else:
        setattr(to_module, field, value)


def _assign_attr(value, to_module: Module, target: str) -> None:
    *prefix, field = target.split(".")
    for item in prefix:
        destination = getattr(to_module, item, None)
        if destination is None:
            destination = Module()
            setattr(to_module, item, destination)
        to_module = destination
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        to_module.register_buffer(field, value)
    else:
        setattr(to_module, field, value)


class GraphModule(Module):
    """A module generated from ``graph``, with the attributes it reads taken from ``root``.

    ``root`` is the traced module (its submodules and tensors named by the graph are shared)
    or a dict from each dotted target to the object it stands for.
    """

    def __new__(cls, *args, **kwargs):
        # Each instance gets a class of its own, so ``recompile`` can set ``forward`` on it
        # without changing other GraphModules.
        class GraphModuleImpl(cls):
            pass

        return super().__new__(GraphModuleImpl)

    def __init__(self, root: Module | dict, graph: Graph, class_name: str = "GraphModule"):
        super().__init__()
        type(self).__name__ = class_name
        self.training = getattr(root, "training", True)
        for node in graph.nodes:
            if node.op in ("get_attr", "call_module"):
                if isinstance(root, Module):
                    _copy_attr(root, self, node.target)
                elif node.target in root:
                    _assign_attr(root[node.target], self, node.target)
                else:
                    raise RuntimeError(f"Node {node} referenced target {node.target} but that target was not "
                                       "provided in ``root``!")
        self.graph = graph

    @property
    def graph(self) -> Graph:
        return self.__dict__["_graph"]

    @graph.setter
    def graph(self, graph: Graph) -> None:
        self.__dict__["_graph"] = graph
        graph.owning_module = self
        self.recompile()

    @property
    def code(self) -> str:
        """The Python source of ``forward``, generated from the graph."""
        return self.__dict__["_code"]

    def recompile(self):
        """Generate ``forward`` from the graph again (after the graph was edited)."""
        python_code = self.graph.python_code(root_module="self")
        self.__dict__["_code"] = python_code.src
        type(self).forward = _forward_from_source(python_code.src, python_code.globals)
        return python_code

    def print_readable(self, print_output: bool = True) -> str:
        text = f"class {type(self).__name__}(minitorch.nn.Module):{self.code}"
        if print_output:
            print(text)
        return text

    # -- managing the submodules the graph calls ------------------------------------------------
    def add_submodule(self, target: str, m: Module) -> bool:
        """Install ``m`` at the dotted path ``target`` (making empty modules on the way)."""
        *prefix, field = target.split(".")
        owner = self
        for item in prefix:
            child = getattr(owner, item, None)
            if child is None:
                child = Module()
                setattr(owner, item, child)
            if not isinstance(child, Module):
                return False
            owner = child
        setattr(owner, field, m)
        return True

    def delete_submodule(self, target: str) -> bool:
        """Remove the submodule at ``target``; False if there is none."""
        *prefix, field = target.split(".")
        owner = self
        for item in prefix:
            owner = getattr(owner, item, None)
            if not isinstance(owner, Module):
                return False
        if field not in owner._modules:
            return False
        delattr(owner, field)
        return True

    def __str__(self) -> str:
        return f"{super().__repr__()}\n\n\n\n{self.code}"
