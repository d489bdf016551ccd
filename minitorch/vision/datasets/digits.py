"""``Digits``: scikit-learn's 1,797 handwritten digits, 8x8 pixels, bundled with it (no download).

A small MNIST that loads in milliseconds, for the course's quick experiments. The 17 gray
levels (0-16) of the original are scaled to 0-255, so images look and behave like MNIST's
uint8 images, and ``image_size=16`` or ``28`` enlarges them (by antialiased bilinear
resizing, or with ``enlarge="pad"`` by a black border around the 8x8 digit), so a LeNet-5
built for 28x28 MNIST runs on them unchanged.
"""

from __future__ import annotations

import numpy as np
from PIL import Image

from ..._creation import from_numpy
from ..transforms import functional as F
from .utils import verify_str_arg
from .vision import VisionDataset

__all__ = ["Digits"]


class Digits(VisionDataset):
    """The scikit-learn digits, split into train and test (stratified, seeded, so the split never changes).

    Args:
        root: not used (the data ships with scikit-learn); accepted so code that passes one runs.
        train: the training part (``1 - test_fraction`` of the images) or the test part.
        image_size: 8 (original), 16 or 28.
        enlarge: ``"resize"`` (interpolate) or ``"pad"`` (center the 8x8 digit on black).
        test_fraction: share of the images held out for testing (default 0.2: 1437 / 360).
        split_seed: the seed of the train/test split.

    ``dataset[i]`` is ``(PIL image in mode "L", int label)`` before transforms; ``.data`` holds
    the images as a uint8 tensor ``(N, S, S)``, ``.targets`` the labels (int64).
    """

    classes = [str(digit) for digit in range(10)]

    def __init__(self, root=None, train: bool = True, transform=None, target_transform=None, image_size: int = 8,
                 enlarge: str = "resize", test_fraction: float = 0.2, split_seed: int = 0, download: bool = False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        if image_size not in (8, 16, 28):
            raise ValueError(f"image_size should be 8, 16 or 28, got {image_size!r}")
        verify_str_arg(enlarge, "enlarge", ("resize", "pad"))
        if not 0.0 < test_fraction < 1.0:
            raise ValueError(f"test_fraction should be between 0 and 1, got {test_fraction}")
        try:
            from sklearn.datasets import load_digits  # scikit-learn is slow to import: loaded when first needed
            from sklearn.model_selection import train_test_split  # (as above)
        except ImportError as error:
            message = "Digits needs scikit-learn, which bundles the images: pip install scikit-learn"
            raise ImportError(message) from error
        self.train = train
        self.image_size = image_size
        bunch = load_digits()
        images = np.rint(bunch.images * (255.0 / 16.0)).astype(np.uint8)  # 0..16 -> 0..255
        labels = bunch.target.astype(np.int64)
        train_index, test_index = train_test_split(
            np.arange(len(labels)), test_size=test_fraction, stratify=labels, random_state=split_seed
        )
        chosen = np.sort(train_index if train else test_index)
        images, labels = images[chosen], labels[chosen]
        if image_size != 8:
            images = self._enlarge(images, image_size, enlarge)
        self.data = from_numpy(images)
        self.targets = from_numpy(labels)

    @staticmethod
    def _enlarge(images: np.ndarray, size: int, how: str) -> np.ndarray:
        if how == "pad":
            border = (size - 8) // 2
            return np.pad(images, ((0, 0), (border, size - 8 - border), (border, size - 8 - border)))
        # One batched resize of all images at once: (N, 8, 8) -> (N, size, size), rounded back to uint8.
        resized = F.resize(from_numpy(images.astype(np.float32)), [size, size])
        return np.clip(np.rint(resized.numpy()), 0, 255).astype(np.uint8)

    @property
    def class_to_idx(self) -> dict[str, int]:
        return {name: index for index, name in enumerate(self.classes)}

    def __getitem__(self, index: int):
        image = Image.fromarray(self.data._data[index], mode="L")
        return self._apply_transforms(image, int(self.targets._data[index]))

    def __len__(self) -> int:
        return len(self.data)

    def extra_repr(self) -> str:
        return f"Split: {'Train' if self.train else 'Test'}\nImage size: {self.image_size}x{self.image_size}"
