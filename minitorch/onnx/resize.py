"""ONNX mapping of ``nn.functional.interpolate`` (``nn.Upsample``): one ``Resize``.

The trace records ``interpolate`` as one call (``_trace.py``): its inside is index arithmetic
and interpolation matrices for one input size, while ``Resize`` computes the same thing for any
size. PyTorch's coordinates, in ONNX's words:

* ``nearest``: the source pixel is ``floor(i / scale)``: ``asymmetric`` coordinates, ``floor``;
* ``nearest-exact``: ``floor((i + 0.5) / scale)``: ``half_pixel`` coordinates, rounding halves up;
* ``linear``/``bilinear``/``trilinear`` and ``bicubic``: ``pytorch_half_pixel`` coordinates, or
  ``align_corners``; bicubic with PyTorch's ``a = -0.75``.

With ``scale_factor`` the graph keeps the factor (any input size); with ``size`` (or
``recompute_scale_factor=True``) it keeps the output size, the batch and channels read at run
time. ``area`` (an adaptive average pooling) and ``antialias=True`` are refused.
"""

from __future__ import annotations

import inspect

import numpy as np

from ..nn.functional import vision
from ._registry import maps
from .errors import UnsupportedOperatorError

_COORDINATES = {"nearest": ("nearest", "asymmetric"), "nearest-exact": ("nearest", "half_pixel"),
                "linear": ("linear", None), "bilinear": ("linear", None), "trilinear": ("linear", None),
                "bicubic": ("cubic", None)}


def _arguments(args, kwargs) -> dict:
    bound = inspect.signature(vision.interpolate).bind(*args, **kwargs)
    bound.apply_defaults()
    return bound.arguments


@maps("interpolate", size_aware=True)
def interpolate(graph, call):
    arguments = _arguments(call.args, call.kwargs)
    for which in ("other", "third"):  # the same factor at other sizes: else the graph would keep this one's
        other = _arguments(getattr(call, f"{which}_args", call.args), getattr(call, f"{which}_kwargs", call.kwargs))
        if other["scale_factor"] != arguments["scale_factor"]:
            raise UnsupportedOperatorError(
                f"Exporting 'minitorch::interpolate' with a scale_factor that changes with the input "
                f"({arguments['scale_factor']} and {other['scale_factor']}) is not supported (called at {call.where})"
            )
    mode = arguments["mode"]
    if mode not in _COORDINATES or arguments["antialias"]:
        raise UnsupportedOperatorError(
            f"Exporting 'minitorch::interpolate' with mode='{mode}'"
            f"{' and antialias=True' if arguments['antialias'] else ''} to ONNX is not supported (called at "
            f"{call.where}); nearest, nearest-exact, linear, bilinear, trilinear and bicubic map to ONNX's Resize"
        )
    onnx_mode, coordinates = _COORDINATES[mode]
    if coordinates is None:
        coordinates = "align_corners" if arguments["align_corners"] else "pytorch_half_pixel"
    x = graph.input(call, 0)
    rank = len(call.args[0].shape)
    scale_factor = arguments["scale_factor"]
    if scale_factor is not None and not arguments["recompute_scale_factor"]:
        factors = list(scale_factor) if isinstance(scale_factor, (tuple, list)) else [scale_factor] * (rank - 2)
        scales, sizes = graph.constant(np.asarray([1.0, 1.0] + [float(f) for f in factors], np.float32)), None
    else:
        scales, sizes = None, graph.shape_of(call.outputs[0])
    attributes = dict(mode=onnx_mode, coordinate_transformation_mode=coordinates)
    if onnx_mode == "nearest":
        attributes["nearest_mode"] = "floor" if mode == "nearest" else "round_prefer_ceil"
    if onnx_mode == "cubic":
        attributes["cubic_coeff_a"] = -0.75
    return graph.node("Resize", [x, "", scales, sizes], **attributes)
