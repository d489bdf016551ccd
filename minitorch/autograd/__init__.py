"""Automatic differentiation: record ops as they run, then walk the record backwards.

* ``Function`` / ``once_differentiable`` (function.py): ops with a forward and a backward.
* ``backward`` (engine.py) and ``grad`` (_grad.py): start the walk; ``engine.py`` does it.
* ``Node``, ``AccumulateGrad`` (function.py): the nodes of the graph; ``_extensions.py``: PyTorch's extras.
* ``no_grad`` and friends (grad_mode.py): switch recording off.
* ``gradcheck`` / ``gradgradcheck`` (gradcheck.py): compare with finite differences.
* ``detect_anomaly`` (anomaly_mode.py): find the op that produced NaN.
* ``graph`` (graph.py): walk a graph and step a backward pass from the outside; saved-tensor hooks.
* ``forward_ad`` (forward_ad.py): forward mode, dual tensors whose tangents travel with the values.
* ``Variable`` (variable.py): the pre-0.4 wrapper, now a name for a tensor.
"""

from __future__ import annotations

from . import forward_ad, functional, graph
from ._grad import grad
from .anomaly_mode import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .engine import BackwardStep, backward, run_backward
from .function import AccumulateGrad, Function, Node, once_differentiable
from .grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .gradcheck import gradcheck, gradgradcheck
from .variable import Variable

__all__ = [
    "Function", "once_differentiable", "backward", "grad", "no_grad", "enable_grad", "set_grad_enabled",
    "inference_mode", "is_grad_enabled", "gradcheck", "gradgradcheck", "detect_anomaly", "set_detect_anomaly",
    "is_anomaly_enabled", "graph", "Node", "AccumulateGrad", "BackwardStep", "run_backward", "functional",
    "Variable", "forward_ad",
]
