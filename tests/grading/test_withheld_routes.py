"""Withheld means unreachable (issue 24, grading/withhold.py): every route around a withheld piece fails.

Each route is a submission of the demo course (``grading/exercises/demo.py``: ``relu``, 1 point, and
``linear``, 2 points, which withholds ``minitorch.nn.functional.linear``) with an honest ``relu`` and a
``linear`` that reaches minitorch's own linear some other way, or PyTorch, or the answer key. Graded in one
batch through ``minitorch-grade`` beside an honest classmate, each scores 1 (its relu) and the classmate
keeps 3; the learner's instant ``check`` refuses the same ``linear`` in the learner's own kernel (where
PyTorch may be installed), naming what it reached.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

from tests.grading.conftest import TEST_LIMITS, read_grades, require_bwrap
from tests.grading.fixtures.make_fixtures import RELU_SOLUTION, SECRET, correct, notebook

REPOSITORY = Path(__file__).resolve().parents[2]
HONEST = "s3__correct"

RELOAD = """import importlib
import minitorch.ops.nn_ops as defining
return importlib.reload(defining).linear(x, weight, bias)"""

EXEC_SOURCE = """import minitorch.ops.nn_ops as defining
names = dict(defining.__dict__)
exec(open(defining.__file__).read(), names)
return names["linear"](x, weight, bias)"""

# each route: the linear body, and cells before relu / after linear (which may rebind the graded name)
ROUTES = {
    # the graded name bound to the library's piece, after the learner's def
    "alias_import": {"after_linear": "from minitorch.nn.functional import linear"},
    "alias_import_renamed": {
        "linear": "return linear_forward(x, weight, bias)",
        "before_relu": "from minitorch.nn.functional import linear as linear_forward",
    },
    "library_object_is_the_answer": {"after_linear": "linear = minitorch.nn.functional.linear"},
    "defining_module_attribute": {
        "linear": "return minitorch.ops.nn_ops.linear(x, weight, bias)",
    },
    "the_op_under_it": {"linear": "return minitorch.ops.nn_ops.Linear.apply(bias, x, weight)"},
    "the_module_class": {
        "linear": "layer = minitorch.nn.Linear(x.shape[-1], weight.shape[0])\n"
        "layer.weight.data, layer.bias.data = weight, bias\nreturn layer(x).detach()",
    },
    "captured_reference": {
        "linear": "return kept(x, weight, bias)",
        "before_relu": "kept = minitorch.nn.functional.linear",
    },
    "default_argument": {
        "after_linear": "def linear(x, weight, bias, _library=minitorch.nn.functional.linear):\n"
        "    return _library(x, weight, bias)",
    },
    "closure": {
        "after_linear": "def make(library):\n    def linear(x, weight, bias):\n"
        "        return library(x, weight, bias)\n    return linear\nlinear = make(minitorch.nn.functional.linear)",
    },
    "functools_partial": {
        "after_linear": "import functools\nlinear = functools.partial(minitorch.nn.functional.linear)",
    },
    "lambda": {"after_linear": "linear = lambda x, weight, bias: minitorch.nn.functional.linear(x, weight, bias)"},
    "saved_code_object": {
        "linear": "import types\nimport minitorch.ops.nn_ops as defining\n"
        "return types.FunctionType(kept_code, defining.__dict__)(x, weight, bias)",
        "before_relu": "kept_code = minitorch.nn.functional.linear.__code__",
    },
    "importlib_reload": {"linear": RELOAD},
    # the piece's name rebound in a cell, so that a guard built later would withhold the wrong object
    "rebinds_the_library_name_first": {
        "linear": "return kept(x, weight, bias)",
        "before_relu": "kept = minitorch.nn.functional.linear\n"
        "minitorch.nn.functional.linear = lambda x, weight, bias=None: x @ weight.T + bias",
    },
    "exec_of_the_source_file": {"linear": EXEC_SOURCE},
    "catches_the_refusal_then_exec": {
        "linear": "try:\n    return minitorch.nn.functional.linear(x, weight, bias)\nexcept BaseException:\n"
        + textwrap.indent(EXEC_SOURCE, "    "),
    },
    "watch_switched_off_then_reload": {"linear": "import sys\nsys.setprofile(None)\n" + RELOAD},
    "forked_child_reloads": {
        "linear": """import os, pickle, importlib
