"""``minitorch.utils``: helpers around the core, as in ``torch.utils``.

* ``minitorch.utils.data``: datasets, samplers and the ``DataLoader`` that feeds a training
  loop with mini-batches, loading them in parallel worker processes when asked.
* ``minitorch.utils.safetensors``: reading and writing safetensors files (``save_file``,
  ``load_file``), the code-free weights format of model hubs, as ``safetensors.torch`` does.
* ``minitorch.utils.checkpoint``: ``checkpoint`` and ``checkpoint_sequential``, which keep a block's
  inputs only and compute what its backward needs again (activation checkpointing).
* ``minitorch.utils.benchmark``: ``Timer``, ``Measurement`` and ``Compare``, to time code as
  ``torch.utils.benchmark`` does (warm-up, pinned threads, blocks, medians).
"""

from . import benchmark, checkpoint, data, safetensors

__all__ = ["benchmark", "checkpoint", "data", "safetensors"]
