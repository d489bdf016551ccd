"""The few ops the graph machinery calls while it runs, lent to it by the ops when they are imported.

The layers point down: every op is a ``Function``, so the ops import autograd, and autograd cannot import the
ops. Yet a few of autograd's extras make a tensor or call an op at run time: zeros for a gradient that never
arrived, a gradient given as a list, a 0-d CPU tensor moved to the other inputs' device, a view's history read
again from its base, the tangents of ``gradcheck`` and ``autograd.functional``. Each of those ops carries
``@lend_to_autograd`` where it is defined, which records it here under its own name; autograd calls it as
``_lent_ops.zeros(...)``. This module is the one place where a layer is handed pieces of a higher one
(``tests/test_layers.py`` checks that every name below is lent by the op named beside it).

Every op is lent before any of it can run: importing any part of minitorch imports ``minitorch/__init__.py``
first, which imports the ops.
"""

from __future__ import annotations

from collections.abc import Callable

# name: where the op is defined -> who borrows it
tensor: Callable  # _creation.py -> _extensions.make_root_grads (a gradient given as a list or a number)
zeros: Callable  # _creation.py -> _extensions.zeros_for_missing
zeros_like: Callable  # _creation.py -> autograd.grad(materialize_grads=True), functional, gradcheck
randn_like: Callable  # _creation.py -> gradcheck.gradgradcheck (random cotangents)
to: Callable  # ops/conversion.py -> _extensions (a 0-d CPU tensor joins the others' device)
stack: Callable  # ops/shape.py -> functional.jacobian and hessian
refresh_view: Callable  # ops/copy_slices.py -> _extensions.refresh_if_stale

LENT = tuple(__annotations__)


def lend_to_autograd(op: Callable) -> Callable:
    """Decorator: record ``op`` here under its name for autograd to call at run time; ``op`` itself is unchanged."""
    if op.__name__ not in LENT:
        raise ValueError(f"autograd borrows only {', '.join(LENT)}, not {op.__name__}")
    globals()[op.__name__] = op
    return op
