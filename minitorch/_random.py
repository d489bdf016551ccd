"""Random numbers: ``Generator`` and ``manual_seed``.

A ``Generator`` wraps NumPy's PCG64 bit generator. Every random op takes an optional
``generator=``; without one it uses ``minitorch.default_generator``, which
``manual_seed(s)`` reseeds, so a whole run repeats exactly. Random numbers for GPU tensors
are drawn on the host and then copied, so a seed gives the same numbers on every device.
(The streams differ from PyTorch's: same seed, different numbers.)
"""

from __future__ import annotations

import json
import time

import numpy as np

from . import _dtype
from ._device import device as Device


class Generator:
    """A source of random numbers with its own state (``torch.Generator``)."""

    def __init__(self, device="cpu"):
        self.device = Device(device)
        self._initial_seed = 67280421310721  # PyTorch's default seed
        self._numpy = np.random.Generator(np.random.PCG64(self._initial_seed))

    def manual_seed(self, seed: int) -> Generator:
        """Restart the stream from ``seed``; returns the generator, as in PyTorch."""
        seed = int(seed)
        if not -0x8000_0000_0000_0000 <= seed <= 0xFFFF_FFFF_FFFF_FFFF:
            raise RuntimeError(f"Overflow when unpacking long: seed {seed} is out of range")
        self._initial_seed = seed % 2**64
        self._numpy = np.random.Generator(np.random.PCG64(self._initial_seed))
        return self

    def seed(self) -> int:
        """Reseed from the clock and entropy; returns the new seed."""
        seed = int(np.random.SeedSequence().entropy % 2**63) ^ time.time_ns() % 2**31
        self.manual_seed(seed)
        return seed

    def initial_seed(self) -> int:
        return self._initial_seed

    def get_state(self):
        """The generator's state as a uint8 tensor (restore it with ``set_state``)."""
        from ._creation import tensor  # _creation builds on this module: imported when first needed

        text = json.dumps({"seed": self._initial_seed, "state": self._numpy.bit_generator.state})
        return tensor(list(text.encode()), dtype=_uint8())

    def set_state(self, state) -> Generator:
        payload = json.loads(bytes(state.tolist()).decode())
        self._initial_seed = payload["seed"]
        self._numpy.bit_generator.state = payload["state"]
        return self

    @property
    def numpy_generator(self) -> np.random.Generator:
        """The NumPy generator that draws the numbers."""
        return self._numpy


def _uint8():
    return _dtype.uint8


default_generator = Generator()


def manual_seed(seed: int) -> Generator:
    """Seed the default generator (for CPU and CUDA alike); returns it."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    default_generator.set_state(new_state)


def numpy_generator(generator: Generator | None) -> np.random.Generator:
    """The NumPy generator to draw from: the given one's, or the default one's."""
    return (generator or default_generator)._numpy
