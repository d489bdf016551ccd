"""The class summary (grading/class_summary.py) on results made by hand: counts, kinds, escaping, no outside file.

The same files from a whole graded fixture class are checked against its grades.csv in test_grader_fixtures.py.
"""

from __future__ import annotations

import csv

import pytest

from grading import class_summary
from grading.grader import PartResult, Result, write_reports
from grading.notebook import Assignment, GradedPart

ASSIGNMENT = Assignment("demo", "demo", [GradedPart("test_relu", "demo.relu", 1.0, []),
                                         GradedPart("test_linear", "demo.linear", 2.0, [])])  # fmt: skip


def _result(student, relu, linear):
    result = Result(student, f"{student}.ipynb")
    result.parts = {0: PartResult(relu[0], 1.0, relu[1]), 1: PartResult(linear[0], 2.0, linear[1])}
    return result


@pytest.mark.parametrize(
    "summary, kind",
    [  # the grader's own sentences (grading/grader.py), each under the kind a reader expects
        ("passed all 6 cases", class_summary.OTHER),  # a pass is never counted as a failure; the kind is unused
        ("not implemented yet", "not implemented"),
        ("no function named relu was defined", "no function"),
        ("test cell deleted: 0", "test cell deleted"),
        ("not in the release you submitted (an earlier release: ...): 0", "earlier release"),
        ("failed 1 of 5 cases: hidden case 1: ran past the time limit", "time or memory limit"),
        ("crashed: used more memory than the limit (512 MiB) and was stopped", "time or memory limit"),
        ("failed 2 of 5 cases: public case 1: raised ZeroDivisionError", "raised an exception"),
        ("failed 1 of 5 cases: public case 2: changed its input (argument 1) in place", "broke a rule"),
        ("failed: get_batch has a for loop (line 2 of the function): the exercise asks for no Python loop",
         "broke a rule"),
        ("failed 1 of 2 cases: hidden case 1: wrong values", "wrong answer"),
        ("failed 1 of 1 cases: public case 1: the trained model's loss on the held-out entries G, measured by the "
         "grader, is 2.301: above the target 2.05", "wrong answer"),
        ("not graded (grader error)", "not graded"),
    ],
)  # fmt: skip
def test_each_failure_sentence_has_its_kind(summary, kind):
    assert class_summary.failure_kind(summary) == kind


def test_summary_files_count_the_class(tmp_path):
    results = [
        _result("ann", (1.0, "passed all 3 cases"), (2.0, "passed all 3 cases")),
        _result("bob", (0.0, "not implemented yet"), (2.0, "passed all 3 cases")),
        _result("cy", (1.0, "passed all 3 cases"), (0.0, "failed 1 of 3 cases: hidden case 1: wrong shape")),
        _result("dee", (0.0, "failed 1 of 3 cases: public case 1: raised TypeError"), (0.0, "test cell deleted: 0")),
    ]
    write_reports(results, ASSIGNMENT, tmp_path)
    with open(tmp_path / "summary.csv", newline="") as handle:
        rows = {row["part"]: row for row in csv.DictReader(handle)}
    relu, linear, total = rows["demo.relu"], rows["demo.linear"], rows["total"]
    assert (relu["mean"], relu["mean_percent"], relu["full"], relu["none"]) == ("0.500", "50.0", "2", "2")
    assert (linear["mean"], linear["full"], linear["none"], linear["wrong answer"]) == ("1.000", "2", "2", "1")
    assert (relu["not implemented"], relu["raised an exception"], linear["test cell deleted"]) == ("1", "1", "1")
    assert total["mean"] == "1.500" and total["max_points"] == "3"
    # totals 3, 2, 1, 0 of 3: the bins 0-10%, 30-40%, 60-70% and the last (full marks)
    assert [int(total[f"scores {10 * i}-{10 * (i + 1)}%"]) for i in range(10)] == [1, 0, 0, 1, 0, 0, 1, 0, 0, 1]
    with open(tmp_path / "failures.csv", newline="") as handle:
        failures = [(row["part"], row["kind"], row["count"], row["students"]) for row in csv.DictReader(handle)]
    assert failures == [
        ("demo.relu", "not implemented", "1", "bob"),
        ("demo.relu", "raised an exception", "1", "dee"),
        ("demo.linear", "test cell deleted", "1", "dee"),
        ("demo.linear", "wrong answer", "1", "cy"),
    ]


def test_the_page_is_self_contained_and_escapes_every_name(tmp_path):
    results = [_result("a<b>&c", (0.0, "failed: <script>alert(1)</script> raised X"), (2.0, "passed all 3 cases"))]
    write_reports(results, Assignment("de<mo", "demo", ASSIGNMENT.parts), tmp_path)
    page = (tmp_path / "summary.html").read_text()
    assert "a&lt;b&gt;&amp;c" in page and "a<b>" not in page and "de&lt;mo" in page
    assert "<script" not in page and "src=" not in page and "href=" not in page and "@import" not in page
    assert page.count("<svg") == 3 and page.startswith("<!DOCTYPE html>")
