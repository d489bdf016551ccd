"""Datasets for chapter 6's worker-process demos (written by the notebook next to itself).

They live in a module, not in a notebook cell, so that DataLoader workers started with the "spawn"
start method (a fresh Python process) can import them: see section 6 of the chapter.
"""

import time

import numpy as np

import minitorch
from minitorch.utils.data import Dataset, get_worker_info


class SlowReads(Dataset):
    """Digits that take ``seconds`` to read each, standing in for files on a disk or a network share: the
    time is spent waiting (``time.sleep``), not computing, as a process does while the disk fetches a file."""

    def __init__(self, images, labels, seconds=0.004):
        self.images = np.asarray(images, dtype=np.float32)
        self.labels = np.asarray(labels)
        self.seconds = seconds

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        time.sleep(self.seconds)                     # waiting for the "disk": no CPU used
        return minitorch.from_numpy(self.images[index].reshape(-1)), int(self.labels[index])


class DigitImages(Dataset):
    """uint8 images (N, H, W) and their labels; ``transform`` prepares each image as it is loaded."""

    def __init__(self, images, labels, transform=None):
        self.images = np.asarray(images)
        self.labels = np.asarray(labels)
        self.transform = transform

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        image = self.images[index]
        if self.transform is not None:
            image = self.transform(image)
        return image, int(self.labels[index])


class WhoLoadedMe(Dataset):
    """Each sample tells which worker loaded it and draws two random numbers: one from NumPy's global
    generator, one from the dataset's own generator ``self.rng``."""

    def __init__(self, size):
        self.size = size
        self.rng = np.random.default_rng(0)

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        info = get_worker_info()                     # None in the main process
        worker = -1 if info is None else info.id
        return index, worker, np.random.random(), self.rng.random()


def reseed_dataset_generator(worker_id):
    """A worker_init_fn: give this worker's copy of the dataset a generator of its own."""
    info = get_worker_info()
    info.dataset.rng = np.random.default_rng(info.seed)
