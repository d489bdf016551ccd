"""The corpus's pass rate and its slowest programs, printed at the end of a run that includes it."""

from __future__ import annotations

from tests.corpus.test_corpus import CORPUS_TIMES


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
    times = terminalreporter.config.stash.get(CORPUS_TIMES, None)
    if times:
        for library, seconds in times.items():
            slowest = sorted(seconds.items(), key=lambda item: -item[1])[:3]
            terminalreporter.write_line(
                f"corpus on {library}: {sum(seconds.values()):.0f} s of program time in all; slowest "
                + ", ".join(f"{name} {value:.1f} s" for name, value in slowest)
            )
