"""The review questions (grading/review.py, grading/review_questions/): every chapter has at least five,
every answer key is valid, the facts they ask for are computed here with PyTorch and minitorch, the
widget and the plain-text fallback give feedback, and the build puts them before each chapter's summary."""

from __future__ import annotations

import math
from pathlib import Path

import nbformat
import numpy as np
import pytest

import minitorch
from grading import review
from tests.support import require_torch

REPOSITORY = Path(__file__).resolve().parents[2]
CHAPTER_SCRIPTS = sorted((REPOSITORY / "notebooks" / "tools" / "chapters").glob("[0-9][0-9]_*.py"))
# every chapter script's questions, and the capstone's (chapter 15) even before its script lands here
CHAPTERS = sorted({f"ch{script.name[:2]}" for script in CHAPTER_SCRIPTS} | {"ch15"})


def _choice_text(question_id: str) -> str:
    question = review.get(question_id)
    return question.choices[review.LETTERS.index(question.correct)]


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_chapter_has_five_or_more_valid_questions(chapter):
    questions = review.questions(chapter)
    assert len(questions) >= 5, f"{chapter} has {len(questions)} review questions"
    assert len({question.prompt for question in questions}) == len(questions)
    for position, question in enumerate(questions, start=1):
        assert question.id == f"{chapter}.q{position}"
        assert len(question.prompt) > 15 and len(question.explanation) > 30
        if question.kind == "choice":
            assert 2 <= len(question.choices) <= len(review.LETTERS)
            assert len(set(question.choices)) == len(question.choices), question.id
            assert question.correct in review.LETTERS[: len(question.choices)], question.id
            assert question.judge(question.correct) == (True, "")
            wrong = next(letter for letter in review.LETTERS[: len(question.choices)] if letter != question.correct)
            assert question.judge(wrong) == (False, "")
        else:
            assert isinstance(question.correct, (int, float)) and math.isfinite(question.correct), question.id
            assert question.judge(question.correct) == (True, "")
            assert question.judge(str(question.correct)) == (True, "")
            assert question.judge(question.correct * 1.5 + 1) == (False, ""), question.id


def test_choices_are_shuffled_the_same_way_every_time_and_the_key_follows():
    counts = {}
    for chapter in CHAPTERS:
        for question in review.questions(chapter):
            if question.kind == "choice":
                counts[question.correct] = counts.get(question.correct, 0) + 1
    assert len(counts) >= 3 and max(counts.values()) < 0.5 * sum(counts.values())  # not always the same letter
    assert review.questions("ch04") == review.questions("ch04")
    # the key still names the right text after the shuffle
    assert _choice_text("ch04.q2") == "(5, 3)"


