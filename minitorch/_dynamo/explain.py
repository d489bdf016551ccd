"""``explain(fn)(*args)``: what capturing ``fn`` on these arguments gives (``torch._dynamo.explain``).

It compiles ``fn`` with a backend that only keeps the graphs, calls it once, and reports the
number of graphs, the graph breaks with their reasons and the line of user code, and the ops
of each graph. A branch on a tensor's value splits the function into the graphs before and
after it (``split.py``), as in PyTorch, and so does ``print``; a break of another kind
(dropout's random draws, hooks) makes the whole call run eagerly, and the call reports no graph.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..nn import Module
from .eval_frame import CompiledFunction
from .testing import CompileCounter


@dataclass
class ExplainOutput:
    graphs: list
    graph_count: int
    graph_break_count: int
    break_reasons: list
    op_count: int
    ops_per_graph: list = field(default_factory=list)
    out_guards: list = field(default_factory=list)
    compile_times: str = ""

    def __str__(self) -> str:
        lines = [f"Graph Count: {self.graph_count}", f"Graph Break Count: {self.graph_break_count}",
                 f"Op Count: {self.op_count}", "Break Reasons:"]
        for number, graph_break in enumerate(self.break_reasons, start=1):
            lines += [f"  Break Reason {number}:", f"    Reason: {graph_break.reason}", "    User Stack:"]
            lines += [f"      <FrameSummary file {frame.filename}, line {frame.lineno} in {frame.name}>"
                      for frame in graph_break.user_stack[-3:]]
        lines.append("Ops per Graph:")
        for number, ops in enumerate(self.ops_per_graph, start=1):
            lines.append(f"  Ops {number}:")
            lines += [f"    {op}" for op in ops]
        lines.append("Out Guards:")
        lines += [f"  Guard {number}: {guard}" for number, guard in enumerate(self.out_guards, start=1)]
        if self.compile_times:
            lines.append(f"Compile Times: {self.compile_times}")
        return "\n".join(lines) + "\n"


def explain(f, *extra_args, **extra_kwargs):
    """``explain(f)(*args, **kwargs)`` captures ``f`` on those arguments and says what it got."""

    def inner(*args, **kwargs):
        counter = CompileCounter()
        compiled = CompiledFunction(f, counter, module=f if isinstance(f, Module) else None)
        compiled(*args, **kwargs)
        ops = [[node.target for node in graph.graph.nodes if node.op == "call_function"] for graph in counter.graphs]
        guards = []
        if counter.graphs:
            guards = ["grad mode", "module training flags", "parameters' requires_grad"] + [
                f"{node.name}: shape {list(shape)}, dtype {dtype}, device, requires_grad"
                for node in counter.graphs[0].graph.nodes if node.op == "placeholder"
                for shape, dtype in [node.meta.get("val", ((), None))]]
        return ExplainOutput(counter.graphs, len(counter.graphs), len(compiled.graph_breaks),
                             list(compiled.graph_breaks), sum(len(graph_ops) for graph_ops in ops), ops, guards,
                             ", ".join(f"{seconds:.4f}s" for seconds in compiled.compile_times))

    if extra_args or extra_kwargs:
        return inner(*extra_args, **extra_kwargs)
    return inner
