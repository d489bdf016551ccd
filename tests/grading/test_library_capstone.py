"""The capstone on the learner's own library (grading/library/capstone.py) and the pieces of chapters 4, 5, 9 and 15
it takes: each piece is the learner's when it passes its checks and minitorch's otherwise (announced, naming the
exercise); chapter 2's engine schedules minitorch's real graph with the gradients of minitorch's and PyTorch's
engines; the three kits (the learner's, minitorch's, PyTorch's) train the same model to the same losses; and the
library assembled from the reference solutions trains the capstone to the graded target on the held-out text.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

import grading.library as library
import minitorch
from grading.exercises import ch15
from grading.library import capstone
from tests.grading.chapter_notebooks import COURSE, namespace, solutions
from tests.support import require

NEW_PIECES = {  # piece -> (chapter, its solution cells, minitorch's equivalent as the fallback hands it out)
    "linear_forward": ("04_networks", ("ch04-linear-forward",), "minitorch.nn.functional.linear"),
    "cross_entropy": ("05_losses_and_optimizers", ("ch05-cross-entropy",), "minitorch.nn.functional.cross_entropy"),
    "SoftmaxCrossEntropy": ("05_losses_and_optimizers", ("ch05-softmax-cross-entropy",),
                            "grading.library.losses.MinitorchSoftmaxCrossEntropy"),
    "MyAdamW": ("05_losses_and_optimizers", ("ch05-adamw",), "minitorch.optim.AdamW"),
    "attention": ("09_attention", ("attention",), "grading.library.attention.minitorch_attention"),
    "causal_mask": ("09_attention", ("causal_mask",), "grading.library.attention.minitorch_causal_mask"),
    "MyMultiheadAttention": ("09_attention", ("split_heads", "merge_heads", "multihead_attention"),
                             "minitorch.nn.MultiheadAttention"),
    "EmbeddingLookup": ("15_capstone", ("ch15-embedding",), "grading.library.capstone.MinitorchEmbeddingLookup"),
}  # fmt: skip


@pytest.fixture(autouse=True)
def _no_saved_course(tmp_path, monkeypatch):
    """Each test starts where no saved chapter notebook can be found, unless it names a course folder."""
    monkeypatch.delenv("MINITORCH_COURSE_FOLDER", raising=False)
    monkeypatch.chdir(tmp_path)
    library.set_course_folder(None)
    yield
    library.set_course_folder(None)


def _dotted(path: str):
    import importlib

    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


def test_the_pieces_of_chapters_4_5_9_and_15_are_registered():
    registered = library.pieces()
    for name, (chapter, cells, _) in NEW_PIECES.items():
        assert (registered[name].chapter, registered[name].cells) == (chapter, cells), name
    order = list(registered)
    assert order.index("MyModule") < order.index("SoftmaxCrossEntropy") < order.index("attention")
    assert order.index("attention") < order.index("EmbeddingLookup")


@pytest.mark.parametrize("name", sorted(NEW_PIECES))
def test_a_new_piece_that_is_the_learners_is_used(name, capsys):
    names = dict(solutions(NEW_PIECES[name][0]))
    assert library.use(name, names) is names[name]
    assert capsys.readouterr().out == f"using your {name} (this notebook)\n"


@pytest.mark.parametrize("name", sorted(NEW_PIECES))
def test_a_blank_new_piece_falls_back_to_minitorchs_in_one_line(name, capsys):
    chapter, _, equivalent = NEW_PIECES[name]
    assert library.use(name, namespace(chapter, "release")) is _dotted(equivalent)
    assert capsys.readouterr().out == f"your {name} is still blank: using minitorch's\n"


def test_the_fallbacks_compute_what_the_learners_pieces_do():
    """minitorch's equivalents keep the learner's interfaces: the capstone calls either the same way."""
    rng = np.random.default_rng(0)
    query, key, value = (minitorch.tensor(rng.standard_normal((2, 3, 5, 4)).astype(np.float32)) for _ in range(3))
    mine = solutions("09_attention")
    for mask, causal in ((None, True), (mine["causal_mask"](5), False)):
        expected = mine["attention"](query, key, value, mask, causal)
        got = _dotted("grading.library.attention.minitorch_attention")(query, key, value, mask, causal)
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)
    assert minitorch.equal(_dotted("grading.library.attention.minitorch_causal_mask")(5), mine["causal_mask"](5))
    logits = minitorch.tensor(rng.standard_normal((6, 4)).astype(np.float32))
    targets = minitorch.tensor([0, 3, 1, 1, 2, 0])
    losses = solutions("05_losses_and_optimizers")
    np.testing.assert_allclose(
        _dotted("grading.library.losses.MinitorchSoftmaxCrossEntropy").apply(logits, targets).item(),
        losses["SoftmaxCrossEntropy"].apply(logits, targets).item(), rtol=1e-6,
    )  # fmt: skip
    weight, ids = minitorch.tensor(rng.standard_normal((7, 3)).astype(np.float32)), minitorch.tensor([[6, 0, 6]])
    assert minitorch.equal(capstone.MinitorchEmbeddingLookup.apply(weight, ids),
                           solutions("15_capstone")["EmbeddingLookup"].apply(weight, ids))  # fmt: skip


def test_use_of_a_name_that_is_no_piece_says_so_and_names_the_pieces():
    with pytest.raises(library.UnknownPiece, match=r"no piece named 'Strided_Tensor' in your library: the pieces .*"
                                                   r"StridedTensor"):  # fmt: skip
        library.use("Strided_Tensor", {})


def test_the_loader_is_the_learners_piece_once_a_chapter_registers_it(monkeypatch):
    """Until a chapter registers a DataLoader piece, the capstone takes minitorch's and says why in one line; once
    one is registered, it is taken like every other piece (here a stand-in registered by the test)."""
    from minitorch.utils.data import DataLoader

    monkeypatch.delitem(library._PIECES, "DataLoader", raising=False)
    monkeypatch.setattr(library, "_piece_modules", lambda: [])  # no module re-registers it during this test
    lines = []
    assert capstone._take_loader({}, lines) == (DataLoader, False)
    assert lines == [f"  {'loader (DataLoader, chapter 6)':<34} minitorch's (no DataLoader piece in this course yet)"]

    class LearnersLoader(DataLoader):
        pass

    library.piece("DataLoader", chapter="06_data", cells=("ch06-loader",), checks={}, fallback=lambda: DataLoader)
    try:
        lines = []
        assert capstone._take_loader({"DataLoader": LearnersLoader}, lines) == (LearnersLoader, True)
        assert lines == [f"  {'loader (DataLoader, chapter 6)':<34} yours (DataLoader, this notebook)"]
    finally:
        del library._PIECES["DataLoader"]


# -- chapter 2's engine on minitorch's graph ------------------------------------------------------------------------
def _initial(vocab_size=11, seed=3):
    minitorch.manual_seed(seed)
    return {name: value.numpy().copy() for name, value in ch15.CharTransformer(vocab_size).state_dict().items()}


def _loss_and_parameters(kit, initial, ids):
    model = capstone.model_class(kit, 2)(initial)
    inputs, targets = kit.tensor(ids[:, :-1]), kit.tensor(ids[:, 1:])
    logits = model(inputs)
    return kit.loss(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1)), dict(model.named_parameters())


def test_the_learners_engine_on_minitorchs_graph_gives_minitorchs_and_pytorchs_gradients():
    require("torch", "PyTorch's autograd is the reference for the gradients")
    learners_backward = solutions("02_autograd")["backward"]
    initial, ids = _initial(), np.random.default_rng(1).integers(0, 11, (3, 9))
    kit = capstone.minitorch_kit()
    loss, mine = _loss_and_parameters(kit, initial, ids)
    capstone.engine_backward(learners_backward, loss)
    loss, theirs = _loss_and_parameters(kit, initial, ids)
    loss.backward()
    loss, pytorchs = _loss_and_parameters(capstone.pytorch_kit(), initial, ids)
    loss.backward()
    assert list(mine) == list(theirs) == list(pytorchs) == list(ch15.CharTransformer(11).state_dict())
    for name in mine:
        np.testing.assert_allclose(mine[name].grad.numpy(), theirs[name].grad.numpy(), rtol=1e-5, atol=1e-7,
                                   err_msg=name)  # fmt: skip
        np.testing.assert_allclose(mine[name].grad.numpy(), pytorchs[name].grad.numpy(), rtol=2e-3, atol=1e-5,
                                   err_msg=name)  # fmt: skip


def test_the_learners_engine_calls_each_node_once_newest_first_and_sums_a_shared_subgraph():
    learners_backward = solutions("02_autograd")["backward"]
    a = minitorch.tensor([0.5, -1.5], requires_grad=True)
    shared = a.tanh()  # used twice: its node runs once, with the sum of both gradients
    loss = (shared * shared.exp() + shared).sum()
    views = capstone.graph_views(loss)
    calls = []
    for view in _every_view(views.grad_fn):
        original = type(view).__call__
        view_calls = calls

        class Counted(type(view)):
            __slots__ = ()

            def __call__(self, gradient, _original=original, _calls=view_calls):
                _calls.append(self.node)
                return _original(self, gradient)

        view.__class__ = Counted
    learners_backward(views)
    assert len(calls) == len(set(calls)) == len(_every_view(views.grad_fn))
    sequence = [minitorch.autograd.graph.sequence_number(node) for node in calls]
    assert sequence[0] == max(sequence[:-1])  # the root first; the leaf's accumulator (highest number) when ready
    expected = (1 - np.tanh([0.5, -1.5]) ** 2) * (np.exp(np.tanh([0.5, -1.5])) * (1 + np.tanh([0.5, -1.5])) + 1)
    np.testing.assert_allclose(a.grad.numpy(), expected, rtol=1e-6)


def _every_view(root):
    seen, stack = {root}, [root]
    while stack:
        for view, _ in stack.pop().next_functions:
            if view is not None and view not in seen:
                seen.add(view)
                stack.append(view)
    return seen


# -- chapter 2's Function, Context and AccumulateGrad record the graph the learner's engine runs --------------------
def test_the_learners_recording_and_engine_give_minitorchs_and_pytorchs_gradients():
    """The learner's Function.apply records every node again (their Context as ctx, their AccumulateGrad on each
    parameter's leaf), their backward runs those nodes: the parameters' gradients are minitorch's and PyTorch's."""
    require("torch", "PyTorch's autograd is the reference for the gradients")
    mine = solutions("02_autograd")
    initial, ids = _initial(), np.random.default_rng(2).integers(0, 11, (3, 9))
    kit = capstone.minitorch_kit()
    loss, recorded = _loss_and_parameters(kit, initial, ids)
    capstone._recorded_engine(mine["Function"], mine["backward"])(loss)
    loss, theirs = _loss_and_parameters(kit, initial, ids)
    loss.backward()
    loss, pytorchs = _loss_and_parameters(capstone.pytorch_kit(), initial, ids)
    loss.backward()
    for name in recorded:
        np.testing.assert_allclose(recorded[name].grad.numpy(), theirs[name].grad.numpy(), rtol=1e-5, atol=1e-7,
                                   err_msg=name)  # fmt: skip
        np.testing.assert_allclose(recorded[name].grad.numpy(), pytorchs[name].grad.numpy(), rtol=2e-3, atol=1e-5,
                                   err_msg=name)  # fmt: skip


def test_the_learners_nodes_are_the_graph_one_per_minitorch_node_in_creation_order():
    mine = solutions("02_autograd")
    a = minitorch.tensor([0.5, -1.5], requires_grad=True)
    b = minitorch.tensor([2.0, 3.0])  # needs no gradient: the learner's apply records None for it
    shared = a.tanh()
    loss = (shared * b + shared.exp()).sum()
    root, leaves = capstone.record_with(mine["Function"], loss)
    assert isinstance(root, mine["Tensor"]) and isinstance(root.grad_fn, mine["Context"])
    (parameter, leaf), = leaves  # fmt: skip
    assert parameter is a and isinstance(mine["gradient_edge"](leaf), mine["AccumulateGrad"])
    seen, stack, numbers = set(), [root.grad_fn], {}
    while stack:
        node = stack.pop()
        if node in seen or isinstance(node, mine["AccumulateGrad"]):
            continue
        seen.add(node)
        numbers[node.minitorch_node] = node.sequence_nr
        stack.extend(next_node for next_node, _ in node.next_functions if next_node is not None)
    graph = minitorch.autograd.graph
    theirs = [node for node in graph.forward_order(loss) if not graph.is_leaf_node(node)]
    assert set(numbers) == set(theirs)  # one learner's node per minitorch node
    assert [numbers[node] for node in theirs] == sorted(numbers.values())  # made in minitorch's creation order
    mul = next(node for node in seen if node.minitorch_node.name() == "MulBackward0")
    assert mul.next_functions[1] == (None, 0) and mul.needs_input_grad == (True, False, False)
    mine["backward"](root)  # the learner's engine; their AccumulateGrad fills the leaf
    expected = (1 - np.tanh([0.5, -1.5]) ** 2) * (np.array([2.0, 3.0]) + np.exp(np.tanh([0.5, -1.5])))
    np.testing.assert_allclose(leaf.grad.data, expected, rtol=1e-6)


def test_the_recording_is_the_learners_only_with_their_engine_and_says_why_not(capsys):
    mine, blank = solutions("02_autograd"), namespace("02_autograd", "release")
    what = f"  {'recording (Function, ctx, ch. 2)':<34} "
    lines = []
    assert capstone._take_recording(dict(mine), lines, engine_is_yours=True) == (mine["Function"], True)
    assert lines == [what + "yours (Function, Context, AccumulateGrad, this notebook)"]
    lines = []
    assert capstone._take_recording(dict(mine), lines, engine_is_yours=False) == (None, False)
    assert lines == [what + "minitorch's (yours needs your engine to run it: ch02.record_program passes, the engine "
                            "does not)"]  # fmt: skip
    lines = []
    assert capstone._take_recording(blank, lines, engine_is_yours=True) == (None, False)
    assert lines == [what + "minitorch's (yours is blank: ch02.record_program)"]
    written_engine_only = {**blank, "backward": mine["backward"], "engine_program": mine["engine_program"]}
    kit = capstone.your_kit(written_engine_only)  # the engine is the learner's, the recording blank: views
    assert any(line.startswith(what + "minitorch's (yours is blank") for line in kit.lines)
    assert any(line.startswith("  engine (backward, chapter 2)       yours") for line in kit.lines)
    kit = capstone.your_kit({**mine})  # both the learner's: their recording
    assert any(line == what + "yours (Function, Context, AccumulateGrad, this notebook)" for line in kit.lines)
    kit = capstone.your_kit({**blank})  # both blank: minitorch's loss.backward()
    assert sum("minitorch's (yours is blank: ch02." in line for line in kit.lines) == 2


def test_an_op_with_several_outputs_is_refused_by_name():
    x = minitorch.randn(2, 6, requires_grad=True)
    first, second, _ = x.chunk(3, dim=1)
    with pytest.raises(ValueError, match="handles ops with one output"):
        capstone.graph_views((first * second).sum())


# -- the kits train the same model --------------------------------------------------------------------------------
def test_the_three_kits_train_the_same_model_to_the_same_losses(capsys):
    require("torch", "PyTorch's column is the reference")
    library.set_course_folder(COURSE / "source")  # every piece the learner's: the reference solutions, saved
    train_ids, val_ids, vocab_size = ch15.text_ids()
    initial, starts = _initial(vocab_size, seed=0), capstone.batch_starts(len(train_ids), 24, 32, 20, seed=0)
    runs = []
    for kit in (capstone.your_kit({}), capstone.minitorch_kit(), capstone.pytorch_kit()):
        run = capstone.train(kit, initial, train_ids, starts, num_heads=2, learning_rate=2e-2)
        run.validation_loss = capstone.window_loss(kit, run.model, val_ids[:2000], 24)
        runs.append(run)
    yours, minitorchs, pytorchs = (np.array(run.losses) for run in runs)
    assert len(yours) == 20 and yours[-1] < yours[0] - 1.0  # it learns
    np.testing.assert_allclose(yours, minitorchs, atol=1e-3)
    np.testing.assert_allclose(yours, pytorchs, atol=1e-3)
    np.testing.assert_allclose([run.validation_loss for run in runs], runs[2].validation_loss, atol=1e-3)
    table = capstone.side_by_side(runs, every=5)
    assert table.splitlines()[0].split() == ["step", "your", "library", "minitorch", "PyTorch"]
    assert "your library against PyTorch: the training losses agree within 0.001 for the first 20 steps" in table


def test_the_batches_are_the_graded_loops_and_any_strided_tensor_cuts_the_same_windows():
    train_ids, _, _ = ch15.text_ids()
    starts = capstone.batch_starts(len(train_ids), 24, 32, 3, seed=0)
    generator = minitorch.Generator().manual_seed(0)
    for row in starts:  # chapter 15's loop draws its starts this way
        expected = minitorch.randint(0, len(train_ids) - 24, (32,), generator=generator).numpy()
        np.testing.assert_array_equal(row, expected)
    mine = solutions("01_tensors")["StridedTensor"]
    for Strided in (None, mine, library.pieces()["StridedTensor"].fallback()):
        windows = capstone.Windows(train_ids, starts, 24, Strided)
        inputs, targets = windows[5]
        start = starts.reshape(-1)[5]
        np.testing.assert_array_equal(inputs, train_ids[start : start + 24])
        np.testing.assert_array_equal(targets, train_ids[start + 1 : start + 25])


def test_the_tensor_is_the_learners_choice_said_in_the_output():
    library.set_course_folder(COURSE / "source")
    kit = capstone.your_kit({}, tensor="minitorch")
    assert kit.Strided is library.pieces()["StridedTensor"].fallback()
    assert "minitorch's (your choice: tensor='minitorch')" in kit.lines[0]
    assert capstone.your_kit({}).Strided is not kit.Strided
    with pytest.raises(ValueError, match="tensor is 'yours' or 'minitorch'"):
        capstone.your_kit({}, tensor="numpy")


def test_every_piece_is_announced_yours_or_minitorchs_naming_the_exercise():
    blank = capstone.your_kit({})  # no saved chapter anywhere, and no piece in this namespace
    assert blank.yours == 0 and len(blank.lines) == 10
    assert "engine (backward, chapter 2)       minitorch's (yours was not found: no saved 02_autograd/" in (
        "\n".join(blank.lines)
    )
    ch15_blank = namespace("15_capstone", "release")
    lines = capstone.your_kit(ch15_blank).lines
    assert any(line.endswith("minitorch's (yours is blank: ch15.embedding_forward_backward)") for line in lines)


def test_the_library_assembled_from_the_reference_solutions_trains_the_capstone_to_the_target():
    """Every piece the reference solution's (the instructor's edition, saved), the full training budget: the
    grader's judge (the held-out text, the graded target) accepts the model the learner's library trained."""
    library.set_course_folder(COURSE / "source")
    kit = capstone.your_kit({})
    # every piece the reference solution's (the loader too, once chapter 6 registers one)
    assert all(" yours (" in line or "no DataLoader piece" in line for line in kit.lines), kit.lines
    train_ids, val_ids, vocab_size = ch15.text_ids()
    initial = _initial(vocab_size, seed=0)
    starts = capstone.batch_starts(len(train_ids), ch15.BLOCK_SIZE, ch15.BATCH_SIZE, ch15.STEPS, seed=0)
    run = capstone.train(kit, initial, train_ids, starts, num_heads=ch15.NUM_HEADS, learning_rate=ch15.LEARNING_RATE)
    parameters = list(capstone.trained_parameters(run))
    assert ch15.judge_trained_model(parameters, (train_ids, vocab_size, 0)) is None
    assert capstone.window_loss(kit, run.model, val_ids, ch15.BLOCK_SIZE) < ch15.baselines()["trigram"]


# -- Run All with one piece blank -------------------------------------------------------------------------------
SAVED_CHAPTERS = ("01_tensors", "02_autograd", "04_networks", "05_losses_and_optimizers", "09_attention")
BLANKED = {  # piece -> (its chapter, the solution cell that is blank, the line the capstone prints for it)
    "StridedTensor": ("01_tensors", "ch01-strided", "tensor (StridedTensor, chapter 1)"),
    "backward": ("02_autograd", "engine", "engine (backward, chapter 2)"),
    "Function": ("02_autograd", "function_apply", "recording (Function, ctx, ch. 2)"),
    "MyModule": ("04_networks", "ch04-module-machinery", "Module (MyModule, chapter 4)"),
    "linear_forward": ("04_networks", "ch04-linear-forward", "linear layers (chapter 4)"),
    "SoftmaxCrossEntropy": ("05_losses_and_optimizers", "ch05-softmax-cross-entropy",
                            "loss (SoftmaxCrossEntropy, ch. 5)"),
    "AdamW": ("05_losses_and_optimizers", "ch05-optimizer", "optimizer (AdamW, chapter 5)"),
    "attention": ("09_attention", "attention", "attention (chapter 9)"),
}  # fmt: skip
# cells whose chapter tests/grading/test_library.py already runs top to bottom with that cell blank
ALREADY_RUN_BLANK = ("ch01-strided", "ch04-module-machinery", "ch05-optimizer")


def _notebook_with_blank(chapter: str, blank_cell: str | None, edition: str = "source"):
    """The chapter (``edition``) with ``blank_cell`` as the learner's edition has it and no hidden tests."""
    nbformat = require("nbformat", "reads the chapters")
    document = nbformat.read(COURSE / edition / chapter / f"{chapter}.ipynb", as_version=4)
    release = json.loads((COURSE / "release" / chapter / f"{chapter}.ipynb").read_text())
    blank = {cell["metadata"].get("nbgrader", {}).get("grade_id"): "".join(cell["source"]) for cell in release["cells"]}
    for cell in document.cells:
        if blank_cell is not None and cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == blank_cell:
            cell.source = blank[blank_cell]
        if "### BEGIN HIDDEN TESTS" in cell.source:
            cell.source = cell.source.split("### BEGIN HIDDEN TESTS", 1)[0]
    return document


