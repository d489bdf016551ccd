"""CIFAR-10 from its *binary* version: 32x32 colour images in fixed-size records.

torchvision reads the Python version, a set of pickles, and unpickling a downloaded file can
run any code in it. The binary version holds the same images as plain bytes: each record
is 1 label byte then 3072 pixel bytes (the 1024 red values of the 32x32 image row by row,
then the green, then the blue). A file is a sequence of such records, so its size must be
a multiple of 3073 bytes; anything else is reported as corrupt or truncated.

Files: ``root/cifar-10-batches-bin/data_batch_1.bin`` ... ``data_batch_5.bin``,
``test_batch.bin`` and ``batches.meta.txt`` (the class names, one per line).
"""

from __future__ import annotations

import os

import numpy as np
from PIL import Image

from ..._creation import from_numpy
from .utils import download_and_extract_archive
from .vision import VisionDataset

__all__ = ["CIFAR10"]

_RECORD = 1 + 3 * 32 * 32


class CIFAR10(VisionDataset):
    """CIFAR-10: 50,000 training and 10,000 test images, 32x32 RGB, in 10 classes.

    ``dataset[i]`` is ``(PIL RGB image, int label)`` before transforms; ``.data`` is a uint8
    array ``(N, 32, 32, 3)`` and ``.targets`` a list of ints, as in torchvision.
    """

    base_folder = "cifar-10-batches-bin"
    url = "https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz"
    filename = "cifar-10-binary.tar.gz"
    tgz_md5 = "c32a1d4ab5d03f1284b67883e8d87530"
    train_list = ["data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin", "data_batch_4.bin", "data_batch_5.bin"]
    test_list = ["test_batch.bin"]
    meta_file = "batches.meta.txt"
    num_classes = 10

    def __init__(self, root, train: bool = True, transform=None, target_transform=None, download: bool = False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = train
        if download:
            self.download()
        if not self._check_integrity():
            missing = [name for name in self._files() if not os.path.isfile(self._path(name))]
            raise RuntimeError(
                f"Dataset not found or corrupted: {', '.join(missing)} missing in {self._path('')}. You can use "
                f"download=True to download it, or download {self.url} yourself, check its md5 ({self.tgz_md5}) "
                f"and unpack it into {self.root}."
            )
        images, labels = [], []
        for name in self.train_list if train else self.test_list:
            batch_images, batch_labels = self._read_batch(self._path(name))
            images.append(batch_images)
            labels.append(batch_labels)
        self.data = np.concatenate(images)  # (N, 32, 32, 3), height x width x channel as PIL wants
        self.targets = np.concatenate(labels).astype(np.int64).tolist()
        self._load_meta()

    def _path(self, name: str) -> str:
        return os.path.join(self.root, self.base_folder, name)

    def _files(self) -> list[str]:
        return [*self.train_list, *self.test_list, self.meta_file]

    def _check_integrity(self) -> bool:
        return all(os.path.isfile(self._path(name)) for name in self._files())

    def _read_batch(self, path: str) -> tuple[np.ndarray, np.ndarray]:
        raw = np.fromfile(path, dtype=np.uint8)
        if raw.size == 0 or raw.size % _RECORD != 0:
            raise RuntimeError(
                f"{path} is corrupt or truncated: a CIFAR-10 binary batch is a whole number of {_RECORD}-byte records, "
                f"and it has {raw.size} bytes"
            )
        records = raw.reshape(-1, _RECORD)
        labels = records[:, 0]
        if labels.max() >= self.num_classes:
            raise RuntimeError(f"{path} is corrupt: it has a label {int(labels.max())}, CIFAR-10 labels are 0-9")
        # Planes of 1024 red, then green, then blue values -> (N, 3, 32, 32) -> (N, 32, 32, 3).
        images = records[:, 1:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
        return np.ascontiguousarray(images), labels

    def _load_meta(self) -> None:
        with open(self._path(self.meta_file), encoding="utf-8") as file:
            names = [line.strip() for line in file if line.strip()]
        if len(names) != self.num_classes:
            raise RuntimeError(f"{self._path(self.meta_file)} should name {self.num_classes} classes, one per line; "
                               f"it names {len(names)}")
        self.classes = names
        self.class_to_idx = {name: index for index, name in enumerate(names)}

    def download(self) -> None:
        """Fetch the archive, check its MD5 and unpack it (nothing half-written on failure)."""
        if self._check_integrity():
            return
        download_and_extract_archive(self.url, self.root, filename=self.filename, md5=self.tgz_md5)

    def __getitem__(self, index: int):
        image = Image.fromarray(self.data[index])
        return self._apply_transforms(image, self.targets[index])

    def __len__(self) -> int:
        return len(self.data)

    def extra_repr(self) -> str:
        return f"Split: {'Train' if self.train else 'Test'}"

    def as_tensors(self):
        """All images as a uint8 tensor ``(N, 3, 32, 32)`` and the labels as int64, for fast batch work."""
        return from_numpy(np.ascontiguousarray(self.data.transpose(0, 3, 1, 2))), from_numpy(
            np.asarray(self.targets, dtype=np.int64))
