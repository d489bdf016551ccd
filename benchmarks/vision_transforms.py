"""Vision workloads: an augmentation pipeline over the digits, and a LeNet-5 training epoch.

* ``digits_augment``: ``transforms.Compose([RandomCrop(28, padding=2), Normalize(...)])`` on
  each of the 1,437 training digits (28x28 float tensors), next to the same operations
  written directly in NumPy (``np.pad``, a random window, ``(x - mean) / std``). Both draw
  the crop positions from the same seeded MT19937 stream (minitorch's default generator, as
  PyTorch's, is one: a position is one 32-bit word modulo the number of positions), so they
  crop the same windows and the runner can check the outputs are equal.
  Time per image: this is per-sample Python overhead against NumPy's own.
* ``lenet5_digits_epoch``: one training epoch of LeNet-5 on the digits resized to 28x28
  (batch 64, SGD with momentum), minitorch next to PyTorch running the very same code from
  the same initial weights. Time per batch.
"""

from __future__ import annotations

import importlib
import math

import numpy as np

from benchmarks.workload import Target, Workload

_MEAN, _STD = 0.1307, 0.3081
_PADDING, _SIZE = 2, 28
_BATCH = 64


def _digit_images():
    """The training digits at 28x28 as float32 ``(1, 28, 28)`` arrays in [0, 1], and their labels."""
    from minitorch.vision.datasets import Digits

    digits = Digits(train=True, image_size=_SIZE)
    images = digits.data.numpy().astype(np.float32)[:, None] / np.float32(255)
    return images, digits.targets.numpy()


# -- digits_augment ----------------------------------------------------------------------------------
def _augment_minitorch():
    import minitorch
    from minitorch.vision import transforms as T

    images = [minitorch.from_numpy(image) for image in _digit_images()[0]]
    pipeline = T.Compose([T.RandomCrop(_SIZE, padding=_PADDING), T.Normalize((_MEAN,), (_STD,))])

    def step():
        minitorch.manual_seed(0)
        outputs = [pipeline(image) for image in images]
        return outputs[0], outputs[-1]

    return step


def _augment_numpy():
    images = list(_digit_images()[0])
    mean, std = np.float32(_MEAN), np.float32(_STD)
    widths = ((0, 0), (_PADDING, _PADDING), (_PADDING, _PADDING))
    positions = 2 * _PADDING + 1

    def step():
        twister = np.random.MT19937(0)
        twister._legacy_seeding(0)  # what manual_seed(0) does
        words = iter(twister.random_raw(2 * len(images)).tolist())
        outputs = []
        for image in images:
            padded = np.pad(image, widths)
            top = next(words) % positions
            left = next(words) % positions
            outputs.append((padded[:, top:top + _SIZE, left:left + _SIZE] - mean) / std)
        return outputs[0], outputs[-1]

    return step


# -- lenet5_digits_epoch -----------------------------------------------------------------------------
def _lenet_initial_weights():
    """PyTorch's default initialisation (U(-1/sqrt(fan_in), 1/sqrt(fan_in))), drawn once for both frameworks."""
    rng = np.random.default_rng(0)
    shapes = [((6, 1, 5, 5), 25), ((6,), 25), ((16, 6, 5, 5), 150), ((16,), 150), ((120, 400), 400), ((120,), 400),
              ((84, 120), 120), ((84,), 120), ((10, 84), 84), ((10,), 84)]
    return [rng.uniform(-1, 1, shape).astype(np.float32) / math.sqrt(fan_in) for shape, fan_in in shapes]


def _lenet(module_name):
    def setup():
        lib = importlib.import_module(module_name)
        nn = lib.nn
        images, labels = _digit_images()
        images = (images - np.float32(_MEAN)) / np.float32(_STD)
        model = nn.Sequential(
            nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10),
        )
        with lib.no_grad():
            for parameter, value in zip(model.parameters(), _lenet_initial_weights()):
                parameter.copy_(lib.from_numpy(value))
        optimizer = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        batches = [
            (lib.from_numpy(np.ascontiguousarray(images[start:start + _BATCH])),
             lib.from_numpy(labels[start:start + _BATCH].astype(np.int64)))
            for start in range(0, len(images), _BATCH)
        ]
        cross_entropy = nn.functional.cross_entropy

        def step():
            for inputs, targets in batches:
                optimizer.zero_grad()
                cross_entropy(model(inputs), targets).backward()
                optimizer.step()
            return tuple(parameter.detach().clone() for parameter in model.parameters())

        return step

    return setup


_BATCHES_PER_EPOCH = math.ceil(1437 / _BATCH)

WORKLOADS = [
    Workload(
        name="digits_augment",
        description="Compose([RandomCrop(28, padding=2), Normalize]) over the 1437 training digits at 28x28; "
        "time per image",
        setups={"minitorch": _augment_minitorch, "numpy": _augment_numpy},
        steps=1,
        quick_steps=1,
        target=Target("numpy", 1.5),
        unit="image",
        units_per_step=1437,
        rtol=1e-6,
    ),
    Workload(
        name="lenet5_digits_epoch",
        description="LeNet-5 on the 1437 training digits at 28x28, one epoch of SGD with momentum, batch 64; "
        "time per batch",
        setups={"minitorch": _lenet("minitorch"), "pytorch": _lenet("torch")},
        steps=1,
        quick_steps=1,
        target=Target("pytorch", 3.0),
        unit="batch",
        units_per_step=_BATCHES_PER_EPOCH,
        rtol=1e-3,
    ),
]
