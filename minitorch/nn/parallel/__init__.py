"""``minitorch.nn.parallel``: data parallelism, as ``torch.nn.parallel``.

``DistributedDataParallel`` (distributed.py) trains one model in several processes, one per device,
with gradients averaged during backward.

``DataParallel`` wraps a model to run on several devices at once (CUDA GPUs, or CPU
replicas to watch it without GPUs); the four steps it takes are public too:
``scatter``/``scatter_kwargs``, ``replicate``, ``parallel_apply`` and ``gather``.
"""

from .data_parallel import DataParallel, data_parallel
from .distributed import DistributedDataParallel
from .parallel_apply import parallel_apply
from .replicate import replicate
from .scatter_gather import gather, scatter, scatter_kwargs

__all__ = [
    "DataParallel", "DistributedDataParallel", "data_parallel", "gather", "parallel_apply", "replicate", "scatter",
    "scatter_kwargs",
]
