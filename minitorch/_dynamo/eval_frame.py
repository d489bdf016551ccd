"""What ``minitorch.compile`` returns: a function that captures once per input signature, then reuses.

On each call:

1. the *guards* of the call are read (``guard_key``): each input tensor's shape, dtype,
   device and ``requires_grad``; every other argument's value; which inputs are the same
   tensor; grad mode and the default dtype; each module's training flag and whether it has
   hooks, and its plain settings (``eps``, a scale); each parameter's ``requires_grad`` (and, on
   use, that it is still the same object); the numbers and strings a compiled function reads
   from its globals and closure;
2. if a compiled graph exists for exactly these guards, it runs;
3. if not, the call runs eagerly while ``capture.py`` records it, the graph goes to the
   backend (``backends.py``), and the compiled result is kept under these guards. A call
   with new guards (a new batch size, ``model.eval()``) compiles again: a *recompile*.
   After ``recompile_limit`` graphs (8, PyTorch's default) it stops compiling and warns.
4. a branch on a tensor's value (``if x.sum() > 0:``, ``t.item()``) splits the function into
   compiled graphs before and after it, the branch itself run in Python (``split.py``,
   ``_SplitRunner``), and so does ``print``; when the capture met something else a graph
   cannot hold (a *graph break*: random draws, hooks), the reason is kept and every call with these guards runs
   eagerly; ``fullgraph=True`` raises on either;
5. a few checks depend on values and run inside the compiled program (labels and indices in
   range, the size of ``x[mask]``): when one fails (``GuardFailed``), that call runs eagerly.

``dynamic=True`` makes the sizes symbolic from the first call, and by default the sizes that
changed between two calls become symbolic on the second (``dynamic.py``): a new batch size
then passes the guards, while dtype, device, ``requires_grad`` and training still recompile.
"""

from __future__ import annotations

import functools
import time
import warnings

from .._dtype import get_default_dtype
from .._tensor import Tensor
from ..autograd.grad_mode import _GradState
from ..nn import Module
from . import config, dynamic
from .capture import GraphBreak, GuardFailed, capture, flatten, unflatten
from .split import SplitProgram, split_path


class NewSize(Exception):
    """A graph with symbolic sizes met sizes it has not served yet (``CompiledFunction._check_size``)."""

    def __init__(self, tensors: list):
        super().__init__()
        self.tensors = tensors


class Unsupported(RuntimeError):
    """``fullgraph=True`` and the function has a graph break (``torch._dynamo.exc.Unsupported``)."""


# Values a graph bakes in as constants: a change of one is a new graph (PyTorch guards them too).
_SETTINGS = (bool, int, float, str, type(None))


def _cell_value(cell):
    try:
        return cell.cell_contents
    except ValueError:  # a closure variable not assigned yet
        return None


def _tensor_guard(tensor: Tensor) -> tuple:
    return (tensor._data.shape, tensor._data.dtype, tensor._device, tensor._requires_grad)


def _aliasing(tensors) -> tuple | None:
    """None when every input tensor is a different object; else, per input, the position of its first occurrence
    (the graph of ``f(x, x)`` reads one placeholder twice, so it must not serve ``f(x, y)``)."""
    identities = [id(tensor) for tensor in tensors]
    if len(set(identities)) == len(identities):
        return None
    return tuple(identities.index(identity) for identity in identities)


