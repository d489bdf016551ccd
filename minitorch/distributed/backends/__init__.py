"""The engines under ``minitorch.distributed``: MPI (``mpi.py``, through mpi4py), NCCL (``nccl.py``, CuPy)."""
