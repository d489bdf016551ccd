"""The runner's progress file, read from outside while the sandbox runs, and checked line by line.

The runner (:mod:`grading._runner`) writes one JSON line when a step begins and one when it ends::

    {"begin": "setup"}  {"end": "setup"}
    {"begin": "cell", "cell": 3}  {"end": "cell", "cell": 3, "status": "error", "error": "ValueError", "line": 2}
    {"begin": "inputs"}  {"end": "inputs"}
    {"begin": "case", "part": 0, "case": 1}  {"end": "case", "part": 0, "case": 1, "status": "ok"}
    {"end": "part", "part": 0}
    {"end": "run"}

in an order fixed by the plan: setup, every planned cell in turn, the wait for the cases' inputs
(which the supervisor hands over only then, when there are parts), then for every planned part its
cases in increasing order (some may be left out) and its end, then the end of the run. The
submission shares the runner's process and can write to the file too, so :class:`ProgressReader`
accepts an event only when it has exactly the fields above, with integers in range, and is the one
the plan allows next. The first event that is not (a forged line, a line cut in two, a number out of
range, a FIFO in place of the file) marks the whole stream *malformed*: the supervisor stops the
sandbox and the submission scores 0 with "malformed output". A forged event the plan does allow next
says nothing the runner would not have said.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from grading.untrusted import MalformedOutput, bounded_int, load_json, short_text

CELL_STATUSES = ("ok", "error", "timeout", "exit")
CASE_STATUSES = (
    "ok", "error", "timeout", "exit", "not_implemented", "none", "unsupported", "too_large", "withheld",
)  # fmt: skip
MAX_LINE = 4096


class EventSequence:
    """The order the runner writes its events in, for one plan; ``accept`` says whether one fits next."""

    def __init__(self, plan: dict):
        self.cells = [index for index, _ in plan["cells"]]
        self.parts = [(part["number"], len(part["cases"])) for part in plan["parts"]]
        self.phase = "start"  # start, setup, cells, cell, inputs, parts, case, done
        self.cell_position = 0
        self.part_position = 0
        self.last_case = -1
        self.step: tuple | None = None  # the step that has begun and not ended

    def accept(self, event) -> bool:
        if not isinstance(event, dict):
            return False
        handler = {
            "start": self._start,
            "setup": self._setup,
            "cells": self._cells,
            "cell": self._in_cell,
            "inputs": self._inputs,
            "parts": self._parts,
            "case": self._in_case,
        }.get(self.phase)
        return handler is not None and handler(event)

    def _start(self, event) -> bool:
        if event != {"begin": "setup"}:
            return False
        self.phase, self.step = "setup", ("setup",)
        return True

    def _setup(self, event) -> bool:
        if event != {"end": "setup"}:
            return False
        self.phase, self.step = "cells", None
        return True

    def _cells(self, event) -> bool:
        if self.cell_position < len(self.cells):
            if event != {"begin": "cell", "cell": self.cells[self.cell_position]}:
                return False
            self.phase, self.step = "cell", ("cell", self.cells[self.cell_position])
            return True
        if self.parts:
            if event != {"begin": "inputs"}:
                return False
            self.phase, self.step = "inputs", ("inputs",)
            return True
        self.phase = "parts"
        return self._parts(event)

    def _inputs(self, event) -> bool:
        if event != {"end": "inputs"}:
            return False
        self.phase, self.step = "parts", None
        return True

    def _in_cell(self, event) -> bool:
        index = self.cells[self.cell_position]
        if set(event) != {"end", "cell", "status", "error", "line"} or event["end"] != "cell":
            return False
        if event["cell"] != index or type(event["cell"]) is not int or event["status"] not in CELL_STATUSES:
            return False
        if not (event["error"] is None or short_text(event["error"])):
            return False
        if not (event["line"] is None or bounded_int(event["line"], 0, 10**6)):
            return False
        self.cell_position += 1
        self.phase, self.step = "cells", None
        return True

    def _parts(self, event) -> bool:
        if self.part_position >= len(self.parts):
            if event != {"end": "run"}:
                return False
            self.phase = "done"
            return True
        number, count = self.parts[self.part_position]
        if event == {"end": "part", "part": number} and type(event["part"]) is int:
            self.part_position += 1
            self.last_case = -1
            return True
        if set(event) != {"begin", "part", "case"} or event["begin"] != "case" or event["part"] != number:
            return False
        if type(event["part"]) is not int or not bounded_int(event["case"], self.last_case + 1, count - 1):
            return False
        self.phase, self.step = "case", ("case", number, event["case"])
        return True

    def _in_case(self, event) -> bool:
        _, number, case = self.step
        if set(event) != {"end", "part", "case", "status"} or event["end"] != "case":
            return False
        if event["part"] != number or event["case"] != case or type(event["case"]) is not int:
            return False
        if type(event["part"]) is not int or event["status"] not in CASE_STATUSES:
            return False
        self.last_case = case
        self.phase, self.step = "parts", None
        return True


class ProgressReader:
    """Reads ``progress.jsonl`` incrementally (a bounded total), keeping the events the plan allows."""

    LIMIT = 4 * 1024 * 1024

    def __init__(self, path: Path, plan: dict):
        self.path = path
        self.sequence = EventSequence(plan)
        self.events: list[dict] = []
        self.offset = 0
        self.partial = b""
        self.malformed: str | None = None

    def _fail(self, reason: str) -> None:
        if self.malformed is None:
            self.malformed = reason

    def read(self) -> None:
        if self.malformed is not None:
            return
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        try:
            descriptor = os.open(self.path, flags)
        except FileNotFoundError:
            return  # not written yet
        except OSError as error:
            self._fail(f"the progress file cannot be opened ({error.strerror})")
            return
        try:
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                self._fail("the progress file is not a regular file")
                return
            os.lseek(descriptor, self.offset, os.SEEK_SET)
            data = os.read(descriptor, self.LIMIT + 1 - self.offset) if self.offset <= self.LIMIT else b""
        except OSError as error:
            self._fail(f"the progress file cannot be read ({error.strerror})")
            return
        finally:
            os.close(descriptor)
        self.offset += len(data)
        if self.offset > self.LIMIT:
            self._fail(f"the progress file is larger than {self.LIMIT} bytes")
            return
        lines = (self.partial + data).split(b"\n")
        self.partial = lines.pop()
        for line in lines:
            if len(line) > MAX_LINE:
                self._fail("a progress line is too long")
                return
            try:
                event = load_json(line)
            except MalformedOutput as error:
                self._fail(f"a progress line is not valid: {error}")
                return
            if not self.sequence.accept(event):
                self._fail("a progress line that the runner did not write")
                return
            self.events.append(event)
        if len(self.partial) > MAX_LINE:
            self._fail("a progress line is too long")

    def current(self) -> tuple | None:
        """The step that has begun and not ended: ("setup",), ("cell", i), ("inputs",), ("case", part, case)
        or None."""
        self.read()
        return self.sequence.step

    def finish(self) -> None:
        """The last read, after the sandbox ended: a line left without its newline is malformed."""
        self.read()
        if self.partial and self.malformed is None:
            self._fail("the progress file ends in the middle of a line")

    @property
    def finished(self) -> bool:
        return self.sequence.phase == "done"

    def ended(self, kind: str) -> list[dict]:
        return [event for event in self.events if event.get("end") == kind]
