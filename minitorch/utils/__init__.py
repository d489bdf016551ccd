"""``minitorch.utils``: helpers around the core, as in ``torch.utils``.

* ``minitorch.utils.data``: datasets, samplers and the ``DataLoader`` that feeds a training
  loop with mini-batches, loading them in parallel worker processes when asked.
"""

from . import data

__all__ = ["data"]
