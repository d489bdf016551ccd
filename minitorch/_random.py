"""Random numbers: ``Generator`` and ``manual_seed``, PyTorch's CPU generator number for number.

PyTorch's CPU generator is a Mersenne Twister (MT19937): 624 32-bit words of state, each
call gives the next 32 random bits. It is seeded from the low 32 bits of the seed with the
classic ``init_genrand`` recurrence, which NumPy implements too (``MT19937._legacy_seeding``),
so minitorch keeps a NumPy ``MT19937`` and reads its raw 32-bit words. Every distribution is
then made from these words exactly as PyTorch's CPU kernels make it (``_sampling.py``), so
after ``manual_seed(0)`` ``randn(3)`` is PyTorch's famous ``[1.5410, -0.2934, -2.1788]``.

Besides the twister, the generator keeps what PyTorch's keeps: the seed it was given (all 64
bits: ``initial_seed``) and one cached normal sample per precision (a Box-Muller step makes two
normals; the second waits for the next scalar normal draw). ``get_state`` returns the 5056
bytes of PyTorch's ``CPUGeneratorImplState``, so a state saved by ``torch.get_rng_state()``
restores minitorch's generator, and the other way round.

Where the numbers are not PyTorch's: draws that PyTorch makes by rejection, element after element, each
element taking a varying number of words from the twister (``poisson``, ``binomial``, and the samplers of
``distributions.Gamma``, ``Beta``, ``Dirichlet`` and ``Poisson``). No vectorised transform repeats such a
loop, so minitorch draws them with NumPy's samplers on the same twister: ``manual_seed`` repeats a run,
and only these numbers (and whatever is drawn after them) differ from PyTorch's
(tests/test_random_parity.py checks that every other function that takes a ``generator=`` matches).

Every random op takes an optional ``generator=``; without one it uses
``minitorch.default_generator``. Random numbers for GPU tensors are drawn on the host and
then copied, so a seed gives the same numbers on every device.
"""

from __future__ import annotations

import os
import time

import numpy as np

from . import _dtype
from ._device import CPU, device as Device
from ._tensor_base import TensorBase  # _make: a state is a uint8 tensor on the CPU

_STATE_WORDS = 624  # MT19937's state: 624 words of 32 bits
# Byte offsets in PyTorch's CPUGeneratorImplState (a C struct; x86-64/aarch64 layout, little-endian).
_SEED, _LEFT, _SEEDED, _NEXT, _WORDS = 0, 8, 12, 16, 24
_NORMAL_Y, _NORMAL_IS_VALID = 5024, 5040  # the cached double normal and its flag
_FLOAT_NORMAL, _FLOAT_NORMAL_IS_VALID = 5048, 5052
_STATE_BYTES = 5056
_DEFAULT_SEED = 67280421310721  # PyTorch's default seed for a new Generator


