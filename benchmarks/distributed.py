"""minitorch.distributed next to mpi4py itself, and DDP training at 1 and 2 processes.

    python benchmarks/distributed.py            # about a minute
    python benchmarks/distributed.py --quick    # a few seconds

Two tables, in one run:

1. **All-reduce bandwidth**, 1 KB to 64 MB of float32, on 2 processes: ``dist.all_reduce`` on a
   minitorch tensor against mpi4py's own ``Comm.Allreduce`` on a NumPy array (the same MPI
   underneath), interleaved round by round with the order rotating. The ratio is the cost of
   the minitorch layer (argument checks, the non-blocking request and its polling loop, the
   watchdog); the target is at most 1.1x for large messages. Bandwidth is the algorithm
   bandwidth, bytes / time.
2. **DDP training throughput**: an MLP (64-512-512-10, float32, SGD) on a fixed global batch of
   512, run by 1 process and by 2 (each with half the batch), samples per second and the
   speed-up. On a 2-core machine shared with other work the speed-up is bounded by the cores
   actually free; the numbers are what this run measured.

Each table is made by processes started with ``mpiexec`` from beside this Python; the thread
count of every BLAS is 1 (``OMP_NUM_THREADS=1``), so 2 processes use 2 cores.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SIZES = [2**k for k in range(10, 27, 2)]  # 1 KB, 4 KB, ..., 64 MB


def _median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


# -- inside the processes -------------------------------------------------------------------
def _allreduce_rank(out: str, quick: bool) -> None:
    import datetime

    import numpy as np
    from mpi4py import MPI

    import minitorch
    import minitorch.distributed as dist

    dist.init_process_group("mpi", timeout=datetime.timedelta(seconds=120))
    comm = MPI.COMM_WORLD
    rows = []
    for size in SIZES:
        count = size // 4
        array = np.ones(count, dtype=np.float32)
        tensor = minitorch.ones(count)
        repeats = max(3, min(200, int(2e7 // size))) if not quick else 3
        rounds = 7 if not quick else 3
        times = {"minitorch": [], "mpi4py": []}
        for round_number in range(rounds):
            order = ["minitorch", "mpi4py"] if round_number % 2 == 0 else ["mpi4py", "minitorch"]
            for name in order:
                comm.Barrier()
                start = time.perf_counter()
                for _ in range(repeats):
                    if name == "minitorch":
                        dist.all_reduce(tensor)
                    else:
                        comm.Allreduce(MPI.IN_PLACE, array)
                elapsed = (time.perf_counter() - start) / repeats
                times[name].append(comm.allreduce(elapsed, op=MPI.MAX))  # the slowest rank sets the pace
                tensor.fill_(1.0)
                array.fill(1.0)
        ratios = [a / b for a, b in zip(times["minitorch"], times["mpi4py"])]
        rows.append({"bytes": size, "minitorch_s": _median(times["minitorch"]), "mpi4py_s": _median(times["mpi4py"]),
                     "ratio": _median(ratios)})
    if dist.get_rank() == 0:
        Path(out).write_text(json.dumps(rows))
    dist.destroy_process_group()


def _ddp_rank(out: str, quick: bool) -> None:
    import datetime

    import numpy as np

    import minitorch
    import minitorch.distributed as dist
    from minitorch import nn

    dist.init_process_group("mpi", timeout=datetime.timedelta(seconds=120))
    rank, world = dist.get_rank(), dist.get_world_size()
    global_batch, steps = 512, (5 if quick else 30)
    generator = np.random.default_rng(0)
    features = minitorch.tensor(generator.normal(size=(global_batch, 64)), dtype=minitorch.float32)
    labels = minitorch.tensor(generator.integers(0, 10, size=global_batch))
    local = slice(rank * global_batch // world, (rank + 1) * global_batch // world)
    x, y = features[local], labels[local]
    minitorch.manual_seed(0)
    model = nn.parallel.DistributedDataParallel(
        nn.Sequential(nn.Linear(64, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)))
    optimizer = minitorch.optim.SGD(model.parameters(), lr=0.01)

    def step():
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()

    for _ in range(3):
        step()  # warm-up
    times = []
    for _ in range(steps):
        dist.barrier()
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    seconds = _median(times)
    if rank == 0:
        Path(out).write_text(json.dumps({"world": world, "step_s": seconds, "samples_per_s": global_batch / seconds}))
    dist.destroy_process_group()


# -- the driver -------------------------------------------------------------------------------
def _launch(processes: int, mode: str, quick: bool) -> object:
    mpiexec = Path(sys.executable).parent / "mpiexec"
    if not mpiexec.exists():
        raise SystemExit(f"mpiexec is not beside {sys.executable}: pip install mpi4py mpich")
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "result.json")
        environment = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
        environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(__file__).resolve().parent.parent),
                                                                  environment.get("PYTHONPATH")]))
        command = [str(mpiexec), "-n", str(processes), sys.executable, __file__, "--rank", mode, out]
        subprocess.run(command + (["--quick"] if quick else []), check=True, env=environment, timeout=900)
        return json.loads(Path(out).read_text())


def _size(nbytes: int) -> str:
    return f"{nbytes // 2**20} MB" if nbytes >= 2**20 else f"{nbytes // 2**10} KB"


def main(argv: list[str]) -> None:
    quick = "--quick" in argv
    if "--rank" in argv:
        mode, out = argv[argv.index("--rank") + 1: argv.index("--rank") + 3]
        (_allreduce_rank if mode == "allreduce" else _ddp_rank)(out, quick)
        return
    print(f"All-reduce of float32 on 2 processes ({'quick' if quick else 'full'} run); medians over rounds\n")
    print("| size | minitorch | mpi4py | minitorch / mpi4py | bandwidth (minitorch) |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for row in _launch(2, "allreduce", quick):
        bandwidth = row["bytes"] / row["minitorch_s"] / 2**20
        print(f"| {_size(row['bytes'])} | {row['minitorch_s'] * 1e6:,.0f} µs | {row['mpi4py_s'] * 1e6:,.0f} µs | "
              f"{row['ratio']:.2f}x | {bandwidth:,.0f} MB/s |")
    one, two = _launch(1, "ddp", quick), _launch(2, "ddp", quick)
    print("\nDDP training, MLP 64-512-512-10, global batch 512, median step\n")
    print("| processes | step | samples/s | speed-up |")
    print("| ---: | ---: | ---: | ---: |")
    for result in (one, two):
        print(f"| {result['world']} | {result['step_s'] * 1e3:.1f} ms | {result['samples_per_s']:,.0f} | "
              f"{result['samples_per_s'] / one['samples_per_s']:.2f}x |")


if __name__ == "__main__":
    main(sys.argv[1:])
