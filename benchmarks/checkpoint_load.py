"""Loading a large checkpoint: ``minitorch.load`` against ``torch.load``, read into memory and with ``mmap=True``.

The file: a state dict of 20 float32 tensors, about 105 MB, written once by ``torch.save`` into a temporary
folder. Each round loads it with both libraries, in alternating order; the ratio is minitorch's time over
PyTorch's in the same round, and the report is the median of the rounds' ratios (the machine is shared:
ratios measured side by side, never absolute times). Target (the deployment issue): at most 1.3x.

    python benchmarks/checkpoint_load.py [rounds]
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time

if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402


def _timed(load) -> float:
    start = time.perf_counter()
    load()
    return time.perf_counter() - start


def main(rounds: int = 7) -> None:
    import torch

    import minitorch

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "big.pt")
        generator = np.random.default_rng(0)
        torch.save({f"layer{i}.weight": torch.from_numpy(generator.standard_normal(1_310_720, dtype=np.float32))
                    for i in range(20)}, path)
        megabytes = os.path.getsize(path) / 1e6
        for label, options in (("into memory", {}), ("mmap=True", {"mmap": True})):
            ratios, ours_ms, theirs_ms = [], [], []
            for round_number in range(rounds):
                pair = [("minitorch", lambda options=options: minitorch.load(path, **options)),
                        ("torch", lambda options=options: torch.load(path, **options))]
                if round_number % 2:
                    pair.reverse()
                times = dict((name, _timed(load)) for name, load in pair)
                ratios.append(times["minitorch"] / times["torch"])
                ours_ms.append(times["minitorch"] * 1e3)
                theirs_ms.append(times["torch"] * 1e3)
            print(f"{megabytes:.0f} MB, {label}: minitorch {statistics.median(ours_ms):.1f} ms, torch "
                  f"{statistics.median(theirs_ms):.1f} ms; median ratio {statistics.median(ratios):.2f}x "
                  f"(target <= 1.3x; load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
