"""Withheld pieces (issue 18's mechanism, ``withheld=`` in grading/exercises/chNN.py): while an exercise
that rebuilds a piece of minitorch is graded, the batch grader replaces that piece by a function that
raises NotImplementedError. A submission that calls the piece instead of building it fails that
exercise; the reference solution, and every other cell and exercise of the chapter, still run with the
whole library.
"""

from __future__ import annotations

import csv
import importlib
import shutil
import textwrap
from pathlib import Path

import nbformat
import pytest

import minitorch
from grading import registry
from tests.grading.conftest import require_bwrap

REPOSITORY = Path(__file__).resolve().parents[2]
COURSE = REPOSITORY / "notebooks"
BUILD_IT_CHAPTERS = ("ch02", "ch03", "ch04", "ch05", "ch06", "ch07", "ch08", "ch09", "ch11", "ch12", "ch16")


def _resolve(name: str):
    module_name, _, attribute = name.rpartition(".")
    parts = module_name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            owner = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            owner = getattr(owner, part)
        return owner, attribute
    raise LookupError(name)


@pytest.mark.parametrize("chapter", BUILD_IT_CHAPTERS)
def test_every_withheld_name_exists(chapter):
    """A misspelt name would silently withhold nothing; every name finds Python functions to withhold."""
    from grading.withhold import Withholding

    entries = [entry for entry in registry.chapter_exercises(chapter) if entry.withheld]
    assert entries, f"{chapter} withholds nothing"
    for entry in entries:
        for name in entry.withheld:
            owner, attribute = _resolve(name)
            assert hasattr(owner, attribute), f"{entry.name}: {name} does not exist"
        assert Withholding(entry.name, entry.withheld).missing == [], entry.name


def test_withholding_reaches_every_reference_and_is_undone():
    import minitorch.nn.functional as F
    from grading.withhold import WithheldPiece, Withholding

    original_conv, original_setattr = F.conv2d, minitorch.nn.Module.__dict__["__setattr__"]
    kept = F.conv2d  # a reference taken before, as a notebook cell would

    class Mine(minitorch.nn.Module):  # a "Module" that only subclasses the library's
        pass

    guard = Withholding(
        "demo.x", ["minitorch.nn.functional.conv2d", "minitorch.nn.Module.__setattr__", "minitorch.no_such_piece"]
    )
    assert guard.missing == ["minitorch.no_such_piece"]
    with guard.active():
        with pytest.raises(WithheldPiece, match="minitorch.nn.functional.conv2d: minitorch's own conv2d is not"):
            F.conv2d(minitorch.zeros(1, 1, 3, 3), minitorch.zeros(1, 1, 2, 2))
        with pytest.raises(NotImplementedError):
            kept(minitorch.zeros(1, 1, 3, 3), minitorch.zeros(1, 1, 2, 2))
        with pytest.raises(NotImplementedError):
            Mine().weight = minitorch.nn.Parameter(minitorch.zeros(2))
    assert guard.hits[0] == "minitorch.nn.functional.conv2d"
    assert F.conv2d is original_conv and kept is original_conv
    assert minitorch.nn.Module.__dict__["__setattr__"] is original_setattr
    module = Mine()
    module.weight = minitorch.nn.Parameter(minitorch.zeros(2))
    assert [name for name, _ in module.named_parameters()] == ["weight"]
    assert F.conv2d(minitorch.ones(1, 1, 3, 3), minitorch.ones(1, 1, 2, 2)).tolist() == [[[[4.0, 4.0], [4.0, 4.0]]]]
    assert guard.refusal(F.conv2d) and guard.refusal(original_setattr) and guard.refusal(lambda x: x) is None