# -- the facts the questions ask for, computed ---------------------------------------------------------
def _facts():
    torch = require_torch()
    nn, F = torch.nn, torch.nn.functional

    def count(module):
        return sum(parameter.numel() for parameter in module.parameters())

    def sgd_momentum():
        w = torch.nn.Parameter(torch.tensor(1.0, dtype=torch.float64))
        optimizer = torch.optim.SGD([w], lr=0.1, momentum=0.9)
        for _ in range(2):
            w.grad = torch.tensor(1.0, dtype=torch.float64)
            optimizer.step()
        return w.item()

    def adam_first_step():
        w = torch.nn.Parameter(torch.tensor(1.0, dtype=torch.float64))
        optimizer = torch.optim.Adam([w], lr=0.01)
        w.grad = torch.tensor(5.0, dtype=torch.float64)
        optimizer.step()
        return w.item()

    def clip(gradients, max_norm=1.0):
        parameters = [torch.zeros(len(g), requires_grad=True) for g in gradients]
        for parameter, gradient in zip(parameters, gradients):
            parameter.grad = torch.tensor(gradient, dtype=torch.float32)
        total = torch.nn.utils.clip_grad_norm_(parameters, max_norm=max_norm)
        return total.item(), parameters[0].grad[0].item()

    def dropout_scale():
        torch.manual_seed(0)
        out = nn.Dropout(p=0.2).train()(torch.ones(1000))
        return out[out != 0].unique().item()

    def sdpa_bool_true_is_allowed():
        q, k = torch.zeros(1, 1, 4), torch.zeros(1, 2, 4)
        v = torch.tensor([[[1.0, 0, 0, 0], [0, 1.0, 0, 0]]])
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=torch.tensor([[True, False]]))
        mha = nn.MultiheadAttention(4, 1, batch_first=True, bias=False)
        with torch.no_grad():
            mha.in_proj_weight.copy_(torch.eye(4).repeat(3, 1))
            mha.out_proj.weight.copy_(torch.eye(4))
        blocked, _ = mha(q, k, v, attn_mask=torch.tensor([[True, False]]))
        return torch.allclose(out, v[:, :1]) and torch.allclose(blocked, v[:, 1:])

    def attention_permutes():
        torch.manual_seed(0)
        layer = nn.MultiheadAttention(8, 2, batch_first=True).eval()
        x = torch.randn(1, 5, 8)
        order = torch.tensor([3, 0, 4, 1, 2])
        with torch.no_grad():
            return torch.allclose(
                layer(x, x, x)[0][:, order], layer(x[:, order], x[:, order], x[:, order])[0], atol=1e-6
            )

    def top2():
        logits = torch.tensor([[0.1, 0.5, 0.4], [0.7, 0.2, 0.1], [0.35, 0.25, 0.4]])
        targets = torch.tensor([2, 1, 0])
        top = logits.topk(2, dim=1).indices
        return (top == targets[:, None]).any(dim=1).float().mean().item()

    def distributed_share():
        from torch.utils.data.distributed import DistributedSampler

        return len(list(DistributedSampler(range(10), num_replicas=4, rank=0, shuffle=False)))

    def kaiming_std():
        return nn.init.calculate_gain("relu") / math.sqrt(512)

    def xavier_bound():
        weight = torch.empty(200, 100)
        nn.init.xavier_uniform_(weight)
        fan_in, fan_out = 100, 200
        bound = nn.init.calculate_gain("linear") * math.sqrt(6.0 / (fan_in + fan_out))
        assert weight.abs().max().item() <= bound
        return bound

    def sequential_keys():
        return list(nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)).state_dict())

    def window_text():
        data, block = torch.tensor([ord(c) for c in "hello world"]), 4
        text = "".join(map(chr, data[0:block].tolist())), "".join(map(chr, data[1 : block + 1].tolist()))
        return f'inputs "{text[0]}", targets "{text[1]}"'

    def embedding_row_gradient():
        table = torch.zeros(3, 1, requires_grad=True)
        F.embedding(torch.tensor([2, 2, 0]), table).sum().backward()
        return table.grad[2, 0].item()

    def compiled_graphs():
        from minitorch._dynamo.testing import CompileCounter

        counter = CompileCounter()
        compiled = minitorch.compile(lambda x: x.sin() * 2, backend=counter)
        for shape in ((4, 8), (4, 8), (16, 8), (4, 8)):
            compiled(minitorch.zeros(*shape))
        return counter.frame_count

    def nodes_after_dead_code_elimination():
        class Program(nn.Module):
            def forward(self, x):
                a = x.relu()
                a.sigmoid()
                return x + 1

        traced = torch.fx.symbolic_trace(Program())
        traced.graph.eliminate_dead_code()
        return len(traced.graph.nodes)

    sequential = sequential_keys()
    int8 = torch.tensor([127], dtype=torch.int8) + 1
    a = np.zeros(3)
    shared = minitorch.from_numpy(a)
    a[0] = 5
    x = minitorch.tensor(3.0, requires_grad=True)
    (x**2 + 2 * x).backward()
    y = minitorch.tensor(1.0, requires_grad=True)
    (3 * y).backward()
    (3 * y).backward()
    left, right = minitorch.randn(3, 1, requires_grad=True), minitorch.randn(1, 4, requires_grad=True)
    (left * right).sum().backward()
    cpu_tensor = minitorch.ones(2)
    loader = minitorch.utils.data.DataLoader(minitorch.utils.data.TensorDataset(minitorch.arange(10)), batch_size=3)
    first, _ = minitorch.utils.data.random_split(range(10), [0.8, 0.2], generator=minitorch.Generator().manual_seed(0))
    collated = minitorch.utils.data.default_collate([(minitorch.ones(2), 1)] * 4)
    ctc_like = torch.chunk(torch.arange(10), 3)

    return {
        "ch00.q5": minitorch.arange(5).sum().item(),
        "ch01.q1": str(minitorch.tensor([1, 2, 3]).dtype).split(".")[-1],
        "ch01.q2": str((minitorch.tensor([1, 2, 3]) + 1.5).dtype).split(".")[-1],
        "ch01.q3": (minitorch.zeros(4, 1, 3) + minitorch.zeros(5, 1)).numel(),
        "ch01.q4": str(minitorch.arange(12).view(3, 4).t().stride()),
        "ch01.q5": f"{shared[0].item()}: from_numpy shares memory",
        "ch01.q6": (minitorch.tensor([127], dtype=minitorch.int8) + 1).item() == int8.item() and int8.item(),
        "ch02.q1": x.grad.item(),
        "ch02.q2": y.grad.item(),
        "ch02.q3": str(tuple(left.grad.shape)),
        "ch03.q1": minitorch.zeros(1000, 1000).numel() * minitorch.zeros(1000, 1000).element_size(),
        "ch03.q3": cpu_tensor.to("cpu") is cpu_tensor and "t itself",
        "ch04.q1": count(minitorch.nn.Linear(3, 5)),
        "ch04.q2": str(tuple(minitorch.nn.Linear(3, 5).weight.shape)),
        "ch04.q3": "2.weight" in sequential and "1.weight" not in sequential and "'2.weight'",
        "ch05.q1": F.cross_entropy(torch.zeros(1, 4), torch.tensor([0])).item(),
        "ch05.q3": sgd_momentum(),
        "ch05.q4": adam_first_step(),
        "ch06.q1": len(loader),
        "ch06.q2": len(first),
        "ch06.q3": [tuple(part.shape) for part in collated] == [(4, 2), (4,)] and "a pair",
        "ch07.q1": nn.Conv2d(1, 8, 3, stride=2, padding=1)(torch.zeros(1, 1, 32, 32)).shape[-2],
        "ch07.q2": count(nn.Conv2d(3, 16, 3)),
        "ch07.q3": count(nn.Conv2d(16, 32, 3, groups=4)),
        "ch07.q4": str(tuple(minitorch.nn.functional.unfold(minitorch.zeros(1, 3, 5, 5), kernel_size=3).shape)),
        "ch07.q6": count(nn.BatchNorm2d(16)),
        "ch08.q1": count(minitorch.nn.Embedding(100, 8)),
        "ch08.q2": count(nn.RNN(10, 20)),
        "ch08.q3": str(tuple(nn.LSTM(10, 20).weight_ih_l0.shape)),
        "ch08.q6": clip([[3.0, 4.0]])[1],
        "ch09.q2": int(torch.tril(torch.ones(5, 5)).sum().item()),
        "ch09.q3": sdpa_bool_true_is_allowed() and "allowed in F.scaled_dot_product_attention",
        "ch09.q4": count(nn.MultiheadAttention(16, 4)),
        "ch09.q5": attention_permutes() and "the same vectors, shuffled",
        "ch10.q2": top2(),
        "ch11.q1": kaiming_std(),
        "ch11.q2": xavier_bound(),
        "ch11.q3": dropout_scale(),
        "ch11.q4": clip([[3.0, 4.0], [12.0]], max_norm=100.0)[0],
        "ch12.q2": ", ".join(str(len(part)) for part in ctc_like),
        "ch12.q5": 2 * (4 - 1) / 4 * 100,
        "ch12.q6": distributed_share(),
        "ch14.q3": torch.zeros(1000, 1000, dtype=torch.int8).numel() * torch.zeros(1, dtype=torch.int8).element_size(),
        "ch14.q4": torch.softmax(torch.tensor([1000.0, 1000.0]), dim=0)[0].item(),
        "ch16.q2": compiled_graphs(),
        "ch16.q4": nodes_after_dead_code_elimination(),
        "ch15.q1": F.cross_entropy(torch.zeros(1, 64), torch.tensor([0])).item(),
        "ch15.q2": window_text(),
        "ch15.q3": embedding_row_gradient(),
        "ch15.q5": torch.softmax(torch.tensor([2.0, 0.0]) / 2, dim=0)[0].item(),
        "ch15.q6": int(torch.searchsorted(torch.tensor([0.2, 0.5, 0.3]).cumsum(0), torch.tensor(0.65), right=True)),
    }