class Generator:
    """A source of random numbers with its own state (``torch.Generator``): PyTorch's MT19937."""

    def __init__(self, device="cpu"):
        self.device = Device(device)
        self.manual_seed(_DEFAULT_SEED)

    def manual_seed(self, seed: int) -> Generator:
        """Restart the stream from ``seed``; returns the generator, as in PyTorch.

        The twister uses the low 32 bits (as PyTorch's does); ``initial_seed`` keeps all 64.
        """
        seed = int(seed)
        if not -0x8000_0000_0000_0000 <= seed <= 0xFFFF_FFFF_FFFF_FFFF:
            raise RuntimeError(f"Overflow when unpacking long: seed {seed} is out of range")
        self._initial_seed = seed % 2**64
        self._twister = np.random.MT19937(0)
        self._twister._legacy_seeding(self._initial_seed & 0xFFFF_FFFF)
        self._fresh = True  # no word drawn since seeding (PyTorch then stores next = 0, not 624)
        self.next_double_normal = None  # Box-Muller's second sample, waiting (None: none cached)
        self.next_float_normal = None
        return self

    def seed(self) -> int:
        """Reseed from the operating system's entropy (or the clock); returns the new seed."""
        try:
            seed = int.from_bytes(os.urandom(8), "little")
        except NotImplementedError:  # no entropy source: the clock, as PyTorch falls back to
            seed = time.time_ns()
        seed %= 2**64
        self.manual_seed(seed)
        return seed

    def initial_seed(self) -> int:
        return self._initial_seed

    # -- the raw stream ------------------------------------------------------------------------
    def random32(self, count: int) -> np.ndarray:
        """The next ``count`` 32-bit words (PyTorch's ``generator->random()``), as uint64."""
        self._fresh = False
        return self._twister.random_raw(int(count))  # NumPy gives MT19937's words as uint64 already

    def random64(self, count: int) -> np.ndarray:
        """The next ``count`` 64-bit values (``generator->random64()``): two words, the first is the high half."""
        words = self.random32(2 * int(count))
        return (words[0::2] << np.uint64(32)) | words[1::2]

    # -- state ----------------------------------------------------------------------------------
    def get_state(self):
        """The generator's state as PyTorch's 5056-byte uint8 tensor (restore it with ``set_state``)."""
        twister = self._twister.state["state"]
        position = int(twister["pos"])
        raw = bytearray(_STATE_BYTES)
        # PyTorch's twister counts down `left` and up `next`; NumPy's counts `pos` up to 624.
        if self._fresh:
            left, following = 1, 0
        elif position == _STATE_WORDS:
            left, following = 1, _STATE_WORDS
        else:
            left, following = _STATE_WORDS + 1 - position, position
        raw[_SEED:_SEED + 8] = self._initial_seed.to_bytes(8, "little")
        raw[_LEFT:_LEFT + 4] = left.to_bytes(4, "little")
        raw[_SEEDED:_SEEDED + 4] = (1).to_bytes(4, "little")
        raw[_NEXT:_NEXT + 8] = following.to_bytes(8, "little")
        raw[_WORDS:_WORDS + 8 * _STATE_WORDS] = np.asarray(twister["key"], dtype="<u8").tobytes()
        if self.next_double_normal is not None:
            raw[_NORMAL_Y:_NORMAL_Y + 8] = np.float64(self.next_double_normal).astype("<f8").tobytes()
            raw[_NORMAL_IS_VALID:_NORMAL_IS_VALID + 4] = (1).to_bytes(4, "little")
        if self.next_float_normal is not None:
            raw[_FLOAT_NORMAL:_FLOAT_NORMAL + 4] = np.float32(self.next_float_normal).astype("<f4").tobytes()
            raw[_FLOAT_NORMAL_IS_VALID] = 1
        return TensorBase._make(np.frombuffer(bytes(raw), dtype=np.uint8).copy(), CPU)

    def set_state(self, new_state) -> Generator:
        """Restore a state from ``get_state`` (minitorch's or PyTorch's: the bytes are the same)."""
        if getattr(new_state, "dtype", None) != _dtype.uint8:
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        raw = bytes(np.asarray(new_state._device.backend.to_host(new_state._data), dtype=np.uint8).reshape(-1))
        if len(raw) != _STATE_BYTES:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_STATE_BYTES} but found the input RNG "
                               f"state size to be {len(raw)}")
        left = int.from_bytes(raw[_LEFT:_LEFT + 4], "little", signed=True)
        following = int.from_bytes(raw[_NEXT:_NEXT + 8], "little")
        words = np.frombuffer(raw[_WORDS:_WORDS + 8 * _STATE_WORDS], dtype="<u8").astype(np.uint32)
        if not 1 <= left <= _STATE_WORDS or following > _STATE_WORDS or not (left == 1 or left + following == 625):
            raise RuntimeError("Invalid mt19937 state")
        twister = np.random.MT19937(0)
        twister.state = {"bit_generator": "MT19937",
                         "state": {"key": words, "pos": _STATE_WORDS if left == 1 else following}}
        self._twister = twister
        self._initial_seed = int.from_bytes(raw[_SEED:_SEED + 8], "little")
        self._fresh = left == 1 and following == 0
        double_valid = int.from_bytes(raw[_NORMAL_IS_VALID:_NORMAL_IS_VALID + 4], "little") != 0
        self.next_double_normal = float(np.frombuffer(raw[_NORMAL_Y:_NORMAL_Y + 8], "<f8")[0]) if double_valid else None
        float_valid = raw[_FLOAT_NORMAL_IS_VALID] != 0
        self.next_float_normal = np.frombuffer(raw[_FLOAT_NORMAL:_FLOAT_NORMAL + 4], "<f4")[0] if float_valid else None
        return self

    @property
    def numpy_generator(self) -> np.random.Generator:
        """A NumPy generator drawing from this generator's twister (NumPy's own transforms, not PyTorch's)."""
        self._fresh = False
        return np.random.Generator(self._twister)


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


def generator_or_default(generator: Generator | None) -> Generator:
    """The generator to draw from: the given one, or the default one."""
    return default_generator if generator is None else generator


def numpy_generator(generator: Generator | None) -> np.random.Generator:
    """A NumPy generator over the given (or default) generator's stream, for draws PyTorch makes differently
    anyway (torchvision's augmentations use Python-side sampling minitorch does not mirror)."""
    return generator_or_default(generator).numpy_generator
