"""The differentiable ops, one module per kind.

Each op is an ``Op`` subclass (see ``minitorch/autograd/function.py``) whose ``forward``
computes on raw arrays and whose ``backward`` is written with Tensor operations, next to
each other, with the derivative in the docstring. Each module also has plain functions
(``pointwise.mul(a, b)``) that check and prepare arguments and then call ``Op.apply``;
``Tensor`` methods and ``minitorch.mul`` are one-line calls to those.

* ``pointwise``: elementwise math and comparisons, with broadcasting and type promotion: a package,
  one file per family (``arithmetic``, ``powers``, ``exponential``, ``trigonometric``, ``activations``,
  ``special``, ``rounding``, ``selection``, ``comparison``)
* ``reduction``: sum, mean, max, var, norm, logsumexp, cumsum, median, quantile...
* ``sorting``: sort, argsort, topk, unique, searchsorted...
* ``linalg``: matmul and friends, einsum, decompositions (qr, svd, eigh, cholesky...)
* ``shape``: reshape, view, permute, cat, split...
* ``indexing``: ``x[...]``, gather, scatter, masked_fill...
* ``inplace``: ``add_`` and the other in-place ops, with version counting
* ``copy_slices``: writes through views rewrite the base's history (PyTorch's CopySlices)
* ``conversion``: dtype and device moves (``.to``)
* ``conv``: convolution as im2col plus one matrix product, and its transpose
* ``pooling``: max, average and adaptive pooling, unpooling
* ``recurrent``: the fused RNN, LSTM and GRU sequence ops
* ``nn_ops``: fused ops for layers (linear, softmax, the normalizations, embedding, cross-entropy...)
* ``ctc``: the CTC loss's alpha/beta recursions
* ``_util``: what the ops share (argument conversion, device checks, dtype promotion)
"""
