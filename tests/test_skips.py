"""No test hides behind a skip: a skip is allowed only for a missing optional piece.

A skip that says a feature is "not written yet" outlives the feature and then hides its
regressions. So every skip in the tree is one of:

* a missing optional piece, through a helper that skips locally and fails under ``MINITORCH_CI=1``
  (``tests.support.require`` and its kind: the function holding the ``pytest.skip`` asks ``in_ci()``);
* the hardware or platform: no CUDA GPU (or CuPy present where its absence is tested), no ``fork``/``spawn``
  start method.

``pytest.importorskip`` is refused outright (it skips in CI too; use ``tests.support.require``), and
an ``xfail`` must be ``strict=True`` so a fixed test cannot stay marked. ``tests/conftest.py`` adds the
run-time half: under ``MINITORCH_CI=1`` a run with any skip other than the GPU's fails.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent

# What a skip's reason may name when the skip is not an in_ci()-guarded helper.
HARDWARE_OR_PLATFORM = re.compile(r"GPU|CUDA|CuPy|start method", re.IGNORECASE)
# Words of a feature that is missing from the kit itself, never a reason to skip.
UNFINISHED = re.compile(r"\byet\b|not implemented|not written|TODO|FIXME|\blater\b", re.IGNORECASE)


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return node.id if isinstance(node, ast.Name) else ""


def _reason_text(call: ast.Call) -> str:
    """The literal parts of a call's reason (first positional or ``reason=``), f-strings included."""
    candidates = [keyword.value for keyword in call.keywords if keyword.arg in ("reason", "msg")]
    if _dotted(call.func).endswith(("skip", "xfail")) and call.args:
        candidates.append(call.args[0])
    if _dotted(call.func).endswith("skipif") and len(call.args) > 1:
        candidates.append(call.args[1])
    parts = []
    for candidate in candidates:
        parts += [node.value for node in ast.walk(candidate)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str)]
    return " ".join(parts)


def _functions_asking_in_ci(tree: ast.AST) -> list[ast.FunctionDef]:
    return [function for function in ast.walk(tree) if isinstance(function, ast.FunctionDef)
            and any(isinstance(call, ast.Call) and _dotted(call.func).endswith("in_ci") for call in ast.walk(function))]


def _skip_problems(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    guarded = {id(node) for function in _functions_asking_in_ci(tree) for node in ast.walk(function)}
    problems = []
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call):
            continue
        name = _dotted(call.func)
        where = f"{path.relative_to(TESTS.parent)}:{call.lineno}"
        reason = _reason_text(call)
        if name.endswith("importorskip"):
            problems.append(f"{where}: pytest.importorskip skips in CI too; use tests.support.require")
        elif name in ("pytest.skip", "pytest.mark.skip", "pytest.mark.skipif"):
            if UNFINISHED.search(reason):
                problems.append(f"{where}: skips for an unfinished feature ({reason!r})")
            elif id(call) not in guarded and not HARDWARE_OR_PLATFORM.search(reason):
                problems.append(f"{where}: skips for {reason!r}, which is neither hardware nor an "
                                "optional piece checked with in_ci()")
        elif name in ("pytest.xfail", "pytest.mark.xfail"):
            strict = any(keyword.arg == "strict" and getattr(keyword.value, "value", None) is True
                         for keyword in call.keywords)
            if not strict or UNFINISHED.search(reason):
                problems.append(f"{where}: an xfail must be strict=True and name what is missing ({reason!r})")
    return problems


def test_every_skip_is_for_a_missing_optional_piece():
    problems = [problem for path in sorted(TESTS.rglob("*.py")) for problem in _skip_problems(path)]
    assert problems == []


def test_the_scan_catches_the_skips_it_must_refuse(tmp_path):
    sample = tmp_path / "test_sample.py"
    sample.write_text(
        "import pytest\n"
        "def test_a():\n    pytest.skip('ops/shape.py has no unbind yet')\n"
        "needs = pytest.mark.skipif(True, reason='flaky')\n"
        "np = pytest.importorskip('numpy')\n"
        "@pytest.mark.xfail(reason='missing: torch.foo')\ndef test_b(): pass\n"
        "def test_c():\n    pytest.skip('no CUDA GPU')\n"
        "def require(name):\n    if in_ci():\n        pytest.fail(name)\n    pytest.skip(name + ' is not installed')\n"
    )
    original = globals()["TESTS"]
    globals()["TESTS"] = tmp_path
    try:
        problems = _skip_problems(sample)
    finally:
        globals()["TESTS"] = original
    assert sorted(int(problem.split(":")[1]) for problem in problems) == [3, 4, 5, 6]