class CompiledFunction:
    """``function`` compiled with ``backend``, one graph per set of guards."""

    def __init__(self, function, backend, *, fullgraph: bool = False, module: Module | None = None,
                 recompile_limit: int | None = None, dynamic: bool | None = None):
        self.function, self.backend, self.fullgraph = function, backend, fullgraph
        # ``dynamic``: True makes every size symbolic from the first call, None (PyTorch's default) the sizes
        # that changed between two calls, False none (``dynamic.py``)
        self.dynamic = dynamic
        self.dynamic_dims: set = set()  # (input position, dim) read as symbolic sizes by the guards
        self.sizes_seen: dict = {}  # the guards without sizes -> the input shapes compiled for them
        self.dynamic_failed = dynamic is False
        self.module = module
        self.modules = list(module.modules()) if module is not None else []
        self.parameters = list(module.parameters()) if module is not None else []
        # the globals and closure cells of a compiled function that hold plain values: read by every guard check
        code, globals_ = getattr(function, "__code__", None), getattr(function, "__globals__", {})
        self.setting_globals = [name for name in (code.co_names if code is not None and module is None else ())
                                if type(globals_.get(name, object())) in _SETTINGS]
        self.setting_cells = [cell for cell in (getattr(function, "__closure__", None) or ()) if module is None and
                              type(_cell_value(cell)) in _SETTINGS]
        # each module's attributes holding plain values (training, eps, a scale): read by every guard check
        self.settings = [(m.__dict__, [name for name, value in m.__dict__.items() if type(value) in _SETTINGS])
                         for m in self.modules]
        named = {}
        if module is not None:
            for name, tensor in list(module.named_parameters()) + list(module.named_buffers()):
                named.setdefault(id(tensor), (name, tensor))
        self.named_tensors = named
        self.recompile_limit = recompile_limit
        self.cache: dict = {}  # guards -> a runner, or the GraphBreak that made these guards run eagerly
        self.compile_count = 0  # graphs handed to the backend
        self.graphs: list = []  # the captured GraphModules, in order
        self.graph_breaks: list[GraphBreak] = []
        self.compile_times: list[float] = []

    def _read_settings(self) -> tuple:
        """The plain values a compiled function reads from its globals and closure (``scale = 2.0``)."""
        globals_ = self.function.__globals__ if self.setting_globals else None
        return tuple([globals_.get(name) for name in self.setting_globals] +
                     [_cell_value(cell) for cell in self.setting_cells])

    def guard_key(self, args: tuple, kwargs: dict):
        """Everything a captured graph depends on besides the values of its input tensors."""
        state = (_GradState.enabled, get_default_dtype(),
                 # each module's plain settings (training, eps, a scale...) and whether it has hooks
                 tuple([attributes.get(name) for attributes, names in self.settings for name in names]),
                 tuple([not m._forward_hooks and not m._forward_pre_hooks for m in self.modules]),
                 tuple([p._requires_grad for p in self.parameters]), self._read_settings())
        if not kwargs and all(type(arg) is Tensor for arg in args):  # the common case, read fast
            if not self.dynamic_dims:
                return state + (_aliasing(args),) + tuple([_tensor_guard(arg) for arg in args])
            return state + (_aliasing(args),) + self._symbolic_guards(args)
        tensors, spec = flatten((args, kwargs))
        if self.dynamic_dims:
            return state + (spec, _aliasing(tensors)) + self._symbolic_guards(tensors)
        return state + (spec, _aliasing(tensors)) + tuple([_tensor_guard(t) for t in tensors])

    def _symbolic_guards(self, tensors, dims=None) -> tuple:
        """The tensors' guards with each symbolic size (of at least 2) replaced by which symbolic size it
        equals: a new batch size passes, a size of 1 or sizes no longer equal to each other do not."""
        dims = self.dynamic_dims if dims is None else dims
        guards, first_of = [], {}
        for index, tensor in enumerate(tensors):
            shape = list(tensor._data.shape)
            for dim, size in enumerate(shape):
                if (index, dim) in dims and size >= 2:
                    shape[dim] = ("symbolic", first_of.setdefault(size, len(first_of)))
            guards.append((tuple(shape), tensor._data.dtype, tensor._device, tensor._requires_grad))
        return tuple(guards)

    def __call__(self, *args, **kwargs):
        key = self.guard_key(args, kwargs)
        try:
            entry = self.cache.get(key)
        except TypeError:  # an argument that cannot be hashed cannot be guarded
            return self._eager(args, kwargs, GraphBreak("an argument of the compiled function cannot be guarded "
                                                        "(it is not hashable)"))
        if entry is None:
            return self._compile(key, args, kwargs)
        if type(entry) is GraphBreak:
            return self.function(*args, **kwargs)
        if entry.owners and not entry.still_valid():  # a parameter was replaced: capture again
            del self.cache[key]
            return self._compile(key, args, kwargs)
        try:
            return entry(args, kwargs)
        except NewSize as new:
            return self._check_size(entry, new.tensors, args, kwargs)
        except GuardFailed:  # a value the graph was not compiled for (an index out of range): run eagerly
            return self.function(*args, **kwargs)

    def _owners(self, graph_module) -> list:
        """(the module's ``_parameters`` or ``_buffers``, name, tensor) for each parameter or buffer the graph reads."""
        owners = []
        for node in graph_module.graph.nodes:
            if node.op == "get_attr" and not node.target.startswith("_tensor_constant") and self.module is not None:
                *path, name = node.target.split(".")
                owner = self.module.get_submodule(".".join(path)) if path else self.module
                holder = owner._parameters if name in owner._parameters else owner._buffers
                owners.append((holder, name, holder[name]))
        return owners

    def _eager(self, args, kwargs, graph_break: GraphBreak):
        if self.fullgraph:
            raise Unsupported(graph_break.reason)
        return self.function(*args, **kwargs)

    def _compile(self, key, args, kwargs):
        limit = self.recompile_limit if self.recompile_limit is not None else \
            min(config.cache_size_limit, config.recompile_limit)  # PyTorch 2.13 has both names
        if len(self.cache) >= limit:
            reason = f"cache_size_limit reached: {limit} graphs already compiled for this function"
            warnings.warn(f"minitorch._dynamo hit config.cache_size_limit ({limit}) for "
                          f"{getattr(self.function, '__name__', 'the function')}: later signatures run eagerly. "
                          "To diagnose recompilation issues, see minitorch._dynamo.explain.", stacklevel=3)
            self.cache[key] = GraphBreak(reason)
            return self.function(*args, **kwargs)
        if any(m._forward_hooks or m._forward_pre_hooks or m._backward_hooks or m._backward_pre_hooks
               for m in self.modules):
            graph_break = GraphBreak("a module has hooks (register_forward_hook...): they run Python code on "
                                     "every call, which a graph does not replay")
            self.graph_breaks.append(graph_break)
            self.cache[key] = graph_break
            return self._eager(args, kwargs, graph_break)
        started = time.perf_counter()
        candidates = self._dynamic_candidates(key, args, kwargs)
        captured = capture(self.function, args, kwargs, self.named_tensors)
        if candidates and captured.graph_break is None and not captured.split_reasons:
            runner = self._compile_dynamic(captured, args, kwargs, candidates)
            if runner is not None:
                self.cache[self.guard_key(args, kwargs)] = runner
                self.compile_times.append(time.perf_counter() - started)
                return captured.result
            if not self.dynamic_dims:
                self.dynamic_failed = True  # no symbolic graph: every size its own graph from now on
        if captured.split_reasons and captured.graph_break is None:
            if self.fullgraph:
                raise Unsupported(captured.split_reasons[0].reason)
            program = SplitProgram(self.backend)
            self._add_path(program, captured)
            self.cache[key] = _SplitRunner(self, program, captured, self._owners(captured.graph_module),
                                           self._fixed(flatten((args, kwargs))[0], set()))
            self.compile_times.append(time.perf_counter() - started)
            return captured.result
        if captured.graph_break is not None:
            self.graph_breaks.append(captured.graph_break)
            self.cache[key] = captured.graph_break
            if self.fullgraph:
                raise Unsupported(captured.graph_break.reason)
            return captured.result
        compiled = self.backend(captured.graph_module, captured.example_inputs)
        self.compile_count += 1
        self.graphs.append(captured.graph_module)
        self.compile_times.append(time.perf_counter() - started)
        tensors = flatten((args, kwargs))[0]
        self.cache[self.guard_key(args, kwargs)] = _Runner(compiled, captured.output_spec,
                                                           self._owners(captured.graph_module),
                                                           self._fixed(tensors, set()))
        return captured.result  # this call already ran (eagerly, while recording)


    def _check_size(self, runner, tensors: list, args, kwargs):
        """The first call of a new size of a graph with symbolic sizes runs eagerly while it is recorded; the
        graph serves that size from then on if it is what the recording gave (``dynamic.same_graph``)."""
        captured = capture(self.function, args, kwargs, self.named_tensors)
        runner.sizes_seen[runner.size_key(tensors)] = captured.graph_break is None and not captured.split_reasons \
            and dynamic.same_graph(dynamic.specialize(runner.symbolic, tensors), captured.graph_module)
        return captured.result

    def _dynamic_candidates(self, key, args, kwargs) -> set:
        """The (input, dim) pairs to make symbolic for this call: every one with ``dynamic=True``; by default
        those whose size differs from a shape compiled before under the same other guards."""
        if self.dynamic_failed:
            return set()
        tensors = flatten((args, kwargs))[0]
        every = {(index, dim) for index, tensor in enumerate(tensors) for dim in range(tensor._data.ndim)}
        shapes = tuple(tensor._data.shape for tensor in tensors)
        sizeless = key[:len(key) - len(tensors)] + self._symbolic_guards(tensors, every)
        seen = self.sizes_seen.setdefault(sizeless, [])
        seen.append(shapes)
        if self.dynamic:
            return every
        changed = {(index, dim) for old in seen[:-1] for index, (before, now) in enumerate(zip(old, shapes))
                   if len(before) == len(now) for dim in range(len(now)) if before[dim] != now[dim]}
        return changed | self.dynamic_dims if changed or self.dynamic_dims else set()

    def _compile_dynamic(self, captured, args, kwargs, candidates: set):
        """Record the function again at other sizes and compile one graph with symbolic sizes (``dynamic.py``);
        None (and static graphs from now on) when the recordings give none."""
        tensors, spec = flatten((args, kwargs))
        symbols = dynamic.symbols_of(tensors, candidates)
        graphs = {(): captured.graph_module}
        saved_buffers = [(buffer, buffer._data.copy()) for buffer in (self.module.buffers() if self.module else ())]

        def record(steps: dict):
            grown_args, grown_kwargs = unflatten(spec, dynamic.grown_inputs(tensors, symbols, steps))
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    probe = capture(self.function, grown_args, grown_kwargs, self.named_tensors)
            except Exception:  # the function does not accept this size (a layer's fixed width)
                return None
            finally:
                for buffer, array in saved_buffers:  # a probe must not move BatchNorm's running statistics
                    buffer._data[...] = array
            return None if probe.graph_break is not None or probe.split_reasons else probe.graph_module

        for symbol in list(symbols):
            probes = [record({symbol: step}) for step in (1, 2)]
            if any(probe is None for probe in probes):
                del symbols[symbol]  # this size stays fixed (PyTorch would specialize it with a guard)
                continue
            graphs[((symbol, 1),)], graphs[((symbol, 2),)] = probes
        if not symbols:
            return None
        if len(symbols) > 1:
            joint = record(dict.fromkeys(symbols, 1))
            if joint is None:
                return None
            graphs[tuple((symbol, 1) for symbol in symbols)] = joint
        try:
            arguments, shapes = dynamic.fit(graphs, symbols)
        except dynamic.NotDynamic as reason:
            self.not_dynamic_reason = str(reason)
            return None
        symbolic = dynamic.make_symbolic(captured.graph_module, arguments, shapes, symbols, [])
        places = {place for _, places in symbols.values() for place in places}
        self.dynamic_dims |= places  # only grows: the guards of graphs compiled before stay as they were
        compiled = self.backend(symbolic, captured.example_inputs)
        self.compile_count += 1
        self.graphs.append(symbolic)
        runner = _Runner(compiled, captured.output_spec, self._owners(symbolic), self._fixed(tensors, places))
        runner.symbolic = symbolic  # each new size is first recorded and checked (``dynamic.same_graph``)
        runner.sizes_seen = {runner.size_key(tensors): True}
        return runner

    def _fixed(self, tensors: list, symbolic: set) -> list:
        """(input, dim, size) for each size the guards read as symbolic but this graph holds as a number:
        checked on every call (another size runs eagerly), as the graph is right for this size only."""
        return [(index, dim, tensors[index]._data.shape[dim]) for index, dim in sorted(self.dynamic_dims - symbolic)
                if tensors[index]._data.shape[dim] >= 2]

    def _add_path(self, program: SplitProgram, captured) -> None:
        """Compile the segments of a newly recorded path of a split function (``split.py``)."""
        before = len(program.compiled_graphs)
        shared = program.add_path(split_path(captured.graph_module, captured.split_reasons, captured.output_spec),
                                  captured.examples)
        fresh = program.compiled_graphs[before:]
        self.compile_count += len(fresh)
        self.graphs += fresh
        self.graph_breaks += captured.split_reasons[shared:]  # the breaks met for the first time

    def new_path(self, runner: _SplitRunner, missing, args, kwargs):
        """A branch went a way no compiled path has: record this call (eagerly) and graft its path on."""
        reason, segment, outcome = missing
        if reason is not None:  # this way was recorded before and cannot be compiled
            return self.function(*args, **kwargs)
        if runner.paths >= (self.recompile_limit or min(config.cache_size_limit, config.recompile_limit)):
            return self.function(*args, **kwargs)
        captured = capture(self.function, args, kwargs, self.named_tensors)
        if captured.graph_break is not None:
            segment.children[outcome] = captured.graph_break
            self.graph_breaks.append(captured.graph_break)
            return captured.result
        try:
            self._add_path(runner.program, captured)
        except ValueError as error:  # the path's breaks differ from the earlier paths' (a global changed...)
            segment.children[outcome] = GraphBreak(f"a path of a split graph could not be compiled: {error}")
        runner.paths += 1
        return captured.result


