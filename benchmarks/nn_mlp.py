"""An MLP on scikit-learn's digits: one epoch of forward+backward passes, minitorch next to PyTorch.

The network is the one of issue 3, section 6: ``Linear(64, 128) -> ReLU -> Linear(128, 64)
-> ReLU -> Linear(64, 10)`` on the 1797 8x8 digit images (64 features, scaled to [0, 1]),
in batches of 64 (29 batches, the last one short), with ``F.cross_entropy``. One step is a
whole epoch of forward and backward passes; gradients add up over the epoch and the runner
checks both frameworks end with the same ones. No optimizer step, so every round does the
same work. Both start from the same weights (drawn once with NumPy), float32, one thread.
"""

from __future__ import annotations

import math

import numpy as np

from benchmarks.workload import Target, Workload

_BATCH = 64
_SIZES = [64, 128, 64, 10]


def _digits():
    from sklearn.datasets import load_digits  # bundled with scikit-learn: no download

    digits = load_digits()
    return (digits.data / 16.0).astype(np.float32), digits.target.astype(np.int64)


def _initial_weights():
    """PyTorch's default ranges (U(-1/sqrt(fan_in), 1/sqrt(fan_in))), drawn once for both frameworks."""
    rng = np.random.default_rng(0)
    weights = []
    for fan_in, fan_out in zip(_SIZES[:-1], _SIZES[1:]):
        bound = 1 / math.sqrt(fan_in)
        weights.append(rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32))
        weights.append(rng.uniform(-bound, bound, (fan_out,)).astype(np.float32))
    return weights


def _mlp(module_name):
    def setup():
        import importlib

        lib = importlib.import_module(module_name)
        nn = lib.nn
        features, labels = _digits()
        model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 10))
        with lib.no_grad():
            for parameter, value in zip(model.parameters(), _initial_weights()):
                parameter.copy_(lib.from_numpy(value))
        batches = [
            (lib.from_numpy(features[start:start + _BATCH]), lib.from_numpy(labels[start:start + _BATCH]))
            for start in range(0, len(features), _BATCH)
        ]
        cross_entropy = nn.functional.cross_entropy

        def step():
            model.zero_grad()
            for inputs, targets in batches:
                cross_entropy(model(inputs), targets).backward()
            return tuple(parameter.grad for parameter in model.parameters())

        return step

    return setup


WORKLOADS = [
    Workload(
        name="mlp_digits",
        description="MLP 64-128-64-10 on digits, batch 64, one epoch forward+backward; time per batch",
        setups={"minitorch": _mlp("minitorch"), "pytorch": _mlp("torch")},
        steps=5,
        quick_steps=1,
        target=Target("pytorch", 1.5),
        unit="batch",
        units_per_step=math.ceil(1797 / _BATCH),
        rtol=1e-4,
    ),
]
