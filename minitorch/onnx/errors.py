"""The exporter's errors, with PyTorch's names (``torch.onnx.errors``)."""

from __future__ import annotations


class OnnxExporterError(RuntimeError):
    """Errors raised by the ONNX exporter: the base class of all of them."""


class UnsupportedOperatorError(OnnxExporterError):
    """An op that ran in the forward pass has no ONNX mapping (the message names it and where it was called)."""


__all__ = ["OnnxExporterError", "UnsupportedOperatorError"]