class _SplitRunner:
    """A function split at its graph breaks (``split.py``): the segments' tree, run segment by segment."""

    def __init__(self, owner: CompiledFunction, program: SplitProgram, captured, owners: list, fixed: list):
        self.owner, self.program, self.owners, self.fixed = owner, program, owners, fixed
        self.input_names = [node.name for node in captured.graph_module.graph.nodes if node.op == "placeholder"]
        self.paths = 1

    def still_valid(self) -> bool:
        return all(holder.get(name) is tensor for holder, name, tensor in self.owners)

    def __call__(self, args: tuple, kwargs: dict):
        tensors = flatten((args, kwargs))[0]
        for index, dim, size in self.fixed:  # the segments hold these sizes as numbers
            if tensors[index]._data.shape[dim] != size:
                raise GuardFailed
        env = dict(zip(self.input_names, tensors))
        ran = self.program.run(env)
        if len(ran) == 3:
            return self.owner.new_path(self, ran, args, kwargs)
        flat, spec = ran
        return unflatten(spec, flat)


class _Runner:
    """One compiled graph: the call's tensors in, the function's result (same structure) out.

    ``owners`` lists, for each parameter or buffer the graph reads, the dict of its module that
    holds it: a parameter replaced by another object (``model.fc.weight = Parameter(...)``) makes
    the graph stale, and the call compiles again (PyTorch guards the same).
    """

    def __init__(self, compiled, output_spec, owners: list, fixed: list = ()):
        self.compiled, self.output_spec, self.owners, self.fixed = compiled, output_spec, owners, fixed
        self.plain = output_spec == ("tensor", 0)
        self.symbolic = None  # a graph with symbolic sizes (``dynamic.py``): sizes_seen says which sizes hold
        self.sizes_seen: dict = {}

    def size_key(self, tensors) -> tuple:
        return tuple([tensor._data.shape for tensor in tensors])

    def still_valid(self) -> bool:
        for holder, name, tensor in self.owners:
            if holder.get(name) is not tensor:
                return False
        return True

    def __call__(self, args: tuple, kwargs: dict):
        tensors = list(args) if not kwargs and all(type(a) is Tensor for a in args) else flatten((args, kwargs))[0]
        for index, dim, size in self.fixed:
            if tensors[index]._data.shape[dim] != size:
                raise GuardFailed
        if self.symbolic is not None:
            holds = self.sizes_seen.get(self.size_key(tensors))
            if holds is None:
                raise NewSize(tensors)  # the compiled function records this call and checks the graph holds
            if not holds:
                raise GuardFailed  # a size the fitted rules do not describe: this call runs eagerly
        outputs = self.compiled(*tensors)
        return outputs[0] if self.plain else unflatten(self.output_spec, list(outputs))


