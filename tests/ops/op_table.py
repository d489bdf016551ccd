"""The declarative op table: one ``OpInfo`` per op (or per interesting variant of an op).

An entry says how to call the op, with one function that works unchanged on minitorch
and on PyTorch (``fn(lib, *inputs)`` where ``lib`` is ``minitorch`` or ``torch``), and
which inputs to feed it. ``test_op_table.py`` turns every entry into the same checks:

* forward and backward parity with PyTorch in float64 (rtol 1e-7) and float32 (rtol 1e-5),
  also on non-contiguous copies of the inputs;
* first-order ``gradcheck`` and, unless the op is once-differentiable, ``gradgradcheck``;
* hypothesis-generated broadcastable shapes for elementwise ops (0-d, size-0, size-1 dims).

Entries live in ``table_<family>.py`` files next to this one (``table_pointwise.py``...);
each defines ``OPS = [OpInfo(...), ...]``.

Writing an entry::

    OpInfo("mul", lambda lib, a, b: a * b,
           samples=[S((3, 4), (3, 4)), S((2, 3, 1), (3, 4)), S((), (2,))],
           elementwise=2)

``S(*shapes)`` is a sample of float inputs with those shapes; use ``Arg`` for anything
else: integer index tensors, bool masks, positive-only values, inputs that need no grad.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np


@dataclasses.dataclass(frozen=True)
class Arg:
    """One tensor input of a sample.

    ``kind``: "float" (random values in [low, high)), "int" (integers in [low, high),
    int64), "bool" (random mask), or "index" (int64 in [0, high), for gather/index_select).
    ``grad``: whether the checks differentiate with respect to it (floats only).
    ``values``: fixed values (a nested list) instead of random ones.
    ``away_from``: keep values at least ``margin`` away from these points (kinks of abs,
    relu, clamp, floor...), so finite differences stay valid.
    """

    shape: tuple = ()
    kind: str = "float"
    low: float = -2.0
    high: float = 2.0
    grad: bool = True
    values: object = None
    away_from: tuple = ()
    margin: float = 1e-2
    distinct: bool = False  # no ties (max, min, sort-like ops: gradient at ties is not unique)

    def make(self, rng: np.random.Generator) -> np.ndarray:
        if self.values is not None:
            array = np.array(self.values)
            return array.astype(np.float64) if self.kind == "float" else array
        if self.kind == "float":
            array = rng.uniform(self.low, self.high, size=self.shape)
            if self.distinct and array.size:
                # a random permutation of evenly spaced levels, jittered: distinct values, no ties
                levels = rng.permutation(array.size).reshape(self.shape) + rng.uniform(0.1, 0.9, self.shape)
                array = levels / max(array.size, 1) * (self.high - self.low) + self.low
            for point in self.away_from:
                too_close = np.abs(array - point) < self.margin
                array = np.where(too_close, point + np.where(array >= point, 1, -1) * (self.margin + 0.05), array)
            return np.asarray(array, dtype=np.float64)
        if self.kind in ("int", "index"):
            low = 0 if self.kind == "index" else int(self.low)
            return np.asarray(rng.integers(low, int(self.high), size=self.shape), dtype=np.int64)
        if self.kind == "bool":
            return np.asarray(rng.random(self.shape) < 0.5)
        raise ValueError(f"unknown Arg kind {self.kind}")


def S(*shapes, **options) -> tuple:
    """A sample of float inputs, one per shape; ``options`` apply to every argument."""
    return tuple(Arg(tuple(shape), **options) for shape in shapes)


@dataclasses.dataclass
class OpInfo:
    """One op of the table; see the module docstring."""

    name: str
    fn: Callable
    samples: list
    elementwise: int = 0  # >0: this many inputs broadcast together; hypothesis then invents shapes
    gradcheck: bool = True
    gradgradcheck: bool = True  # False for once-differentiable ops
    float32: bool = True
    noncontiguous: bool = True
    rtol: float = 1e-7
    atol: float = 1e-10
    rtol32: float = 1e-5
    atol32: float = 1e-6
    domain: tuple = (-2.0, 2.0)  # value range hypothesis uses for elementwise ops
    away_from: tuple = ()  # kinks to avoid (also used by hypothesis)
    skip_torch: str = ""  # a reason, if PyTorch cannot serve as the oracle for this entry
    torch_fn: Callable | None = None  # when PyTorch's spelling differs (rare); else ``fn``

    def oracle(self):
        return self.torch_fn or self.fn


def all_ops() -> list:
    """Every entry from every ``table_*.py`` module next to this file."""
    import importlib
    import pkgutil
    from pathlib import Path

    entries = []
    folder = Path(__file__).parent
    for module in sorted(pkgutil.iter_modules([str(folder)]), key=lambda m: m.name):
        if module.name.startswith("table_"):
            entries.extend(importlib.import_module(f"tests.ops.{module.name}").OPS)
    return entries
