"""``ImageFolder``: a dataset from a folder per class.

    root/cat/001.png
    root/cat/002.jpg
    root/dog/001.png

The classes are the sub-folder names, sorted (``cat`` -> 0, ``dog`` -> 1); the samples are
the image files inside them, sorted, found recursively. ``DatasetFolder`` is the same for
any file type, with your own ``loader``.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from PIL import Image, UnidentifiedImageError

from .vision import VisionDataset

__all__ = ["DatasetFolder", "ImageFolder", "IMG_EXTENSIONS", "default_loader", "pil_loader", "find_classes",
           "make_dataset", "has_file_allowed_extension"]

IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")


def has_file_allowed_extension(filename: str, extensions) -> bool:
    return filename.lower().endswith(extensions if isinstance(extensions, str) else tuple(extensions))


def find_classes(directory: str) -> tuple[list[str], dict[str, int]]:
    """The sorted sub-folder names and their indices."""
    classes = sorted(entry.name for entry in os.scandir(directory) if entry.is_dir())
    if not classes:
        raise FileNotFoundError(f"Couldn't find any class folder in {directory}.")
    return classes, {name: index for index, name in enumerate(classes)}


def make_dataset(directory: str, class_to_idx: dict[str, int] | None = None, extensions=None,
                 is_valid_file: Callable[[str], bool] | None = None, allow_empty: bool = False):
    """``[(path, class_index), ...]`` for every valid file under each class folder, sorted."""
    directory = os.path.expanduser(directory)
    if class_to_idx is None:
        _, class_to_idx = find_classes(directory)
    both_none = extensions is None and is_valid_file is None
    both_something = extensions is not None and is_valid_file is not None
    if both_none or both_something:
        raise ValueError("Both extensions and is_valid_file cannot be None or not None at the same time")
    if extensions is not None:
        def is_valid_file(path: str) -> bool:
            return has_file_allowed_extension(path, extensions)

    instances = []
    available_classes = set()
    for target_class in sorted(class_to_idx):
        class_index = class_to_idx[target_class]
        target_dir = os.path.join(directory, target_class)
        if not os.path.isdir(target_dir):
            continue
        for folder, _, names in sorted(os.walk(target_dir, followlinks=True)):
            for name in sorted(names):
                path = os.path.join(folder, name)
                if is_valid_file(path):
                    instances.append((path, class_index))
                    available_classes.add(target_class)
    empty_classes = set(class_to_idx) - available_classes
    if empty_classes and not allow_empty:
        message = f"Found no valid file for the classes {', '.join(sorted(empty_classes))}. "
        if extensions is not None:
            names = extensions if isinstance(extensions, str) else ", ".join(extensions)
            message += f"Supported extensions are: {names}"
        raise FileNotFoundError(message)
    return instances


def pil_loader(path: str) -> Image.Image:
    """Open an image file as RGB (raises ``OSError`` naming the file when Pillow cannot read it)."""
    try:
        with open(path, "rb") as file:
            image = Image.open(file)
            return image.convert("RGB")
    except (UnidentifiedImageError, OSError, SyntaxError) as error:
        raise OSError(f"cannot read image file {path} (corrupt, truncated or not an image?): {error}") from error


default_loader = pil_loader


class DatasetFolder(VisionDataset):
    """Samples ``(loader(path), class_index)`` from ``root/<class>/<file>``."""

    def __init__(self, root, loader: Callable, extensions=None, transform=None, target_transform=None,
                 is_valid_file=None, allow_empty: bool = False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        classes, class_to_idx = self.find_classes(self.root)
        samples = self.make_dataset(self.root, class_to_idx, extensions, is_valid_file, allow_empty=allow_empty)
        self.loader = loader
        self.extensions = extensions
        self.classes = classes
        self.class_to_idx = class_to_idx
        self.samples = samples
        self.targets = [target for _, target in samples]

    @staticmethod
    def make_dataset(directory, class_to_idx, extensions=None, is_valid_file=None, allow_empty: bool = False):
        if class_to_idx is None:
            raise ValueError("The class_to_idx parameter cannot be None.")
        return make_dataset(directory, class_to_idx, extensions, is_valid_file, allow_empty=allow_empty)

    def find_classes(self, directory: str):
        return find_classes(directory)

    def __getitem__(self, index: int):
        path, target = self.samples[index]
        return self._apply_transforms(self.loader(path), target)

    def __len__(self) -> int:
        return len(self.samples)


class ImageFolder(DatasetFolder):
    """``DatasetFolder`` for images: RGB PIL images from the usual image extensions."""

    def __init__(self, root, transform=None, target_transform=None, loader: Callable = default_loader,
                 is_valid_file=None, allow_empty: bool = False):
        super().__init__(root, loader, IMG_EXTENSIONS if is_valid_file is None else None, transform=transform,
                         target_transform=target_transform, is_valid_file=is_valid_file, allow_empty=allow_empty)
        self.imgs = self.samples
