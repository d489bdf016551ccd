"""``FakeData``: random images, for checking a pipeline without any files."""

from __future__ import annotations

from ... import _creation
from ..._random import Generator
from ..transforms import functional as F
from .vision import VisionDataset

__all__ = ["FakeData"]


class FakeData(VisionDataset):
    """``size`` random images of ``image_size`` (C, H, W) with random labels, as PIL images.

    Image ``i`` is drawn from a generator seeded with ``i + random_offset``, so it is the same
    every time it is read (and the global random state is left alone).
    """

    def __init__(self, size: int = 1000, image_size=(3, 224, 224), num_classes: int = 10, transform=None,
                 target_transform=None, random_offset: int = 0):
        super().__init__(None, transform=transform, target_transform=target_transform)
        self.size = size
        self.num_classes = num_classes
        self.image_size = tuple(image_size)
        self.random_offset = random_offset

    def __getitem__(self, index: int):
        if index >= len(self):
            raise IndexError(f"{self.__class__.__name__} index out of range")
        generator = Generator().manual_seed(index + self.random_offset)
        image = _creation.randn(*self.image_size, generator=generator)
        target = int(_creation.randint(0, self.num_classes, size=(1,), generator=generator).item())
        return self._apply_transforms(F.to_pil_image(image), target)

    def __len__(self) -> int:
        return self.size
