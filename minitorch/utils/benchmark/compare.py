"""``Compare``: many measurements as one table, rows by sub-label, columns by description.

    [------------- label -------------]
                  |  description 1  |  description 2
    1 threads: ---------------------------------------
          row A   |       12.3      |       45.6
    Times are in microseconds (us).

Measurements of the same task (same statement, labels and thread count) are merged first, so
replicates count as one cell. ``trim_significant_figures()`` prints only the digits each
measurement supports; ``colorize()`` marks the best cell of each column (or row) green and the slow
ones red; ``highlight_warnings()`` flags cells whose spread is large. The layout is
``torch.utils.benchmark.Compare``'s, character for character.
"""

from __future__ import annotations

import collections
import enum
import math

from .measurement import Measurement, _log10_float32, select_unit, trim_sigfig, unit_to_english

__all__ = ["Colorize", "Compare"]

BEST, GOOD, BAD, VERY_BAD = "\033[92m", "\033[34m", "\033[2m\033[91m", "\033[31m"
BOLD, TERMINATE = "\033[1m", "\033[0m"


class Colorize(enum.Enum):
    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


def _ordered_unique(items) -> list:
    return list(dict.fromkeys(items))


class _Column:
    """One column's number format: as many integer digits as its largest cell, decimals as trusted."""

    def __init__(self, grouped_results, time_scale: float, trim: bool, highlight_warnings: bool) -> None:
        self._grouped_results = grouped_results
        flat = [result for group in grouped_results for result in group]
        self._trim = trim
        self._highlight_warnings = highlight_warnings and any(r.has_warnings for r in flat if r)
        leading = [math.ceil(_log10_float32(r.median / time_scale)) if r else None for r in flat]
        unit_digits = max(digits for digits in leading if digits is not None)
        decimals = min(
            max(result.significant_figures - digits, 0)
            for digits, result in zip(leading, flat) if result is not None and digits is not None
        ) if trim else 1
        length = unit_digits + decimals + (1 if decimals else 0)
        self._template = f"{{:>{length}.{decimals}f}}{{:>{7 if self._highlight_warnings else 0}}}"

    def get_results_for(self, group: int):
        return self._grouped_results[group]

    def num_to_str(self, value: float | None, figures: int, spread: float | None) -> str:
        if value is None:
            return " " * len(self.num_to_str(1, figures, None))
        if self._trim:
            value = trim_sigfig(value, figures)
        flag = f" (! {spread * 100:.0f}%)" if self._highlight_warnings and spread is not None else ""
        return self._template.format(value, flag)


class _Row:
    def __init__(self, results, row_group, render_env, env_str_len, time_scale, colorize, num_threads=None):
        self._results, self._row_group = results, row_group
        self._render_env, self._env_str_len = render_env, env_str_len
        self._time_scale, self._colorize, self._num_threads = time_scale, colorize, num_threads
        self._columns: tuple = ()

    def as_column_strings(self) -> list[str]:
        present = [result for result in self._results if result is not None]
        env = (f"({present[0].env})" if self._render_env else "").ljust(self._env_str_len + 4)
        output = ["  " + env + present[0].as_row_name]
        for result, column in zip(self._results, self._columns):
            if result is None:
                output.append(column.num_to_str(None, 1, None))
            else:
                spread = result.iqr / result.median if result.has_warnings else None
                output.append(column.num_to_str(result.median / self._time_scale, result.significant_figures, spread))
        return output

    @staticmethod
    def color_segment(segment: str, value: float, best: float) -> str:
        if value <= best * 1.01 or value <= best + 100e-9:
            return BEST + BOLD + segment + TERMINATE * 2
        if value <= best * 1.1:
            return GOOD + BOLD + segment + TERMINATE * 2
        if value >= best * 5:
            return VERY_BAD + BOLD + segment + TERMINATE * 2
        if value >= best * 2:
            return BAD + segment + TERMINATE * 2
        return segment

    def row_separator(self, width: int) -> list[str]:
        return [f"{self._num_threads} threads: ".ljust(width, "-")] if self._num_threads is not None else []

    def finalize_column_strings(self, strings: list[str], widths: list[int]) -> list[str]:
        best = [-1 for _ in strings]
        if self._colorize == Colorize.ROWWISE:
            best = [min(r.median for r in self._results if r is not None) for _ in strings]
        elif self._colorize == Colorize.COLUMNWISE:
            best = [
                min((r.median for r in column.get_results_for(self._row_group) if r is not None), default=None)
                for column in self._columns
            ]
        contents = [strings[0].ljust(widths[0])]
        for text, width, result, best_value in zip(strings[1:], widths[1:], self._results, best):
            text = text.center(width)
            if self._colorize != Colorize.NONE and result is not None and best_value is not None:
                text = self.color_segment(text, result.median, best_value)
            contents.append(text)
        return contents


