"""How many threads the CPU's array library uses: ``get_num_threads`` and ``set_num_threads``.

minitorch computes on NumPy, whose matrix products run in a BLAS library (OpenBLAS, MKL) with
a pool of threads; elementwise NumPy runs on one thread. These two functions read and set the
size of that pool through ``threadpoolctl``, as ``torch.get_num_threads`` / ``torch.set_num_threads``
do for PyTorch's intra-op pool. Benchmarks compare libraries at one thread each.

    >>> import minitorch
    >>> before = minitorch.get_num_threads()
    >>> minitorch.set_num_threads(1)
    >>> minitorch.get_num_threads()
    1
    >>> minitorch.set_num_threads(before)
"""

from __future__ import annotations

import os

__all__ = ["get_num_threads", "set_num_threads"]


def get_num_threads() -> int:
    """The number of threads the BLAS library uses for matrix products (the CPU count without one)."""
    from threadpoolctl import threadpool_info  # a runtime dependency, loaded when first asked

    pools = [pool for pool in threadpool_info() if pool.get("user_api") == "blas"]
    return pools[0]["num_threads"] if pools else (os.cpu_count() or 1)


def set_num_threads(num: int) -> None:
    """Use ``num`` threads for matrix products from now on (PyTorch's message for a number below 1)."""
    if not isinstance(num, int) or isinstance(num, bool):
        raise RuntimeError(f"set_num_threads expects an int, but got {type(num).__name__}")
    if num <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    from threadpoolctl import threadpool_limits  # a runtime dependency, loaded when first asked

    threadpool_limits(limits=num, user_api="blas")
