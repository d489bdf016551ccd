"""The NCCL backend: collectives between GPUs, through CuPy's ``cupyx.distributed.NCCLBackend``.

NCCL (NVIDIA's collective library) moves GPU memory directly between cards (NVLink, PCIe,
InfiniBand), which is why PyTorch uses it for every multi-GPU job: one process per GPU,
``init_process_group("nccl")``, tensors on ``cuda:LOCAL_RANK``. Here each collective is
CuPy's call on the tensors' CuPy arrays, queued on the current CUDA stream; the ``Work``
is a CUDA event recorded after it (``is_completed`` asks the event, ``wait`` synchronizes).
The processes meet through CuPy's own TCP rendezvous at ``MASTER_ADDR:MASTER_PORT`` (the
launcher sets both).

UNTESTED: the machines this kit is developed on have no GPU. The code follows CuPy's
documented API; without CuPy, or without NCCL in it, ``init_process_group("nccl")`` raises
an error that says so. Collectives not listed in ``ProcessGroupNCCL`` (sub-groups among them)
raise ``NotImplementedError`` naming the MPI backend, which has them all.
"""

from __future__ import annotations

import os

from ..reduce_op import RedOpType
from ..work import Work


def is_available() -> bool:
    try:
        from cupy.cuda import nccl  # noqa: F401
        from cupyx.distributed import NCCLBackend  # noqa: F401
    except Exception:
        return False
    return True


def _cupy():
    try:
        import cupy  # optional (the cuda extra): only on a GPU
        from cupy.cuda import nccl  # noqa: F401
        from cupyx.distributed import NCCLBackend  # optional (the cuda extra): only on a GPU
    except Exception as error:
        raise RuntimeError(
            "backend='nccl' needs CuPy built with NCCL and an NVIDIA GPU (pip install cupy-cuda12x; "
            f"python -m cupyx.tools.install_library --library nccl): {type(error).__name__}: {error}. "
            "On CPUs use backend='mpi'."
        ) from error
    return cupy, NCCLBackend


_OPS = {RedOpType.SUM: "sum", RedOpType.AVG: "sum", RedOpType.PRODUCT: "prod", RedOpType.MIN: "min",
        RedOpType.MAX: "max"}


class NCCLWork(Work):
    def __init__(self, description: str, finish=None):
        super().__init__(description, finish)
        cupy, _ = _cupy()
        self.event = cupy.cuda.Event()
        self.event.record()

    def _test(self) -> bool:
        return self.event.done

    def _block(self, timeout_seconds) -> None:
        self.event.synchronize()


class ProcessGroupNCCL:
    """Every rank of the job, one GPU each; the arrays are CuPy arrays (a cuda tensor's ``_data``)."""

    backend_name = "nccl"
    group_id = 0

    def __init__(self, world_size: int, rank: int, timeout_seconds: float):
        cupy, NCCLBackend = _cupy()
        if cupy.cuda.runtime.getDeviceCount() == 0:
            raise RuntimeError("backend='nccl' needs a GPU, and CUDA reports none; on CPUs use backend='mpi'")
        host = os.environ.get("MASTER_ADDR", "127.0.0.1")
        port = int(os.environ.get("MASTER_PORT", "13333"))
        self.communicator = NCCLBackend(world_size, rank, host=host, port=port)
        self.ranks = list(range(world_size))
        self._rank, self._size = rank, world_size

    def rank(self) -> int:
        return self._rank

    def size(self) -> int:
        return self._size

    @staticmethod
    def _op(op: RedOpType) -> str:
        if op not in _OPS:
            raise RuntimeError(f"backend='nccl' here supports SUM, AVG, PRODUCT, MIN and MAX, not {op.name}")
        return _OPS[op]

    def allreduce(self, array, op):
        self.communicator.all_reduce(array, array, self._op(op))
        return NCCLWork("all_reduce")

    def reduce(self, array, root, op):
        self.communicator.reduce(array, array, root, self._op(op))
        return NCCLWork("reduce")

    def reduce_scatter(self, output, array, op):
        self.communicator.reduce_scatter(array, output, output.size, self._op(op))
        return NCCLWork("reduce_scatter_tensor")

    def broadcast(self, array, root):
        self.communicator.broadcast(array, root)
        return NCCLWork("broadcast")

    def allgather(self, output, array):
        self.communicator.all_gather(array, output, array.size)
        return NCCLWork("all_gather")

    def gather(self, output, array, root):
        self.communicator.gather(array, output, root)
        return NCCLWork("gather")

    def scatter(self, output, array, root):
        self.communicator.scatter(array, output, root)
        return NCCLWork("scatter")

    def send(self, array, destination, tag):
        self.communicator.send(array, destination)
        return NCCLWork(f"send to rank {destination}")

    def recv(self, array, source, tag):
        if source is None:
            raise NotImplementedError("backend='nccl' receives from a named rank only (src=...); MPI has any-source")
        self.communicator.recv(array, source)
        return NCCLWork(f"recv from rank {source}")

    def alltoall(self, output, output_counts, array, input_counts):
        # cupyx's NCCL backend has an all-to-all of equal pieces only (NCCL itself has no uneven one)
        if len(set(output_counts) | set(input_counts)) != 1:
            raise NotImplementedError("backend='nccl' in minitorch moves equal pieces in all_to_all "
                                      f"(got {input_counts} to send and {output_counts} to receive); use backend='mpi'")
        self.communicator.all_to_all(array.reshape(self._size, -1), output.reshape(self._size, -1))
        return NCCLWork("all_to_all")

    def barrier(self):
        self.communicator.barrier()
        return NCCLWork("barrier")

    def new_subgroup(self, ranks, group_id):
        raise NotImplementedError("new_group is not implemented for backend='nccl' in minitorch; use backend='mpi'")

    def destroy(self) -> None:
        self.communicator = None


def world_group(world_size: int, rank: int, timeout_seconds: float) -> ProcessGroupNCCL:
    return ProcessGroupNCCL(world_size, rank, timeout_seconds)
