"""Chapter 2's pieces of the learner's library: ``Function.apply`` with its ``Context``, ``AccumulateGrad``, and
the engine's ``backward`` (dependency counts and a ready queue), all on the chapter's small ``Tensor``.

The chapter's checks (``ch02.record_program`` and ``ch02.engine_program``) run programs on that small tensor and
compare the graph recorded, the gradients and the order of node calls with minitorch's (and, in the tests,
PyTorch's). The fallbacks are minitorch's own classes and function, which do the same work on minitorch's
tensor: ``minitorch.autograd.Function``, the node ``Function.apply`` makes as ``ctx``, ``AccumulateGrad`` and
``minitorch.autograd.backward``. No later chapter calls these pieces on its own tensors; ``my_library`` shows
whether they are the learner's.
"""

from __future__ import annotations

from grading.library import piece

# the cells that rebuild a piece from a saved chapter 2: value_class defines run_program, which the checks use
RECORD, ENGINE = {"ch02.record_program": "record_program"}, {"ch02.engine_program": "engine_program"}


def _minitorch(path: str):
    """minitorch's ``path`` ("autograd.Function"), looked up only when a fallback is needed."""

    def fallback():
        import minitorch

        found = minitorch
        for part in path.split("."):
            found = getattr(found, part)
        return found

    return fallback


piece("Context", chapter="02_autograd", cells=("value_class", "function_apply"), checks=RECORD,
      fallback=_minitorch("autograd.function.BackwardNode"))  # fmt: skip
piece("AccumulateGrad", chapter="02_autograd", cells=("value_class", "function_apply"), checks=RECORD,
      fallback=_minitorch("autograd.AccumulateGrad"))  # fmt: skip
piece("Function", chapter="02_autograd", cells=("value_class", "function_apply"), checks=RECORD,
      fallback=_minitorch("autograd.Function"))  # fmt: skip
piece("backward", chapter="02_autograd", cells=("value_class", "function_apply", "engine"), checks=ENGINE,
      fallback=_minitorch("autograd.backward"))  # fmt: skip