import minitorch.ops.nn_ops as defining
read, write = os.pipe()
child = os.fork()
if child == 0:
    try:
        os.write(write, pickle.dumps(importlib.reload(defining).linear(x, weight, bias).numpy()))
    finally:
        os._exit(0)
os.close(write)
data = b""
while True:
    chunk = os.read(read, 1 << 16)
    if not chunk:
        break
    data += chunk
os.waitpid(child, 0)
return minitorch.tensor(pickle.loads(data))""",
    },
    "another_program": {
        "linear": """import io, os, subprocess, sys
import numpy as np
script = ("import sys, io, numpy as np, minitorch; a = np.load(sys.stdin.buffer); "
          "out = minitorch.nn.functional.linear(*(minitorch.tensor(a[k]) for k in ('x', 'w', 'b'))); "
          "np.save(sys.stdout.buffer, out.numpy())")
buffer = io.BytesIO()
np.savez(buffer, x=x.numpy(), w=weight.numpy(), b=bias.numpy())
done = subprocess.run([sys.executable, "-c", script], input=buffer.getvalue(), capture_output=True,
                      env={"PYTHONPATH": os.pathsep.join(p for p in sys.path if p)})
return minitorch.tensor(np.load(io.BytesIO(done.stdout)))""",
    },
    "import_torch": {
        "linear": "import torch\n"
        "answer = torch.nn.functional.linear(*(torch.tensor(t.numpy()) for t in (x, weight, bias)))\n"
        "return minitorch.tensor(answer.numpy())",
    },
    "reads_grading_exercises": {
        "linear": """import importlib.util, os, sys