def test_computed_answers_agree_with_pytorch_and_minitorch():
    facts = _facts()
    for question_id, fact in facts.items():
        question = review.get(question_id)
        assert fact is not False, f"{question_id}: the fact does not hold"
        if question.kind == "number":
            assert question.judge(fact) == (True, ""), f"{question_id}: computed {fact}, key {question.correct}"
        else:
            assert str(fact) in _choice_text(question_id), f"{question_id}: computed {fact!r}"
    assert len(facts) >= 40


# -- feedback: the text fallback and the widget ----------------------------------------------------------
def test_text_fallback_prints_every_question_and_answer_explains(capsys):
    assert review.review("ch03", widget=False) is None
    text = capsys.readouterr().out
    for question in review.questions("ch03"):
        assert question.prompt in text and f'answer("{question.id}"' in text
    assert "not graded" in text
    question = review.get("ch02.q1")
    assert review.answer("ch02.q1", "7") is False
    out = capsys.readouterr().out
    assert "Not quite" in out and question.explanation in out
    assert review.answer("ch02.q1", 8) is True
    assert "Right" in capsys.readouterr().out
    wrong = next(letter for letter in "abcd" if letter != review.get("ch04.q2").correct)
    assert review.answer("ch04.q2", wrong.upper()) is False
    assert review.get("ch04.q2").explanation in capsys.readouterr().out
    assert review.answer("ch04.q2", "z") is False
    assert "Cannot read that answer" in capsys.readouterr().out


