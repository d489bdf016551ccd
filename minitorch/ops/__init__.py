"""The differentiable ops, one module per kind.

Each op is an ``Op`` subclass (see ``minitorch/autograd/function.py``) whose ``forward``
computes on raw arrays and whose ``backward`` is written with Tensor operations, next to
each other, with the derivative in the docstring. Each module also has plain functions
(``pointwise.mul(a, b)``) that check and prepare arguments and then call ``Op.apply``;
``Tensor`` methods and ``minitorch.mul`` are one-line calls to those.

* ``pointwise``: elementwise math and comparisons, with broadcasting and type promotion
* ``reduction``: sum, mean, max, var, norm, logsumexp, cumsum...
* ``linalg``: matmul and friends, einsum
* ``shape``: reshape, view, permute, cat, split...
* ``indexing``: ``x[...]``, gather, scatter, masked_fill...
* ``inplace``: ``add_`` and the other in-place ops, with version counting
* ``conversion``: dtype and device moves (``.to``)
"""
