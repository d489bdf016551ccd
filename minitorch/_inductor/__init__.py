"""The default compiler backend: graph passes (``passes.py``), pointwise fusion into generated NumPy
kernels (``lowering.py``, ``fusion.py``), then AOTAutograd's generated forward and backward (``compile_fx.py``)."""
