"""A small CNN on scikit-learn's digits: one epoch of forward+backward passes, minitorch next to PyTorch.

The network is the one of issue 3, section 6::

    Conv2d(1, 8, 3, padding=1) -> ReLU -> MaxPool2d(2) -> Conv2d(8, 16, 3, padding=1) -> ReLU
    -> Flatten -> Linear(16 * 8 * 8, 10)

on the 1797 8x8 digit images, zero-padded to 16x16 and scaled to [0, 1], in batches of
64 (29 batches, the last one short). One step is a whole epoch: for every batch, the
cross-entropy loss (written as ``-log_softmax(...)[target]``, so the very same code runs
on both libraries) and its backward pass; gradients add up over the epoch, and the
runner checks that both frameworks end with the same ones. No optimizer step, so the
work is the same in every round.

Both frameworks start from the same weights (drawn once with NumPy) and run in float32
on one thread. Time is reported per batch.
"""

from __future__ import annotations

import math

import numpy as np

from benchmarks.workload import Target, Workload

_BATCH = 64


def _digits():
    """``(images, labels)``: float32 ``(1797, 1, 16, 16)`` in [0, 1] and int64 labels."""
    from sklearn.datasets import load_digits  # bundled with scikit-learn: no download

    digits = load_digits()
    images = np.zeros((len(digits.images), 1, 16, 16), dtype=np.float32)
    images[:, 0, 4:12, 4:12] = digits.images / 16.0  # 8x8 centred in 16x16
    return images, digits.target.astype(np.int64)


def _initial_weights():
    """PyTorch's default initialisation (U(-1/sqrt(fan_in), 1/sqrt(fan_in))), drawn once for both frameworks."""
    rng = np.random.default_rng(0)
    shapes = [((8, 1, 3, 3), 9), ((8,), 9), ((16, 8, 3, 3), 72), ((16,), 72), ((10, 1024), 1024), ((10,), 1024)]
    return [rng.uniform(-1, 1, shape).astype(np.float32) / math.sqrt(fan_in) for shape, fan_in in shapes]


def _cnn(module_name):
    def setup():
        import importlib

        lib = importlib.import_module(module_name)
        nn = lib.nn
        images, labels = _digits()
        model = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(16 * 8 * 8, 10),
        )
        with lib.no_grad():
            for parameter, value in zip(model.parameters(), _initial_weights()):
                parameter.copy_(lib.from_numpy(value))
        batches = [
            (lib.from_numpy(images[start:start + _BATCH]), lib.from_numpy(labels[start:start + _BATCH]))
            for start in range(0, len(images), _BATCH)
        ]
        log_softmax = nn.functional.log_softmax

        def step():
            model.zero_grad()
            for inputs, targets in batches:
                log_probabilities = log_softmax(model(inputs), dim=1)
                loss = -log_probabilities.gather(1, targets.unsqueeze(1)).mean()
                loss.backward()
            return tuple(parameter.grad for parameter in model.parameters())

        return step

    return setup


WORKLOADS = [
    Workload(
        name="cnn_digits",
        description="conv8-relu-maxpool-conv16-relu-linear10 on digits 16x16, batch 64, one epoch forward+backward; "
        "time per batch",
        setups={"minitorch": _cnn("minitorch"), "pytorch": _cnn("torch")},
        steps=3,
        quick_steps=1,
        target=Target("pytorch", 3.0),
        unit="batch",
        units_per_step=math.ceil(1797 / _BATCH),
        # float32 gradients summed over 1797 images by different convolution algorithms agree to about 1e-5
        # relative; the check is there to catch wrong results, not rounding.
        rtol=1e-3,
    ),
]