# -- the batch grader: a submission that calls the withheld piece fails that exercise only ---------------
# Each shortcut is a last cell that redefines the graded function to call minitorch's own piece.
SHORTCUTS = {
    "16_compilers": {
        "ch16.trace_program": """
            def trace_program(program, x, y):
                return describe_graph(fx.symbolic_trace(ProgramModule(program, x.shape[-1])), x, y)
        """,
        "ch16.dce_program": """
            def dce_program(program, x, y):
                graph_module = fx.symbolic_trace(ProgramModule(program, x.shape[-1]))
                graph_module.graph.eliminate_dead_code()
                graph_module.recompile()
                return describe_graph(graph_module, x, y)
        """,
        "ch16.fusion_program": """
            def fusion_program(program, x, y):
                import minitorch._inductor.fusion as fusion

                graph_module = fx.symbolic_trace(ProgramModule(program, x.shape[-1]))
                fusion.fuse_pointwise(graph_module)
                return describe_graph(graph_module, x, y)
        """,
    },
    "02_autograd": {
        "ch02.silu_with_grad": """
            def silu_with_grad(x, grad_output):
                x = x.detach().requires_grad_()
                y = minitorch.nn.functional.silu(x)
                y.backward(grad_output)
                return y.detach(), x.grad
        """,
        "ch02.broadcast_mul_backward": """
            def broadcast_mul_backward(a, b, grad_output):
                a, b = a.detach().requires_grad_(), b.detach().requires_grad_()
                y = a * b
                y.backward(grad_output)
                return y.detach(), a.grad, b.grad
        """,
        "ch02.backward_program": """
            def backward_program(program, a, b):
                leaves = [minitorch.tensor(a, requires_grad=True), minitorch.tensor(b, requires_grad=True)]
                loss = run_program(program, leaves).sum()
                gradients = minitorch.autograd.grad(loss, leaves, allow_unused=True)
                return np.array(True), 2 * gradients[0], 2 * gradients[1]
        """,
    },
    "04_networks": {
        "ch04.linear_forward": """
            from minitorch.nn.functional import linear as library_linear

            def linear_forward(x, weight, bias):
                return library_linear(x, weight, bias)
        """,
        "ch04.sgd_step": """
            def sgd_step(x, target, weight, bias, learning_rate):
                weight, bias = weight.detach().requires_grad_(), bias.detach().requires_grad_()
                optimizer = minitorch.optim.SGD([weight, bias], lr=learning_rate)
                loss = ((x @ weight.T + bias - target) ** 2).mean()
                loss.backward()
                optimizer.step()
                return weight.detach(), bias.detach(), loss.detach()
        """,
    },
    "05_losses_and_optimizers": {
        "ch05.cross_entropy": """
            def cross_entropy(logits, targets):
                return F.cross_entropy(logits, targets)
        """,
        "ch05.adamw_run": """
            MyAdamW = optim.AdamW
        """,
    },
    "07_convolutions_and_vision": {
        "ch07.conv2d_im2col": """
            library_conv2d = F.conv2d

            def conv2d_im2col(x, weight, bias, stride, padding):
                return library_conv2d(x, weight, bias, stride=stride, padding=padding)
        """,
        "ch07.max_pool_2x2_backward": """
            def max_pool_2x2_backward(x, grad_output):
                x = x.detach().requires_grad_()
                F.max_pool2d(x, 2).backward(grad_output)
                return x.grad
        """,
    },
    # minitorch.func took autograd's grad at import: the reference it holds reaches the withheld piece too
    "08_sequences": {
        "ch08.lstm_forward_backward": """
            def lstm_forward_backward(x, h0, c0, w_ih, w_hh, b_ih, b_hh, grad_output):
                def run(x, h, c, w_ih, w_hh, b_ih, b_hh):
                    outputs = []
                    for step in range(x.shape[0]):
                        i, f, g, o = (x[step] @ w_ih.T + b_ih + h @ w_hh.T + b_hh).chunk(4, dim=1)
                        c = minitorch.sigmoid(f) * c + minitorch.sigmoid(i) * minitorch.tanh(g)
                        h = minitorch.sigmoid(o) * minitorch.tanh(c)
                        outputs.append(h)
                    output = minitorch.stack(outputs)
                    return (output * grad_output).sum(), output.detach()

                transform = minitorch.func.grad_and_value(run, argnums=tuple(range(7)), has_aux=True)
                (gradients, output), _ = transform(x, h0, c0, w_ih, w_hh, b_ih, b_hh)
                return (output, *gradients)
        """,
    },
    "11_training_dynamics": {
        "ch11.batchnorm_forward_backward": """
            def batchnorm_forward_backward(x, gamma, beta, grad_output):
                x, gamma, beta = (t.detach().requires_grad_() for t in (x, gamma, beta))
                y = F.batch_norm(x, None, None, gamma, beta, training=True)
                y.backward(grad_output)
                return y.detach(), x.grad, gamma.grad, beta.grad
        """,
    },
}