class OptimizedModule(Module):
    """A module compiled with ``minitorch.compile``: calls run the compiled graphs; the original is
    ``_orig_mod`` (its parameters are shared, so training either one trains both)."""

    def __init__(self, mod: Module, compiled: CompiledFunction):
        super().__init__()
        self._orig_mod = mod
        self.__dict__["_compiled"] = compiled
        self.training = mod.training

    def forward(self, *args, **kwargs):
        return self.__dict__["_compiled"](*args, **kwargs)

    def __getattr__(self, name: str):
        try:
            return super().__getattr__(name)
        except AttributeError:  # compiled.fc, compiled.weight: the original module's, as in PyTorch
            original = self.__dict__.get("_modules", {}).get("_orig_mod")
            if original is None:
                raise
            return getattr(original, name)

    def __repr__(self) -> str:
        return f"OptimizedModule(\n  (_orig_mod): {self._orig_mod!r}\n)"


def optimize(model, backend, *, fullgraph: bool = False, recompile_limit: int | None = None,
             dynamic: bool | None = None):
    """A module becomes an ``OptimizedModule``; a function a compiled function with the same name."""
    if isinstance(model, Module):
        return OptimizedModule(model, CompiledFunction(model, backend, fullgraph=fullgraph, module=model,
                                                       recompile_limit=recompile_limit, dynamic=dynamic))
    compiled = CompiledFunction(model, backend, fullgraph=fullgraph, recompile_limit=recompile_limit,
                                dynamic=dynamic)

    @functools.wraps(model)
    def compiled_function(*args, **kwargs):
        return compiled(*args, **kwargs)

    compiled_function._compiled = compiled
    compiled_function._torchdynamo_orig_callable = model
    return compiled_function
