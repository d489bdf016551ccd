"""minitorch's modules import each other in layers, imports inside functions included (ARCHITECTURE.md's picture).

``.importlinter`` states the layers as import-linter contracts; import-linter (through grimp) reads every import
statement of the package, those inside functions too, and fails on an import that points up a layer or closes a
cycle among the ops or among the pieces of autograd. These tests run it, prove that it does fail on such an import
(on a copy of the package with one import added), and check the two rules that go with it: the core has no import
cycle at all, and every import that remains inside a function says why on its line.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import require

grimp = require("grimp", "import-linter's import graph (the test extra installs import-linter)")

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "minitorch"
CONFIG = ROOT / ".importlinter"

# The core: the modules below minitorch.nn in ARCHITECTURE.md's picture.
CORE_PREFIXES = ("minitorch._", "minitorch.autograd", "minitorch.ops", "minitorch.cuda")
# Modules above the core whose names start like it (they sit beside minitorch.nn, see .importlinter).
ABOVE_THE_CORE = ("minitorch._utils", "minitorch._npz_serialization", "minitorch._weights_only_unpickler",
                  "minitorch._dynamo", "minitorch._functorch", "minitorch._inductor")  # the compiler, at the top


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    """``lint-imports`` with ``root``'s ``.importlinter``, on the ``minitorch`` package in ``root``."""
    program = Path(sys.executable).parent / "lint-imports"  # installed beside this Python (the test extra)
    command = [str(program), "--no-cache", "--no-logo", str(root / ".importlinter")]
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(command, cwd=root, env=environment, capture_output=True, text=True, timeout=300)


def test_the_layer_contracts_are_kept():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 kept, 0 broken" in result.stdout, result.stdout


def _copy_with(tmp_path: Path, module: str, code: str) -> Path:
    """A copy of the package and its contracts, with ``code`` appended to ``module`` (a path inside minitorch/)."""
    shutil.copytree(PACKAGE, tmp_path / "minitorch", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(CONFIG, tmp_path / ".importlinter")
    target = tmp_path / "minitorch" / module
    target.write_text(target.read_text(encoding="utf-8") + "\n\n" + code, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    "module, code, broken, names",
    [
        # autograd reaching the Tensor class from inside a function: a layer broken at run time only
        ("autograd/engine.py", "def _upward():\n    from .._tensor import Tensor\n\n    return Tensor\n",
         "Imports point down the layers", ("minitorch.autograd.engine", "minitorch._tensor")),
        # an op of a lower family calling the in-place machinery, which imports it: a cycle among the ops
        ("ops/pointwise/comparison.py", "def _around():\n    from ..inplace import _inplace\n\n    return _inplace\n",
         "No cycle among the ops", ("No cycles are allowed in minitorch.ops", ".pointwise -> .inplace")),
    ],
)
def test_an_import_inside_a_function_that_breaks_a_layer_fails(tmp_path, module, code, broken, names):
    result = lint_imports(_copy_with(tmp_path, module, code))
    assert result.returncode != 0, result.stdout
    assert f"{broken}" in result.stdout and "BROKEN" in result.stdout, result.stdout
    for name in names:
        assert name in result.stdout, result.stdout


def _graph():
    """Module -> the package modules it imports (grimp, the graph import-linter checks: imports in functions too)."""
    sys.path.insert(0, str(ROOT))
    try:
        graph = grimp.build_graph("minitorch", cache_dir=None, exclude_type_checking_imports=True)
    finally:
        sys.path.remove(str(ROOT))
    return graph


def _is_core(module: str) -> bool:
    return module.startswith(CORE_PREFIXES) and not module.startswith(ABOVE_THE_CORE)


def test_the_core_has_no_import_cycle_even_counting_imports_inside_functions():
    graph = _graph()
    core = sorted(module for module in graph.modules if _is_core(module))
    cycles = []
    for module in core:
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if _is_core(imported) and imported != module:
                chain = graph.find_shortest_chain(importer=imported, imported=module)
                if chain is not None:
                    cycles.append(" -> ".join((module, *chain)))
    assert not cycles, "import cycles in the core (each line one):\n" + "\n".join(cycles)


# The modules that import the public face (minitorch/__init__.py) itself, which a layers contract cannot see (the
# face is the contract's container): the optimizers write ``minitorch.zeros_like`` as PyTorch's write
# ``torch.zeros_like``; minitorch.functional is the face's own objects under a second name; the benchmark Timer gives
# the statements it times their ``torch``; the weights' training script is a program run with ``python -m``; the
# compiler and fx read programs written against the face (``minitorch.relu`` in a traced forward), as PyTorch's
# dynamo and fx import ``torch``.
IMPORT_THE_FACE = {"minitorch.functional", "minitorch.utils.benchmark.timer", "minitorch.vision.models.train",
                   "minitorch._dynamo.capture", "minitorch.fx._symbolic_trace", "minitorch.fx.codegen",
                   "minitorch.fx.node"}


def test_only_the_modules_named_here_import_the_public_face():
    importers = set(_graph().find_modules_that_directly_import("minitorch"))
    assert {m for m in importers if not m.startswith("minitorch.optim.")} == IMPORT_THE_FACE, sorted(importers)


def _function_level_imports(path: Path):
    """(line number, line) of each import statement inside a function of the module."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    for function in ast.walk(ast.parse(text)):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(function):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    yield node.lineno, lines[node.lineno - 1]


def test_every_import_inside_a_function_says_why():
    silent = [
        f"{path.relative_to(ROOT)}:{line}: {text.strip()}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for line, text in sorted(set(_function_level_imports(path)))
        if "#" not in text
    ]
    assert not silent, "imports inside functions without a comment saying why:\n" + "\n".join(silent)


def test_every_op_autograd_borrows_is_lent_by_its_own_module():
    import minitorch
    from minitorch import _creation
    from minitorch.autograd import _lent_ops
    from minitorch.ops import conversion, copy_slices, shape

    home = {"tensor": _creation, "zeros": _creation, "zeros_like": _creation, "randn_like": _creation,
            "to": conversion, "stack": shape, "refresh_view": copy_slices}
    assert set(_lent_ops.LENT) == set(home)
    for name, module in home.items():
        assert getattr(_lent_ops, name) is getattr(module, name), name
    assert minitorch.autograd.grad is not None  # the package imported whole: every op was lent by then
    with pytest.raises(ValueError, match="autograd borrows only"):
        _lent_ops.lend_to_autograd(minitorch.ones_like)
