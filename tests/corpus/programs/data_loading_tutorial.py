# Corpus program: "Writing Custom Datasets, DataLoaders and Transforms": a landmarks Dataset,
#   the Rescale / RandomCrop / ToTensor transform classes, Compose and a DataLoader.
# Source: pytorch/tutorials, beginner_source/data_loading_tutorial.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: the faces dataset (a download of images and a CSV) is replaced by 6 NumPy images and
#   landmark arrays held in memory; skimage's resize is replaced by nearest-neighbour sampling
#   with NumPy; torchvision's Compose is written out (torchvision is not installed beside the CPU
#   build of PyTorch here); no plots.
# Randomness: NumPy's global generator, seeded, crops the images, as in the tutorial.
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

np.random.seed(0)
FACES = [(f"person-{i}.jpg", np.random.randint(0, 256, (40 + 4 * i, 36 + 2 * i, 3), dtype=np.uint8),
          np.random.rand(68, 2) * [36 + 2 * i, 40 + 4 * i]) for i in range(6)]


class FaceLandmarksDataset(Dataset):
    def __init__(self, faces, transform=None):
        self.faces = faces
        self.transform = transform

    def __len__(self):
        return len(self.faces)

    def __getitem__(self, idx):
        if torch.is_tensor(idx):
            idx = idx.tolist()
        name, image, landmarks = self.faces[idx]
        landmarks = np.array([landmarks], dtype=float).reshape(-1, 2)
        sample = {"image": image, "landmarks": landmarks}
        if self.transform:
            sample = self.transform(sample)
        return sample


face_dataset = FaceLandmarksDataset(FACES)
for i, sample in enumerate(face_dataset):
    print(i, sample["image"].shape, sample["landmarks"].shape)
    if i == 2:
        break


class Rescale:
    def __init__(self, output_size):
        assert isinstance(output_size, (int, tuple))
        self.output_size = output_size

    def __call__(self, sample):
        image, landmarks = sample["image"], sample["landmarks"]
        h, w = image.shape[:2]
        if isinstance(self.output_size, int):
            if h > w:
                new_h, new_w = self.output_size * h / w, self.output_size
            else:
                new_h, new_w = self.output_size, self.output_size * w / h
        else:
            new_h, new_w = self.output_size
        new_h, new_w = int(new_h), int(new_w)
        rows = (np.arange(new_h) * h // new_h)[:, None]
        cols = (np.arange(new_w) * w // new_w)[None, :]
        img = image[rows, cols] / 255.0
        landmarks = landmarks * [new_w / w, new_h / h]
        return {"image": img, "landmarks": landmarks}


class RandomCrop:
    def __init__(self, output_size):
        assert isinstance(output_size, (int, tuple))
        if isinstance(output_size, int):
            self.output_size = (output_size, output_size)
        else:
            assert len(output_size) == 2
            self.output_size = output_size

    def __call__(self, sample):
        image, landmarks = sample["image"], sample["landmarks"]
        h, w = image.shape[:2]
        new_h, new_w = self.output_size
        top = np.random.randint(0, h - new_h + 1)
        left = np.random.randint(0, w - new_w + 1)
        image = image[top: top + new_h, left: left + new_w]
        landmarks = landmarks - [left, top]
        return {"image": image, "landmarks": landmarks}


class ToTensor:
    def __call__(self, sample):
        image, landmarks = sample["image"], sample["landmarks"]
        image = image.transpose((2, 0, 1))
        return {"image": torch.from_numpy(image), "landmarks": torch.from_numpy(landmarks)}


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, sample):
        for transform in self.transforms:
            sample = transform(sample)
        return sample


scale = Rescale(32)
crop = RandomCrop(28)
composed = Compose([Rescale(32), RandomCrop(28)])
sample = face_dataset[5]
for tsfrm in [scale, crop, composed]:
    transformed_sample = tsfrm(sample)
    print(type(tsfrm).__name__, transformed_sample["image"].shape,
          f"{transformed_sample['landmarks'].mean():.4f}")

transformed_dataset = FaceLandmarksDataset(FACES, transform=Compose([Rescale(32), RandomCrop(28), ToTensor()]))
for i, sample in enumerate(transformed_dataset):
    print(i, sample["image"].size(), sample["landmarks"].size(), sample["image"].dtype)
    if i == 3:
        break

dataloader = DataLoader(transformed_dataset, batch_size=4, shuffle=False, num_workers=0)
for i_batch, sample_batched in enumerate(dataloader):
    print(i_batch, sample_batched["image"].size(), sample_batched["landmarks"].size(),
          f"{sample_batched['image'].mean().item():.5f}", f"{sample_batched['landmarks'].mean().item():.4f}")
