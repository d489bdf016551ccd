"""What a reader reads to follow a computation through ``minitorch``: a trace of the functions that run.

A reader who steps through ``z = x * y; z.sum().backward()`` meets every minitorch function that runs,
and reads its whole body (its ``def`` line to its last line, docstring and comments included). This
module runs a computation under ``sys.settrace``, keeps each minitorch function that was called, and
counts those lines, file by file. A function defined inside another that also ran is counted once, as
part of the outer one (comprehensions, nested helpers, lambdas). Module and class bodies (which run at
import) are not counted. The computation runs once before the trace, so first-call work (an import
inside a function, a cache filled once) is not part of what the reader follows each time.

    python -m tests.reading_trace              # prints the three computations the budgets hold
    python -m tests.reading_trace --markdown   # the tables of ARCHITECTURE.md's reading path
"""

from __future__ import annotations

import inspect
import sys
from dataclasses import dataclass, field
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "minitorch"


@dataclass
class Function:
    """One function that ran: its file (relative to the repository), name and line span."""

    path: str
    name: str
    first: int
    last: int

    @property
    def lines(self) -> int:
        return self.last - self.first + 1


@dataclass
class Reading:
    """The functions a computation ran through, with the lines and files they hold."""

    functions: list[Function] = field(default_factory=list)

    @property
    def lines(self) -> int:
        return sum(function.lines for function in self.functions)

    def files(self) -> dict[str, int]:
        """Lines per file, in the order the trace first entered each file."""
        per_file: dict[str, int] = {}
        for function in self.functions:
            per_file[function.path] = per_file.get(function.path, 0) + function.lines
        return per_file

    def markdown(self, title: str) -> str:
        """The table ARCHITECTURE.md's reading path shows for this computation (files and functions, no counts)."""
        rows = [f"**{title}**", "", "| File | What runs there, in order of first call |", "| --- | --- |"]
        for path in self.files():
            names = ", ".join(f"`{f.name}`" for f in self.functions if f.path == path)
            rows.append(f"| `{path}` | {names} |")
        return "\n".join(rows)

    def report(self, title: str) -> str:
        rows = [f"{title}: {self.lines} lines in {len(self.files())} files"]
        for path, lines in self.files().items():
            names = ", ".join(f"{f.name} ({f.lines})" for f in self.functions if f.path == path)
            rows.append(f"  {lines:4d}  {path}: {names}")
        return "\n".join(rows)


def _span(code) -> tuple[int, int]:
    """The first and last source line of a function (decorators included).

    A comprehension or lambda (``<genexpr>``, ``<lambda>``) has no block of its own to read: its span is
    the lines its code covers, which lie inside the function that holds it.
    """
    if code.co_name.startswith("<"):
        lines = [line for _, _, line in code.co_lines() if line is not None]
        return min(lines), max(lines)
    lines, first = inspect.getsourcelines(code)
    return first, first + len(lines) - 1


def trace(computation) -> Reading:
    """Run ``computation()`` once untraced, then once traced; the minitorch functions the second run called."""
    computation()
    package = str(PACKAGE) + "/"
    called: dict[object, None] = {}  # code objects in the order of their first call

    def tracer(frame, event, arg):
        if event == "call":
            code = frame.f_code
            if code.co_filename.startswith(package) and code.co_name != "<module>" and code not in called:
                called[code] = None
        return None  # no line events: only calls matter

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        computation()
    finally:
        sys.settrace(previous)

    spans = []
    for code in called:
        first, last = _span(code)
        path = str(Path(code.co_filename).relative_to(PACKAGE.parent))
        spans.append(Function(path, code.co_qualname, first, last))
    # A function nested in another that ran is part of the outer one's body.
    outer = [
        s for s in spans
        if not any(o is not s and o.path == s.path and o.first <= s.first and s.last <= o.last and o.lines > s.lines
                   for o in spans)
    ]
    unique = {(s.path, s.first): s for s in outer}
    return Reading(list(unique.values()))


# -- the three computations the budgets hold (tests/test_reading_budget.py) -------------------------------------
def multiply_and_backward():
    """``z = x * y; z.sum().backward()`` on two leaves made before."""
    import minitorch

    x = minitorch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = minitorch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)

    def computation():
        z = x * y
        z.sum().backward()

    return computation


def linear_and_backward():
    """``layer(x).sum().backward()`` for an ``nn.Linear(3, 4)`` built before."""
    import minitorch

    layer = minitorch.nn.Linear(3, 4)
    x = minitorch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])

    def computation():
        layer(x).sum().backward()

    return computation


def sgd_step():
    """One ``optim.SGD(params, lr=0.1).step()`` on parameters that hold gradients."""
    import minitorch

    layer = minitorch.nn.Linear(3, 4)
    layer(minitorch.ones(2, 3)).sum().backward()
    optimizer = minitorch.optim.SGD(layer.parameters(), lr=0.1)

    def computation():
        optimizer.step()

    return computation


COMPUTATIONS = {
    "z = x * y; z.sum().backward()": multiply_and_backward,
    "nn.Linear(3, 4)(x).sum().backward()": linear_and_backward,
    "optim.SGD(params, lr=0.1).step()": sgd_step,
}


def markdown() -> str:
    """The generated part of ARCHITECTURE.md's reading path: one table per computation."""
    return "\n\n".join(trace(make()).markdown(title) for title, make in COMPUTATIONS.items())


if __name__ == "__main__":
    sys.path.insert(0, str(PACKAGE.parent))
    if "--markdown" in sys.argv:
        print(markdown())
    else:
        for title, make in COMPUTATIONS.items():
            print(trace(make()).report(title))
            print()
