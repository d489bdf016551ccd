"""The class at a glance, written beside ``grades.csv`` after a batch: how each exercise went, and who failed how.

* ``summary.csv``: one row per graded part (and one for the total): the mean score, the mean as a percentage of
  the part's points, how many submissions scored full, some or no points, a histogram of the scores in ten
  bins of the part's points, and how many failed in each kind of failure;
* ``failures.csv``: one row per part and kind of failure, with the students who failed that way;
* ``summary.html``: the same as a small self-contained page (inline SVG histograms, no script, no link, no
  file beside it), to open in any browser without a network.

A part's kind of failure is read from the one-line summary the grader wrote for it (see :data:`KINDS`), so the
summary counts exactly what each learner's feedback says. Every name and sentence in the page is escaped.
"""

from __future__ import annotations

import csv
import html
from collections import Counter
from pathlib import Path

# (kind, words of a part's summary that mean it), first match wins: the grader's own sentences (grading/grader.py)
KINDS: list[tuple[str, tuple[str, ...]]] = [
    ("not graded", ("not graded", "malformed output")),
    ("earlier release", ("not in the release you submitted",)),
    ("test cell deleted", ("test cell deleted",)),
    ("not implemented", ("not implemented yet", "returned None")),
    ("no function", ("no function named",)),
    ("time or memory limit", ("time limit", "was stopped", "ran out", "memory", "file limit", "not run")),
    ("raised an exception", ("raised ", "sys.exit")),
    ("broke a rule", ("in place", "breaks a rule", "Python loop", "requires grad")),
    ("wrong answer", ("wrong ", "above the target", "measured by the grader", "expected the", "returned ")),
]
OTHER = "other failure"
KIND_NAMES = [kind for kind, _ in KINDS] + [OTHER]
BINS = 10


def failure_kind(summary: str) -> str:
    """The kind of failure a part's one-line summary says ("wrong answer", "raised an exception", ...)."""
    for kind, words in KINDS:
        if any(word in summary for word in words):
            return kind
    return OTHER


def _histogram(scores: list[float], maximum: float) -> list[int]:
    """Counts of ``scores`` in BINS equal bins of [0, maximum]; the full score falls in the last bin."""
    counts = [0] * BINS
    for score in scores:
        fraction = score / maximum if maximum > 0 else 1.0
        counts[min(BINS - 1, max(0, int(fraction * BINS)))] += 1
    return counts


def summarise(results, columns: list[str], max_points: list[float]) -> list[dict]:
    """One row per part and one for the total: ``name, max, mean, full, some, none, histogram, kinds, students``
    (``kinds``: kind -> count; ``students``: kind -> the students who failed that way)."""
    rows = []
    for number, name in enumerate(columns):
        scores = [result.parts[number].points for result in results]
        kinds: Counter[str] = Counter()
        students: dict[str, list[str]] = {}
        for result in results:
            part = result.parts[number]
            if part.points < part.max_points:
                kind = failure_kind(part.summary)
                kinds[kind] += 1
                students.setdefault(kind, []).append(result.student)
        rows.append(_row(name, max_points[number], scores, kinds, students))
    totals = [result.total for result in results]
    rows.append(_row("total", sum(max_points), totals, Counter(), {}))
    return rows


def _row(name, maximum, scores, kinds, students) -> dict:
    count = len(scores)
    return {
        "name": name,
        "max": maximum,
        "count": count,
        "mean": sum(scores) / count if count else 0.0,
        "full": sum(score >= maximum for score in scores),
        "some": sum(0 < score < maximum for score in scores),
        "none": sum(score <= 0 < maximum for score in scores),
        "histogram": _histogram(scores, maximum),
        "kinds": dict(kinds),
        "students": students,
    }


def _number(value: float) -> str:
    return f"{value:.3g}" if value != int(value) else f"{int(value)}"


