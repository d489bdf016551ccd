"""``minitorch.utils.data``: feeding a model with mini-batches, as ``torch.utils.data`` does.

* ``dataset.py``: ``Dataset`` (indexable samples), ``IterableDataset`` (a stream), and ways
  to combine them (``TensorDataset``, ``StackDataset``, ``ConcatDataset``, ``ChainDataset``,
  ``Subset``, ``random_split``).
* ``sampler.py``: the order of the indices (``SequentialSampler``, ``RandomSampler``,
  ``SubsetRandomSampler``, ``WeightedRandomSampler``) and their grouping into batches
  (``BatchSampler``).
* ``collate.py``: ``default_collate`` stacks a list of samples into a batch of tensors.
* ``distributed.py``: ``DistributedSampler``, each rank's share of the dataset in a distributed job.
* ``dataloader.py``: ``DataLoader`` ties them together, in the main process or in parallel
  worker processes (``_worker.py`` is the workers' side).

Worker processes and notebooks: with ``num_workers > 0`` every worker needs the dataset.
Under the ``fork`` start method (Linux's default before Python 3.14) a worker is a copy of
the main process, so a dataset class defined in a notebook cell just works. Under
``spawn`` (macOS, Windows) and ``forkserver`` (Linux from Python 3.14) a worker is a new
Python process that *imports* the dataset's class by its module name, and a class defined
in a notebook (module ``__main__``) cannot be imported: the ``DataLoader`` then raises a
``RuntimeError`` saying so before it starts any worker. Define the dataset in a ``.py`` file
next to the notebook and import it (``from my_datasets import Digits``), or pass
``multiprocessing_context="fork"`` on Linux.

Example::

    >>> import minitorch
    >>> from minitorch.utils.data import DataLoader, TensorDataset
    >>> dataset = TensorDataset(minitorch.arange(10.0).reshape(5, 2), minitorch.tensor([0, 1, 0, 1, 1]))
    >>> for features, labels in DataLoader(dataset, batch_size=2):
    ...     print(features.shape, labels.tolist())
    minitorch.Size([2, 2]) [0, 1]
    minitorch.Size([2, 2]) [0, 1]
    minitorch.Size([1, 2]) [1]
"""

from ._worker import WorkerInfo, get_worker_info
from .collate import default_collate, default_convert
from .dataloader import DataLoader
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .distributed import DistributedSampler
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "BatchSampler",
    "ChainDataset",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "DistributedSampler",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "StackDataset",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "WorkerInfo",
    "default_collate",
    "default_convert",
    "get_worker_info",
    "random_split",
]
