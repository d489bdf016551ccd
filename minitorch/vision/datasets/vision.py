"""``VisionDataset``: what every image dataset shares (a root folder and the transforms)."""

from __future__ import annotations

import os

from ...utils.data.dataset import Dataset


class VisionDataset(Dataset):
    """An image dataset: ``dataset[i]`` is ``(image, target)`` after ``transform`` / ``target_transform``.

    ``transforms`` (one callable of both image and target) and the pair ``transform`` /
    ``target_transform`` are alternatives, as in torchvision.
    """

    _repr_indent = 4

    def __init__(self, root=None, transforms=None, transform=None, target_transform=None) -> None:
        if isinstance(root, (str, os.PathLike)):
            root = os.path.expanduser(os.fspath(root))
        self.root = root
        has_transforms = transforms is not None
        has_separate_transform = transform is not None or target_transform is not None
        if has_transforms and has_separate_transform:
            raise ValueError("Only transforms or transform/target_transform can be passed as argument")
        self.transform = transform
        self.target_transform = target_transform
        if has_separate_transform:
            transforms = StandardTransform(transform, target_transform)
        self.transforms = transforms

    def _apply_transforms(self, image, target):
        if self.transforms is not None:
            return self.transforms(image, target)
        return image, target

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        head = "Dataset " + self.__class__.__name__
        body = [f"Number of datapoints: {len(self)}"]  # subclasses define __len__
        if self.root is not None:
            body.append(f"Root location: {self.root}")
        body += self.extra_repr().splitlines()
        if self.transforms is not None:
            body += [repr(self.transforms)]
        lines = [head] + [" " * self._repr_indent + line for line in body]
        return "\n".join(lines)


class StandardTransform:
    """``transform`` on the image and ``target_transform`` on the target."""

    def __init__(self, transform=None, target_transform=None) -> None:
        self.transform = transform
        self.target_transform = target_transform

    def __call__(self, image, target):
        if self.transform is not None:
            image = self.transform(image)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return image, target

    def __repr__(self) -> str:
        lines = []
        if self.transform is not None:
            lines.append(f"Transform: {self.transform}")
        if self.target_transform is not None:
            lines.append(f"Target transform: {self.target_transform}")
        return "\n".join(lines)