class _Table:
    """The measurements of one label, laid out."""

    def __init__(self, results: list[Measurement], colorize: Colorize, trim: bool, highlight_warnings: bool):
        self.results, self.label = results, results[0].label
        self._colorize, self._trim, self._highlight_warnings = colorize, trim, highlight_warnings
        self.time_unit, self.time_scale = select_unit(min(r.median for r in results))
        self.row_keys = _ordered_unique((r.num_threads, r.env, r.as_row_name) for r in results)
        self.row_keys.sort(key=lambda key: key[:2])  # by threads and environment, statements in their order
        self.column_keys = _ordered_unique(r.description for r in results)
        self.rows = self._rows_and_columns()

    def _rows_and_columns(self) -> tuple:
        cells = [[None for _ in self.column_keys] for _ in self.row_keys]
        row_of = {key: i for i, key in enumerate(self.row_keys)}
        column_of = {key: j for j, key in enumerate(self.column_keys)}
        for result in self.results:
            cells[row_of[(result.num_threads, result.env, result.as_row_name)]][column_of[result.description]] = result
        envs = {r.env for r in self.results}
        render_env = len(envs) > 1
        env_str_len = max(len(env) for env in envs) if render_env else 0
        rows, groups = [], []
        prior_threads, prior_env, group = -1, "", -1
        for (threads, env, _), row in zip(self.row_keys, cells):
            new_group = threads != prior_threads
            if new_group:
                prior_threads, prior_env, group = threads, "", group + 1
                groups.append([])
            rows.append(_Row(row, group, render_env and env != prior_env, env_str_len, self.time_scale,
                             self._colorize, threads if new_group else None))
            groups[-1].append(row)
            prior_env = env
        columns = tuple(
            _Column([tuple(row[j] for row in g) for g in groups], self.time_scale, self._trim, self._highlight_warnings)
            for j in range(len(self.column_keys))
        )
        for row in rows:
            row._columns = columns
        return tuple(rows)

    def render(self) -> str:
        strings = [[""] + self.column_keys] + [row.as_column_strings() for row in self.rows]
        count = max(len(row) for row in strings)
        for row in strings:
            row.extend("" for _ in range(count - len(row)))
        widths = [max(len(text) for text in column) for column in zip(*strings)]
        lines = ["  |  ".join(text.center(width) for text, width in zip(strings[0], widths))]
        width = len(lines[0])
        for row_strings, row in zip(strings[1:], self.rows):
            lines += row.row_separator(width)
            lines.append("  |  ".join(row.finalize_column_strings(row_strings, widths)))
        warned = self._highlight_warnings and any(r.has_warnings for r in self.results)
        note = "(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n" if warned else ""
        return (f"[{(' ' + (self.label or '') + ' ').center(width - 2, '-')}]\n" + "\n".join(lines)
                + f"\n\nTimes are in {unit_to_english(self.time_unit)}s ({self.time_unit}).\n{note}")


class Compare:
    """A table of many ``Measurement``s (``Compare(results).print()``), grouped by their labels."""

    def __init__(self, results: list[Measurement]) -> None:
        self._results: list[Measurement] = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def __str__(self) -> str:
        return "\n".join(self._render())

    def extend_results(self, results) -> None:
        for result in results:
            if not isinstance(result, Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(result)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self) -> None:
        self._trim_significant_figures = True

    def colorize(self, rowwise: bool = False) -> None:
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self) -> None:
        self._highlight_warnings = True

    def print(self) -> None:
        print(str(self))

    def _render(self) -> list[str]:
        by_label = collections.defaultdict(list)
        for result in Measurement.merge(self._results):
            by_label[result.label].append(result)
        return [_Table(group, self._colorize, self._trim_significant_figures, self._highlight_warnings).render()
                for group in by_label.values()]
