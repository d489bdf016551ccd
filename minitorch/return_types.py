"""Named tuples returned by ops with several results, like ``torch.return_types``.

``values, indices = x.max(dim=1)`` unpacks like a tuple; ``x.max(dim=1).indices`` reads a
field by name. Each type prints as PyTorch's does.
"""

from __future__ import annotations

import collections


def _named_result(name: str, fields: tuple):
    """A named tuple type called ``name`` that prints as ``minitorch.return_types.name(field=..., ...)``."""
    base = collections.namedtuple(name, fields)

    def __repr__(self) -> str:
        parts = ",\n".join(f"{field}={value!r}" for field, value in zip(self._fields, self))
        return f"minitorch.return_types.{name}(\n{parts})"

    return type(name, (base,), {"__slots__": (), "__repr__": __repr__, "__module__": __name__})


max = _named_result("max", ("values", "indices"))  # noqa: A001 - PyTorch's name
min = _named_result("min", ("values", "indices"))  # noqa: A001 - PyTorch's name
sort = _named_result("sort", ("values", "indices"))
topk = _named_result("topk", ("values", "indices"))
slogdet = _named_result("slogdet", ("sign", "logabsdet"))
linalg_slogdet = _named_result("linalg_slogdet", ("sign", "logabsdet"))
cummax = _named_result("cummax", ("values", "indices"))
cummin = _named_result("cummin", ("values", "indices"))
median = _named_result("median", ("values", "indices"))
nanmedian = _named_result("nanmedian", ("values", "indices"))
mode = _named_result("mode", ("values", "indices"))
kthvalue = _named_result("kthvalue", ("values", "indices"))
qr = _named_result("qr", ("Q", "R"))
linalg_qr = _named_result("linalg_qr", ("Q", "R"))
svd = _named_result("svd", ("U", "S", "V"))
linalg_svd = _named_result("linalg_svd", ("U", "S", "Vh"))
linalg_eigh = _named_result("linalg_eigh", ("eigenvalues", "eigenvectors"))
linalg_lstsq = _named_result("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
frexp = _named_result("frexp", ("mantissa", "exponent"))
aminmax = _named_result("aminmax", ("min", "max"))
histogram = _named_result("histogram", ("hist", "bin_edges"))