def test_unknown_chapter_or_question_says_so():
    with pytest.raises(KeyError, match="no review questions"):
        review.questions("ch99")
    with pytest.raises(KeyError, match="no review question 'ch03.q42'"):
        review.get("ch03.q42")
    with pytest.raises(ValueError):
        review.questions("03_devices")


def test_widget_gives_feedback_at_once():
    view = review.ReviewWidget("ch05")
    assert len(view.items) == len(review.questions("ch05"))
    choice_item = next(item for item in view.items if item["button"] is None)
    question = choice_item["question"]
    assert choice_item["feedback"].value == ""
    wrong = next(letter for letter in "abcd" if letter != question.correct)
    choice_item["input"].value = wrong
    assert "Not quite" in choice_item["feedback"].value
    assert review.html.escape(question.explanation) in choice_item["feedback"].value
    choice_item["input"].value = question.correct
    assert "Right" in choice_item["feedback"].value
    number_item = next(item for item in view.items if item["button"] is not None)
    number_item["input"].value = "not a number"
    assert "Cannot read" in number_item["feedback"].value
    number_item["input"].value = str(number_item["question"].correct)
    assert "Right" in number_item["feedback"].value
    number_item["input"].value = "0"
    number_item["button"].click()
    assert "Not quite" in number_item["feedback"].value
    assert review.review("ch05", widget=True).children[0].value.startswith("<b>Review questions</b>")


# -- the build: a review section before each chapter's summary, in both editions, never graded -------
@pytest.mark.parametrize("edition", ["source", "release"])
@pytest.mark.parametrize("script", CHAPTER_SCRIPTS, ids=lambda script: script.stem)
def test_build_puts_review_questions_before_the_summary(script, edition):
    path = REPOSITORY / "notebooks" / edition / script.stem / f"{script.stem}.ipynb"
    assert path.exists(), f"the {edition} edition of {script.stem} is missing: generate it (README, For instructors)"
    cells = nbformat.read(path, as_version=4).cells
    headings = [index for index, cell in enumerate(cells) if cell.source.startswith("## Review questions")]
    assert len(headings) == 1, f"{path.name}: no review section (regenerate it with notebooks/tools/build.py)"
    at = headings[0]
    assert f'review("ch{script.name[:2]}")' in cells[at + 1].source
    assert cells[at + 2].cell_type == "markdown" and cells[at + 2].source.startswith("## Summary")
    for cell in cells[at : at + 2]:
        assert not cell.metadata.get("nbgrader", {}).get("grade"), "review questions are not graded"


def test_review_section_is_skipped_for_a_chapter_without_questions(monkeypatch):
    import sys

    monkeypatch.syspath_prepend(str(REPOSITORY / "notebooks" / "tools"))
    sys.modules.pop("author", None)
    import author

    cells = [author.md("# Title"), author.md("## Summary\n\ndone"), author.code("summary('ch98')")]
    assert author._with_review("98_nothing", cells) == cells
    with_review = author._with_review("03_devices", cells)
    assert [cell.source.splitlines()[0] for cell in with_review][1:4] == [
        "## Review questions",
        'from grading.review import answer, review  # noqa: F401 (answer("ch03.q1", ...) checks one answer)',
        "## Summary",
    ]
