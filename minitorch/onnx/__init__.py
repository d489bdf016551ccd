"""Export a model to ONNX (``torch.onnx``): ``minitorch.onnx.export(model, args, "model.onnx")``.

The exporter records one forward pass through the same ``Function.apply`` that records the
graph for backward (``_trace.py``), maps each recorded op to ONNX operators (one module per
op family: ``pointwise.py``, ``reduction.py``, ``shape.py``, ``indexing.py``, ``linalg.py``,
``nn.py``, ``conv.py``, ``pooling.py``, ``recurrent.py``, ``resize.py``), and writes the model with the
``onnx`` package. ONNX Runtime (``pip install onnxruntime``, the ``deploy`` extra) runs it.

    >>> import minitorch
    >>> model = minitorch.nn.Linear(3, 2).eval()
    >>> proto = minitorch.onnx.export(model, (minitorch.randn(1, 3),))   # f=None: the ModelProto
    >>> [node.op_type for node in proto.graph.node]
    ['Gemm']

The ``onnx`` package is imported when a module of this package first needs it: ``import
minitorch`` works without it.
"""

from __future__ import annotations

# The mapping modules (conv, indexing, ...) register themselves in the table of ``_registry``.
from . import conv, conversion, errors, indexing, linalg, nn, pointwise, pooling, recurrent, reduction, resize, shape  # noqa: E501, F401
from ._export import TrainingMode, export, is_in_onnx_export
from ._trace import TracerWarning
from .errors import OnnxExporterError, UnsupportedOperatorError

__all__ = [
    "export", "TrainingMode", "is_in_onnx_export", "errors", "OnnxExporterError", "UnsupportedOperatorError",
    "TracerWarning",
]
