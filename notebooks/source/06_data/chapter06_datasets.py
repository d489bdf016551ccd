"""Datasets for chapter 6's worker-process demos (written by the notebook next to itself).

They live in a module, not in a notebook cell, so that DataLoader workers started with the "spawn"
start method (a fresh Python process) can import them: see section 6 of the chapter.
"""

import numpy as np

import minitorch
from minitorch.utils.data import Dataset, get_worker_info


class SlowDigits(Dataset):
    """Digits with about 2 ms of NumPy work per sample, standing in for reading and decoding an image file:
    each 8x8 digit is blown up to 512x512, blurred (through a 2-D FFT) and shrunk to 16x16."""

    def __init__(self, images, labels):
        self.images = np.asarray(images, dtype=np.float64)
        self.labels = np.asarray(labels)
        frequencies = np.fft.fftfreq(512)[:, None] ** 2 + np.fft.rfftfreq(512)[None, :] ** 2
        self.blur = np.exp(-300.0 * frequencies)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        large = np.kron(self.images[index], np.ones((64, 64)))                      # 8x8 -> 512x512
        blurred = np.fft.irfft2(np.fft.rfft2(large) * self.blur, s=large.shape)
        small = blurred.reshape(16, 32, 16, 32).mean(axis=(1, 3)).astype(np.float32)  # -> 16x16
        return minitorch.from_numpy(small), int(self.labels[index])


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
