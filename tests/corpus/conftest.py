"""The corpus's pass rate, printed at the end of a run that includes it."""

from __future__ import annotations


def pytest_terminal_summary(terminalreporter):
    outcomes = {}
    for outcome in ("passed", "failed", "xfailed", "xpassed", "skipped"):
        for report in terminalreporter.stats.get(outcome, []):
            if "test_prints_what_pytorch_prints" in report.nodeid and report.when in ("call", "setup"):
                outcomes[report.nodeid] = outcome
    if not outcomes:
        return
    total = len(outcomes)
    counts = {outcome: list(outcomes.values()).count(outcome) for outcome in set(outcomes.values())}
    passed = counts.get("passed", 0)
    terminalreporter.write_sep("-", "minitorch corpus")
    terminalreporter.write_line(
        f"corpus: {passed}/{total} programs print what PyTorch prints ({100 * passed / total:.0f}%); "
        f"{counts.get('xfailed', 0)} expected failures (missing APIs, tests/corpus/test_corpus.py MISSING), "
        f"{counts.get('failed', 0) + counts.get('xpassed', 0)} failures, {counts.get('skipped', 0)} skipped"
    )