def _execute(document, folder: Path) -> str:
    nbclient = require("nbclient", "executes the chapters as Run All does")
    settings = {"PYTHONPATH": str(COURSE.parent), "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    previous = {name: os.environ.get(name) for name in settings}
    os.environ.update(settings)
    try:
        client = nbclient.NotebookClient(document, timeout=300, kernel_name="python3", allow_errors=False,
                                         resources={"metadata": {"path": str(folder)}})  # fmt: skip
        client.execute()
    finally:
        for name, value in previous.items():
            if value is None:
                del os.environ[name]
            else:
                os.environ[name] = value
    return "".join(
        output.get("text", "") for cell in document.cells if cell.cell_type == "code" for output in cell.outputs
    )


@pytest.mark.parametrize("piece", sorted(BLANKED))
def test_with_one_piece_blank_its_chapter_and_the_capstone_run_top_to_bottom(piece, tmp_path):
    """A course whose saved chapters are the reference solutions but for one blank piece: that chapter runs top to
    bottom (here, or in test_library.py for the cells of ALREADY_RUN_BLANK), and the capstone (the learner's
    edition, as it stands before its own exercises are done) trains on the learner's library with minitorch's piece
    in its place, said in one line naming the exercise."""
    nbformat = require("nbformat", "writes the saved chapters")
    chapter, cell, what = BLANKED[piece]
    course = tmp_path / "course"
    for saved in SAVED_CHAPTERS:
        (course / saved).mkdir(parents=True)
        target = course / saved / f"{saved}.ipynb"
        if saved == chapter:
            nbformat.write(_notebook_with_blank(saved, cell), target)
        else:
            shutil.copy(COURSE / "source" / saved / f"{saved}.ipynb", target)
    for data in (COURSE / "release" / chapter).iterdir():
        if data.suffix != ".ipynb" and data.is_file():
            shutil.copy(data, course / chapter / data.name)
    if cell not in ALREADY_RUN_BLANK:
        _execute(_notebook_with_blank(chapter, cell), course / chapter)  # Run All completes: no cell raises
    (course / "15_capstone").mkdir()
    for data in (COURSE / "release" / "15_capstone").iterdir():
        shutil.copy(data, course / "15_capstone" / data.name)
    text = _execute(_notebook_with_blank("15_capstone", None, edition="release"), course / "15_capstone")
    exercise = ", ".join(library.pieces()[piece].checks)
    assert f"{what:<34} minitorch's (yours is blank: {exercise})" in text
    # the other pieces of the saved chapters are the learner's (but chapter 2's recording, which needs chapter 2's
    # engine: both are minitorch's when either is blank); this chapter's EmbeddingLookup is still blank
    yours = 6 if chapter == "02_autograd" else 7
    assert f"The pieces of your library in this run ({yours} of 10 yours)" in text
    assert re.search(r"your library against minitorch: the training losses agree within 0.001 for the first \d+ steps",
                     text)  # fmt: skip
    assert re.search(r"the model trained on your library: validation loss \d\.\d{3}", text)
