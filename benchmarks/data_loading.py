"""DataLoader workloads: does loading in worker processes pay off, and is it as fast as PyTorch's?

The dataset's ``__getitem__`` costs about 2 ms of NumPy work per sample (a chain of
``tanh`` over a 128x128 array: busy computation, not ``sleep``), the kind of per-sample
transform that makes data loading the bottleneck of a training loop. One step is one epoch:
256 samples in batches of 16, iterated to the end (workers are started and stopped each
epoch, as with the default ``persistent_workers=False``).

* ``dataloader_0_workers``: everything in the main process (``num_workers=0``).
* ``dataloader_2_workers``: two worker processes (``num_workers=2``), one per core of a
  2-core machine. Target: at least 1.6x faster than loading in one process, that is at most
  0.625x the "NumPy" column, a hand-written loop that calls ``__getitem__`` and stacks the
  samples in the main process (what ``num_workers=0`` does, minus the DataLoader).

minitorch and PyTorch load the same dataset object with the same DataLoader call.
``python benchmarks/data_loading.py`` prints the speed-ups (``num_workers=2`` over
``num_workers=0``) of both libraries and their ratio, interleaved and repeated.
"""

from __future__ import annotations

import importlib
import os
import statistics
import sys
import time

if __name__ == "__main__":  # run as a script: one thread per library, and make ``import benchmarks`` work
    for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_variable] = "1"
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

from benchmarks.workload import Target, Workload  # noqa: E402

SAMPLES, BATCH_SIZE, TRANSFORM_REPEATS = 256, 16, 120


class BusySamples:
    """A map-style dataset whose samples cost about 2 ms each: features (128 float32) and a label.

    A plain class with ``__len__`` and ``__getitem__``: both DataLoaders accept it. It lives at
    the top level of an importable module, so spawned workers can import it too.
    """

    def __init__(self, length: int = SAMPLES, repeats: int = TRANSFORM_REPEATS) -> None:
        self.length, self.repeats = length, repeats
        self.base = np.linspace(0.0, 1.0, 128 * 128).reshape(128, 128)

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, index: int):
        image = self.base + index / self.length
        for _ in range(self.repeats):  # the "augmentation": elementwise NumPy work, single-threaded
            image = np.tanh(image * 1.01 + 0.1)
        return image.mean(axis=0).astype(np.float32), index % 10


def _epoch_with_loader(module_name: str, num_workers: int):
    def setup():
        lib = importlib.import_module(module_name)
        loader = lib.utils.data.DataLoader(BusySamples(), batch_size=BATCH_SIZE, num_workers=num_workers)

        def step():
            feature_sum, label_sum = 0.0, 0
            for features, labels in loader:
                feature_sum += float(features.sum())
                label_sum += int(labels.sum())
            return np.float64(feature_sum), np.float64(label_sum)

        return step

    return setup


def _epoch_by_hand():
    dataset = BusySamples()

    def step():
        feature_sum, label_sum = 0.0, 0
        for start in range(0, len(dataset), BATCH_SIZE):
            samples = [dataset[index] for index in range(start, min(start + BATCH_SIZE, len(dataset)))]
            features = np.stack([features for features, _ in samples])
            labels = np.array([label for _, label in samples])
            feature_sum += float(features.sum())
            label_sum += int(labels.sum())
        return np.float64(feature_sum), np.float64(label_sum)

    return step


WORKLOADS = [
    Workload(
        name="dataloader_0_workers",
        description=f"one epoch, {SAMPLES} samples of ~2 ms each, batch {BATCH_SIZE}, num_workers=0; time per epoch",
        setups={
            "minitorch": _epoch_with_loader("minitorch", 0),
            "pytorch": _epoch_with_loader("torch", 0),
            "numpy": _epoch_by_hand,
        },
        steps=1,
        quick_steps=1,
        target=Target("pytorch", 1.1),
        unit="epoch",
    ),
    Workload(
        name="dataloader_2_workers",
        description=(
            f"one epoch, {SAMPLES} samples of ~2 ms each, batch {BATCH_SIZE}, num_workers=2; time per epoch "
            "(NumPy: the same loop in one process)"
        ),
        setups={
            "minitorch": _epoch_with_loader("minitorch", 2),
            "pytorch": _epoch_with_loader("torch", 2),
            "numpy": _epoch_by_hand,
        },
        steps=1,
        quick_steps=1,
        target=Target("numpy", 1 / 1.6),
        unit="epoch",
    ),
]


def sample_cost_seconds(samples: int = 50) -> float:
    """Measured cost of one ``__getitem__`` on this machine."""
    dataset = BusySamples()
    start = time.perf_counter()
    for index in range(samples):
        dataset[index]
    return (time.perf_counter() - start) / samples


def main(rounds: int = 5) -> None:
    """Speed-ups of num_workers=2 over num_workers=0, for both libraries, interleaved over ``rounds``."""
    configurations = [(module, workers) for module in ("minitorch", "torch") for workers in (0, 2)]
    steps = {configuration: _epoch_with_loader(*configuration)() for configuration in configurations}
    times = {configuration: [] for configuration in configurations}
    for round_index in range(rounds):
        shift = round_index % len(configurations)
        for configuration in configurations[shift:] + configurations[:shift]:
            start = time.perf_counter()
            steps[configuration]()
            times[configuration].append(time.perf_counter() - start)

    def speedup(module):
        return statistics.median(zero / two for zero, two in zip(times[(module, 0)], times[(module, 2)]))

    ratio = statistics.median(mine / theirs for mine, theirs in zip(times[("minitorch", 2)], times[("torch", 2)]))
    print(f"per-sample cost: {sample_cost_seconds() * 1e3:.2f} ms; {SAMPLES} samples, batch {BATCH_SIZE}; "
          f"{rounds} interleaved rounds, medians")
    for module, workers in configurations:
        print(f"  {module:9s} num_workers={workers}: {statistics.median(times[(module, workers)]):.3f} s per epoch")
    print(f"  speed-up of num_workers=2: minitorch {speedup('minitorch'):.2f}x (target >= 1.6x), "
          f"PyTorch {speedup('torch'):.2f}x")
    print(f"  minitorch / PyTorch with num_workers=2: {ratio:.2f}x (target <= 1.0x)")


if __name__ == "__main__":
    main()