def _scores(out: Path) -> dict[str, dict[str, str]]:
    with open(out / "grades.csv", newline="") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


@pytest.mark.parametrize("chapter", sorted(SHORTCUTS))
def test_calling_the_withheld_piece_fails_that_exercise_and_the_reference_passes(chapter, tmp_path):
    require_bwrap()
    from grading.cli import main
    from grading.notebook import read_assignment

    source = COURSE / "source" / chapter / f"{chapter}.ipynb"
    folder = tmp_path / "submitted"
    folder.mkdir()
    shutil.copy(source, folder / "reference.ipynb")
    shortcut = nbformat.read(source, as_version=4)
    code = "\n\n".join(textwrap.dedent(body).strip() for body in SHORTCUTS[chapter].values())
    shortcut.cells.append(nbformat.v4.new_code_cell(code))
    nbformat.write(shortcut, folder / "shortcut.ipynb")
    out = tmp_path / "out"
    assert main([str(folder), "--source", str(source), "--out", str(out), "--jobs", "2", "--quiet"]) == 0
    rows = _scores(out)
    assignment = read_assignment(source)
    assert float(rows["reference"]["total"]) == assignment.max_points, (out / "feedback" / "reference.md").read_text()
    feedback = (out / "feedback" / "shortcut.md").read_text()
    lost = sum(part.points for part in assignment.parts if part.exercise in SHORTCUTS[chapter])
    assert float(rows["shortcut"]["total"]) == assignment.max_points - lost, feedback
    for exercise in SHORTCUTS[chapter]:
        line = next(line for line in feedback.splitlines() if line.startswith(f"- {exercise}:"))
        assert "which this exercise asks you to build (withheld while it is graded)" in line, line


# -- the learner's instant check: the same shortcuts are never green ---------------------------------------
@pytest.mark.parametrize(
    "chapter, name",
    [(chapter, name) for chapter, shortcuts in sorted(SHORTCUTS.items()) for name in shortcuts],
)
def test_the_instant_check_refuses_the_same_shortcut(chapter, name, capsys):
    from grading import check
    from tests.grading.chapter_notebooks import solutions

    exercise = registry.get(name)
    names = solutions(chapter)  # the instructor's edition's names (run_program, optim, the given wrappers)
    kept = dict(names)
    try:  # in the notebook's own namespace: a shortcut may rebind a name a given wrapper reads (MyAdamW)
        exec(textwrap.dedent(SHORTCUTS[chapter][name]).strip(), names)
        assert check(name, names[exercise.function]) == "failed"
    finally:
        names.clear()
        names.update(kept)
    report = capsys.readouterr().out
    assert "asks you to build" in report, report


def test_an_earlier_objects_finalizer_during_the_call_is_not_a_hit():
    """A withheld class's ``__del__`` runs when the garbage collector finds an object made before the call (a
    DataLoader iterator of an earlier cell): that is not the submission using the piece."""
    import gc

    from grading.withhold import Withholding

    loader = minitorch.utils.data.DataLoader(list(range(8)), batch_size=2, num_workers=1)
    iterator = iter(loader)
    next(iterator)
    guard = Withholding("demo.loader", ["minitorch.utils.data.dataloader._MultiProcessIterator"])
    with guard.active():
        del iterator
        gc.collect()
    assert guard.hits == []
    with guard.active():  # using the class itself still counts
        try:
            next(iter(loader))
        except Exception:  # noqa: BLE001 - the stand-in raises; the hit is what matters
            pass
    assert guard.hits and guard.hits[0].endswith("_MultiProcessIterator")


def test_the_grader_reads_a_withheld_status_defensively():
    """The piece's name comes from the sandbox: only a known label or one of the exercise's pieces is shown."""
    from grading import grader, withhold

    assert grader._valid_status({"status": "withheld", "piece": "minitorch.nn.functional.linear"})
    assert not grader._valid_status({"status": "withheld"})
    assert not grader._valid_status({"status": "withheld", "piece": "x", "value": 3})
    assert not grader._valid_status({"status": "withheld", "piece": ["not", "text"]})
    assert withhold.is_label("PyTorch") and withhold.is_label("another program (_posixsubprocess.fork_exec)")
    assert not withhold.is_label("another program (your hidden input is 3)") and not withhold.is_label(3)
