"""MNIST and Fashion-MNIST: 28x28 gray images in IDX files.

The IDX format (LeCun's): a 4-byte *magic number* ``0 0 <type> <ndim>``, then ``ndim``
big-endian int32 sizes, then the values, big-endian, row-major. ``read_idx`` checks every
part of that, so a truncated or corrupt file is reported by name instead of loading garbage.

Files live in ``root/<ClassName>/raw/`` (``root/MNIST/raw/train-images-idx3-ubyte``...), as
in torchvision, so a folder prepared for torchvision works here too.
"""

from __future__ import annotations

import os

import numpy as np
from PIL import Image

from ..._creation import from_numpy
from .utils import DownloadError, download_and_extract_archive
from .vision import VisionDataset

__all__ = ["MNIST", "FashionMNIST", "read_idx"]

# IDX type code -> element type (big-endian, as the format stores it).
_IDX_TYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}


def read_idx(path: str | os.PathLike) -> np.ndarray:
    """The array stored in an IDX file (raises ``RuntimeError`` naming the file if it is malformed)."""
    with open(path, "rb") as file:
        content = file.read()
    if len(content) < 4 or content[0] != 0 or content[1] != 0 or content[2] not in _IDX_TYPES:
        raise RuntimeError(f"{path} is not an IDX file: its first 4 bytes are not 0, 0, a type code and a rank")
    dtype = np.dtype(_IDX_TYPES[content[2]])
    ndim = content[3]
    header = 4 + 4 * ndim
    if len(content) < header:
        raise RuntimeError(f"{path} is truncated: it ends inside its header")
    shape = tuple(int(s) for s in np.frombuffer(content, dtype=">i4", count=ndim, offset=4))
    expected = header + int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if len(content) != expected:
        state = "truncated" if len(content) < expected else "corrupt (longer than its header says)"
        raise RuntimeError(
            f"{path} is {state}: its header announces shape {shape} ({expected} bytes), the file has {len(content)}"
        )
    # Native byte order, writable: what a tensor expects.
    return np.frombuffer(content, dtype=dtype, offset=header).astype(dtype.newbyteorder("="), copy=True).reshape(shape)


class MNIST(VisionDataset):
    """The MNIST handwritten digits (60,000 training and 10,000 test images, 28x28, labels 0-9).

    ``dataset[i]`` is ``(PIL image in mode "L", int label)`` before transforms; ``.data`` holds
    all images as a uint8 tensor ``(N, 28, 28)`` and ``.targets`` the labels (int64).

    ``download=True`` fetches the four ``.gz`` files from the first mirror that answers,
    checks each MD5, and unpacks them; see ``minitorch.vision.datasets.utils``.
    """

    mirrors = ["https://ossci-datasets.s3.amazonaws.com/mnist/", "http://yann.lecun.com/exdb/mnist/"]
    resources = [
        ("train-images-idx3-ubyte.gz", "f68b3c2dcbeaaa9fbdd348bbdeb94873"),
        ("train-labels-idx1-ubyte.gz", "d53e105ee54ea40749a09fcbcd1e9432"),
        ("t10k-images-idx3-ubyte.gz", "9fb629c4189551a2d022fa330f9573f3"),
        ("t10k-labels-idx1-ubyte.gz", "ec29112dd5afa0611ce80d1b7f02629c"),
    ]
    training_file = "training.pt"  # torchvision's names, kept for code that reads them
    test_file = "test.pt"
    classes = ["0 - zero", "1 - one", "2 - two", "3 - three", "4 - four", "5 - five", "6 - six", "7 - seven",
               "8 - eight", "9 - nine"]

    def __init__(self, root, train: bool = True, transform=None, target_transform=None, download: bool = False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = train
        if download:
            self.download()
        if not self._check_exists():
            missing = [name for name in self._raw_files() if not os.path.isfile(os.path.join(self.raw_folder, name))]
            raise RuntimeError(
                f"Dataset not found: {', '.join(missing)} missing in {self.raw_folder}. You can use download=True to "
                f"download it, or put the files there by hand (from {self.mirrors[0]}, unpacked with gunzip)."
            )
        self.data, self.targets = self._load_data()

    @property
    def raw_folder(self) -> str:
        return os.path.join(self.root, self.__class__.__name__, "raw")

    @property
    def class_to_idx(self) -> dict[str, int]:
        return {name: index for index, name in enumerate(self.classes)}

    def _raw_files(self) -> list[str]:
        return [os.path.splitext(name)[0] for name, _ in self.resources]

    def _check_exists(self) -> bool:
        return all(os.path.isfile(os.path.join(self.raw_folder, name)) for name in self._raw_files())

    def _load_data(self):
        split = "train" if self.train else "t10k"
        image_path = os.path.join(self.raw_folder, f"{split}-images-idx3-ubyte")
        label_path = os.path.join(self.raw_folder, f"{split}-labels-idx1-ubyte")
        images, labels = read_idx(image_path), read_idx(label_path)
        if images.ndim != 3 or images.dtype != np.uint8:
            raise RuntimeError(f"{image_path} should hold uint8 images (N, H, W); it holds {images.dtype} "
                               f"{images.shape}")
        if labels.ndim != 1 or labels.shape[0] != images.shape[0]:
            raise RuntimeError(
                f"{label_path} should hold one label per image of {image_path} ({images.shape[0]}); it holds shape "
                f"{labels.shape}"
            )
        return from_numpy(images), from_numpy(labels.astype(np.int64))

    def download(self) -> None:
        """Fetch and unpack the raw files that are missing (verified by MD5; nothing half-written on failure)."""
        if self._check_exists():
            return
        os.makedirs(self.raw_folder, exist_ok=True)
        for filename, md5 in self.resources:
            if os.path.isfile(os.path.join(self.raw_folder, os.path.splitext(filename)[0])):
                continue
            errors = []
            for mirror in self.mirrors:
                try:
                    download_and_extract_archive(mirror + filename, self.raw_folder, filename=filename, md5=md5)
                    break
                except DownloadError as error:
                    errors.append(str(error))
            else:
                raise RuntimeError(
                    f"Error downloading {filename} from every mirror:\n" + "\n".join(errors)
                    + f"\nPut the unpacked file at {os.path.join(self.raw_folder, os.path.splitext(filename)[0])} "
                    "yourself and try again."
                )

    def __getitem__(self, index: int):
        image = Image.fromarray(self.data._data[index], mode="L")
        return self._apply_transforms(image, int(self.targets._data[index]))

    def __len__(self) -> int:
        return len(self.data)

    def extra_repr(self) -> str:
        return f"Split: {'Train' if self.train else 'Test'}"


class FashionMNIST(MNIST):
    """Zalando's Fashion-MNIST: 28x28 gray images of 10 kinds of clothing, in MNIST's format."""

    mirrors = ["http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"]
    resources = [
        ("train-images-idx3-ubyte.gz", "8d4fb7e6c68d591d4c3dfef9ec88bf0d"),
        ("train-labels-idx1-ubyte.gz", "25c81989df183df01b3e8a0aad5dffbe"),
        ("t10k-images-idx3-ubyte.gz", "bef4ecab320f06d8554ea6380940ec79"),
        ("t10k-labels-idx1-ubyte.gz", "bb300cfdad3c16e7a12a480ee83cd310"),
    ]
    classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag",
               "Ankle boot"]
