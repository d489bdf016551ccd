"""The core's modules import each other in layers: no cycle among their module-level imports.

The picture is in ARCHITECTURE.md. This test reads every ``minitorch/**.py`` with ``ast``, keeps the imports
that run when the module is imported (top-level statements, class bodies, top-level ``if``/``try``; not the
bodies of functions, not ``if TYPE_CHECKING:``), resolves relative imports to module names, and looks for
cycles (strongly connected components of more than one module, or a module importing itself).

An import inside a function is how a lower layer reaches a higher one when it first needs it; each says why
in a comment on its line, which ``test_every_import_inside_a_function_of_the_core_says_why`` checks.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "minitorch"

# The core: the modules below minitorch.nn in ARCHITECTURE.md's picture.
CORE_PREFIXES = ("minitorch._", "minitorch.autograd", "minitorch.ops", "minitorch.cuda")

# Cycles still allowed in the core, each as a sorted tuple of module names: none. (Before the layers there was
# one, of _tensor, autograd and the ops; a new cycle fails here.)
KNOWN_CYCLES: set[tuple[str, ...]] = set()


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in PACKAGE.rglob("*.py")}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_time_statements(body):
    """The import statements that run when the module is imported (not those inside functions)."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If):
            if not _is_type_checking(node.test):
                yield from _import_time_statements(node.body)
            yield from _import_time_statements(node.orelse)
        elif isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            for block in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                yield from _import_time_statements(block)
        elif isinstance(node, (ast.With, ast.ClassDef, ast.For, ast.While)):
            yield from _import_time_statements(node.body)


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def import_graph() -> dict[str, set[str]]:
    """Module name -> the package modules it imports when it is imported."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        targets: set[str] = set()
        for node in _import_time_statements(ast.parse(path.read_text(encoding="utf-8")).body):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
                continue
            target = _resolve(name, is_package, node)
            for alias in node.names:
                submodule = f"{target}.{alias.name}"
                targets.add(submodule if submodule in modules else target)
        graph[name] = {target for target in targets if target in modules and target != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[tuple[str, ...]]:
    """The strongly connected components with more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(tuple(sorted(component)))
    return found


def _is_core(module: str) -> bool:
    return module.startswith(CORE_PREFIXES)


def test_the_graph_is_read():
    graph = import_graph()
    assert "minitorch.ops.pointwise" in graph["minitorch._tensor"]
    assert "minitorch._dtype" in graph["minitorch.autograd.engine"]


def test_a_cycle_is_found_and_imports_in_functions_are_not_edges():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}) == [("a", "b", "c")]
    body = ast.parse(
        "import a\nif TYPE_CHECKING:\n    import b\nelse:\n    import c\ntry:\n    import d\nexcept ImportError:\n"
        "    pass\nclass K:\n    import e\ndef f():\n    import g\n").body
    assert [alias.name for node in _import_time_statements(body) for alias in node.names] == ["a", "c", "d", "e"]


def test_the_core_has_no_import_cycle():
    core_cycles = {cycle for cycle in cycles(import_graph()) if any(_is_core(module) for module in cycle)}
    assert core_cycles == KNOWN_CYCLES, (
        "module-level import cycles in the core (each line one cycle):\n"
        + "\n".join(" -> ".join(cycle) for cycle in sorted(core_cycles)))


def _function_level_imports(path: Path):
    """(line number, line) of each import statement inside a function of the module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    lines = path.read_text(encoding="utf-8").splitlines()
    for function in ast.walk(tree):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(function):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    yield node.lineno, lines[node.lineno - 1]


def test_every_import_inside_a_function_of_the_core_says_why():
    silent = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {text.strip()}"
        for name, path in sorted(_modules().items()) if _is_core(name)
        for line, text in _function_level_imports(path) if "#" not in text
    ]
    assert not silent, "imports inside functions without a comment saying why:\n" + "\n".join(silent)


def test_the_graph_machinery_and_the_ops_sit_below_the_tensor_class():
    """autograd/ and ops/ never import minitorch._tensor when they are imported: they use _tensor_base."""
    graph = import_graph()
    for name, targets in graph.items():
        if name.startswith(("minitorch.autograd", "minitorch.ops")):
            assert "minitorch._tensor" not in targets, name