def write(results, assignment, out: Path, columns: list[str]) -> None:
    """summary.csv, failures.csv and summary.html for ``results`` in ``out``."""
    max_points = [part.points for part in assignment.parts]
    rows = summarise(results, columns, max_points)
    bins = [f"{10 * i}-{10 * (i + 1)}%" for i in range(BINS)]
    with open(out / "summary.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["part", "max_points", "submissions", "mean", "mean_percent", "full", "some", "none",
                         *[f"scores {label}" for label in bins], *KIND_NAMES])  # fmt: skip
        for row in rows:
            percent = 100 * row["mean"] / row["max"] if row["max"] else 0.0
            writer.writerow([
                row["name"], _number(row["max"]), row["count"], f"{row['mean']:.3f}", f"{percent:.1f}", row["full"],
                row["some"], row["none"], *row["histogram"], *[row["kinds"].get(kind, 0) for kind in KIND_NAMES],
            ])  # fmt: skip
    with open(out / "failures.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["part", "kind", "count", "students"])
        for row in rows:
            for kind in KIND_NAMES:
                if kind in row["students"]:
                    writer.writerow([row["name"], kind, len(row["students"][kind]), ";".join(row["students"][kind])])
    (out / "summary.html").write_text(page(assignment, rows), encoding="utf-8")


def _svg_histogram(counts: list[int], label: str) -> str:
    """Ten bars, 0% to 100% of the points, as inline SVG with the count above each bar."""
    width, height, bar = 320, 120, 28
    top = max(counts) or 1
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 34}" role="img" '
             f'aria-label="{html.escape(label)}">']  # fmt: skip
    for index, count in enumerate(counts):
        size = round(height * count / top)
        x = 4 + index * (bar + 4)
        parts.append(f'<rect x="{x}" y="{height - size + 14}" width="{bar}" height="{size}" fill="#4a78b0"/>')
        middle = f'x="{x + bar / 2}" text-anchor="middle"'
        parts.append(f'<text {middle} y="{height - size + 11}" font-size="10">{count}</text>')
        parts.append(f'<text {middle} y="{height + 26}" font-size="9">{10 * index}</text>')
    parts.append(f'<text x="{width - 4}" y="{height + 34}" font-size="9" text-anchor="end">% of the points</text>')
    parts.append("</svg>")
    return "".join(parts)


def page(assignment, rows: list[dict]) -> str:
    """The summary as one HTML page with nothing outside it."""
    name = html.escape(f"{assignment.name}/{assignment.notebook}")
    total = rows[-1]
    lines = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>Class summary: {name}</title>",
        "<style>body{font-family:sans-serif;margin:2em;max-width:60em}table{border-collapse:collapse}"
        "td,th{border:1px solid #bbb;padding:.2em .5em;text-align:left;vertical-align:top}"
        ".students{font-size:90%;color:#333}</style>",
        "</head><body>",
        f"<h1>Class summary: {name}</h1>",
        f"<p>{total['count']} submissions; mean total {total['mean']:.2f} of {_number(total['max'])} "
        f"({100 * total['mean'] / total['max'] if total['max'] else 0:.1f}%); {total['full']} full marks, "
        f"{total['none']} with no points.</p>",
        "<h2>Totals</h2>",
        _svg_histogram(total["histogram"], "histogram of the total scores"),
        "<h2>Exercises</h2>",
        "<table><tr><th>part</th><th>points</th><th>mean</th><th>full / some / none</th><th>scores</th>"
        "<th>failures, by kind</th></tr>",
    ]
    for row in rows[:-1]:
        failures = "".join(
            f"<div><b>{html.escape(kind)}</b> ({len(row['students'][kind])}): "
            f"<span class=\"students\">{html.escape(', '.join(row['students'][kind]))}</span></div>"
            for kind in KIND_NAMES
            if kind in row["students"]
        ) or "none"
        lines.append(
            f"<tr><td>{html.escape(row['name'])}</td><td>{_number(row['max'])}</td><td>{row['mean']:.2f}</td>"
            f"<td>{row['full']} / {row['some']} / {row['none']}</td>"
            f"<td>{_svg_histogram(row['histogram'], 'histogram of ' + row['name'])}</td><td>{failures}</td></tr>"
        )
    lines += ["</table>", "</body></html>", ""]
    return "\n".join(lines)
