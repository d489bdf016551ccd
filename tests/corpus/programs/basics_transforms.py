# Corpus program: "Transforms" of PyTorch's "Learn the Basics".
# Source: pytorch/tutorials, beginner_source/basics/transforms_tutorial.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: FashionMNIST's PIL images are replaced by 8 uint8 28x28 NumPy images; the dataset is a
#   small Dataset class applying transform and target_transform. torchvision is not importable
#   beside PyTorch's CPU build here, so ToTensor and Lambda are written out with torch calls.
# Randomness: none (NumPy-made images, fixed seed).
import numpy as np
import torch
from torch.utils.data import Dataset


def ToTensor():  # torchvision.transforms.ToTensor: HWC uint8 -> CHW float in [0, 1]
    return lambda image: torch.from_numpy(image).permute(2, 0, 1).contiguous().float().div(255)


def Lambda(function):  # torchvision.transforms.Lambda
    return function


rng = np.random.default_rng(2)


class FakeFashion(Dataset):
    def __init__(self, transform=None, target_transform=None):
        self.images = rng.integers(0, 256, (8, 28, 28, 1), dtype=np.uint8)
        self.labels = [3, 1, 4, 1, 5, 9, 2, 6]
        self.transform = transform
        self.target_transform = target_transform

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        return self.transform(self.images[index]), self.target_transform(self.labels[index])


ds = FakeFashion(
    transform=ToTensor(),
    target_transform=Lambda(lambda y: torch.zeros(10, dtype=torch.float).scatter_(0, torch.tensor(y), value=1)),
)
for i in range(3):
    image, target = ds[i]
    print(image.shape, image.dtype, f"{image.min().item():.4f} {image.max().item():.4f} {image.mean().item():.4f}")
    print(target)