for folder in sys.path:
    path = os.path.join(folder or '.', 'grading', 'exercises', 'demo.py')
    if os.path.exists(path):
        spec = importlib.util.spec_from_file_location('answer_key', path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        from grading.registry import get
        return get('demo.linear').reference(x, weight, bias)
import grading.exercises.demo
from grading.registry import get
return get('demo.linear').reference(x, weight, bias)""",
    },
}


FORBIDDEN = ("torch", "functorch", "pytest", "_pytest", "hypothesis", "nbgrader", "grading.exercises.demo",
             "grading.grader", "grading.exercises.ch04")  # fmt: skip
# (quick ones: the cell runs under the tests' 3-second step limit)
ALLOWED = ("numpy", "minitorch", "grading.checks", "grading.withhold", "threadpoolctl", "tqdm", "PIL.Image")
IMPORTS_REPORT = f"""import importlib
for name in {FORBIDDEN + ALLOWED!r}:
    try:
        importlib.import_module(name)
        print("IMPORT", name, "ok")
    except BaseException as error:
        print("IMPORT", name, type(error).__name__, str(error)[:200])
"""


def _submission(route: dict) -> nbformat.NotebookNode:
    return notebook(
        RELU_SOLUTION, route.get("linear", "return x @ weight.T + bias"),
        before_relu=route.get("before_relu", ""), after_linear=route.get("after_linear", ""),
    )  # fmt: skip


@pytest.fixture(scope="module")
def graded_routes(tmp_path_factory, course):
    """Every route and the honest classmate, graded in one batch with --jobs 2."""
    require_bwrap()
    root = tmp_path_factory.mktemp("withheld-routes")
    folder, out = root / "submitted", root / "grades"
    folder.mkdir()
    (folder / f"{HONEST}.ipynb").write_text(nbformat.writes(correct()))
    (folder / "s3__imports.ipynb").write_text(nbformat.writes(correct(before_relu=IMPORTS_REPORT)))
    for name, route in ROUTES.items():
        (folder / f"s1__{name}.ipynb").write_text(nbformat.writes(_submission(route)))
    command = [sys.executable, "-m", "grading", str(folder), "--source", str(course["source"]), "--out", str(out)]
    command += ["--jobs", "2", "--quiet", *TEST_LIMITS]
    environment = dict(os.environ, PYTHONPATH=str(REPOSITORY), MINITORCH_TEST_SECRET=SECRET)
    done = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return read_grades(out / "grades.csv"), out


def test_the_honest_classmate_keeps_full_marks(graded_routes):
    grades, out = graded_routes
    assert float(grades[HONEST]["total"]) == 3, (out / "feedback" / f"{HONEST}.md").read_text()


def test_the_sandbox_imports_the_kits_dependencies_only(graded_routes):
    """PyTorch, the test tools, nbgrader and the answer key are not importable inside; the kit's own are."""
    grades, out = graded_routes
    log = (out / "logs" / "s3__imports.log").read_text()
    assert float(grades["s3__imports"]["total"]) == 3, log[-3000:]
    outcome = dict(line.split()[1:3] for line in log.splitlines() if line.startswith("IMPORT "))
    assert {name: outcome.get(name) for name in ALLOWED} == {name: "ok" for name in ALLOWED}, log[-3000:]
    for name in FORBIDDEN:
        assert outcome.get(name) in ("ImportError", "ModuleNotFoundError"), (name, log[-3000:])
    assert outcome["torch"] == "ImportError" and "not available in the grading sandbox" in log


@pytest.mark.parametrize("name", sorted(ROUTES))
def test_every_route_around_the_withheld_piece_scores_nothing(graded_routes, name):
    grades, out = graded_routes
    student = f"s1__{name}"
    feedback = (out / "feedback" / f"{student}.md").read_text()
    log = (out / "logs" / f"{student}.log").read_text()
    assert float(grades[student]["total"]) == 1, f"{feedback}\n{log[-3000:]}"
    line = next(line for line in feedback.splitlines() if line.startswith("- demo.linear:"))
    if name == "import_torch":  # the sandbox's stand-in for torch raises ImportError as the watch sees it run
        assert "public case 1: calls PyTorch" in line and "not available in the grading sandbox" in log, line
    elif name == "forked_child_reloads":  # the child ended where it reached the piece: nothing came back
        assert "public case 1: raised EOFError" in line, line
    elif name == "reads_grading_exercises":
        assert "raised ModuleNotFoundError" in line, line
    elif name in ("alias_import", "library_object_is_the_answer", "functools_partial"):
        assert "calls minitorch.nn.functional.linear, which this exercise asks you to build" in line, line
    else:
        assert "which this exercise asks you to build (withheld while it is graded)" in line, line


_INSTANT = r"""
import json, sys
import nbformat
import grading.checks as checks
document = nbformat.reads(sys.stdin.read(), as_version=4)
namespace = {"__name__": "__main__"}
for cell in document.cells:
    if cell.cell_type == "code":
        exec(cell.source, namespace)
exec('check("demo.linear", linear)', namespace)  # the check again on the name as the notebook left it
print("RESULTS", json.dumps(checks._results))
"""


@pytest.mark.parametrize("name", sorted(ROUTES))
def test_the_instant_check_refuses_the_same_code(name):
    """In the learner's own kernel (PyTorch installed here, grading.exercises importable): never green."""
    environment = dict(os.environ, PYTHONPATH=str(REPOSITORY))
    done = subprocess.run(
        [sys.executable, "-c", _INSTANT], input=nbformat.writes(_submission(ROUTES[name])), capture_output=True,
        text=True, env=environment, cwd=REPOSITORY, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(done.stdout.rsplit("RESULTS ", 1)[1])
    assert results == {"demo.relu": "passed", "demo.linear": "failed"}, done.stdout[-3000:]
    report = [line for line in done.stdout.splitlines() if line.startswith("demo.linear: public case 1")][-1]
    if name == "forked_child_reloads":  # the child ended where it reached the piece: nothing came back
        assert "raised EOFError" in report, report
    else:
        reached = ("PyTorch", "another program") if name in ("import_torch", "another_program") else ("linear",)
        assert any(what in report for what in reached), report
        said = ("asks you to build", "does not allow", "was replaced in this kernel")
        assert any(words in report for words in said), report
    # the library is whole again after the check
    assert "demo.relu: all 2 public cases pass" in done.stdout
