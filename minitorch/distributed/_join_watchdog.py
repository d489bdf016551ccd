"""Guard ``MPI_Init`` with the timeout of ``init_process_group`` (run by path; imports nothing from minitorch).

MPICH's ``MPI_Init`` waits until every rank of the job has called it, inside C code that
holds Python's interpreter lock: no Python timer in the waiting process can interrupt it.
So ``init_process_group`` starts this small separate process first and closes its stdin
once MPI has started. If that has not happened within the timeout, this process explains
why on stderr (naming the ranks that never joined, from the launcher's run folder), leaves
the error for the launcher, and kills the waiting process.

Arguments: parent pid, timeout in seconds, run folder ("" if none), rank, world size.
"""

import json
import os
import select
import signal
import sys
import time


def main(parent: int, timeout: float, run_dir: str, rank: str, world_size: int) -> None:
    ready, _, _ = select.select([sys.stdin], [], [], timeout)
    if ready:
        return  # stdin closed: MPI started in time
    message = f"Timed out after {timeout:.1f} seconds waiting for every rank to call init_process_group"
    if run_dir and world_size:
        joined = {name[len("rank-"):-len(".joining")] for name in os.listdir(run_dir) if name.endswith(".joining")}
        missing = [r for r in range(world_size) if str(r) not in joined]
        message += (f": {world_size - len(missing)}/{world_size} ranks joined; missing: "
                    + ", ".join(f"rank {r}" for r in missing))
    message += f" (this is rank {rank})"
    sys.stderr.write(f"minitorch.distributed.DistStoreError: {message}\n")
    sys.stderr.flush()
    if run_dir:
        with open(os.path.join(run_dir, f"rank-{rank}.error"), "a") as file:
            file.write(json.dumps({"time": time.time(), "error": f"DistStoreError: {message}", "secondary": False})
                       + "\n")
    os.kill(parent, signal.SIGKILL)


if __name__ == "__main__":
    main(int(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5]))
