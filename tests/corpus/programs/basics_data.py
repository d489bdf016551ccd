# Corpus program: "Datasets & DataLoaders" of PyTorch's "Learn the Basics".
# Source: pytorch/tutorials, beginner_source/basics/data_tutorial.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: the custom image dataset reads 12 images of 28x28 made with NumPy and an in-memory
#   annotations list instead of files on disk (no pandas, no torchvision.io.read_image).
# Randomness: the images come from NumPy; the loader does not shuffle.
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

rng = np.random.default_rng(1)
IMAGES = {f"img{i}.png": rng.integers(0, 256, (1, 28, 28), dtype=np.uint8) for i in range(12)}
ANNOTATIONS = [(f"img{i}.png", i % 10) for i in range(12)]


class CustomImageDataset(Dataset):
    def __init__(self, annotations, images, transform=None, target_transform=None):
        self.img_labels = annotations
        self.images = images
        self.transform = transform
        self.target_transform = target_transform

    def __len__(self):
        return len(self.img_labels)

    def __getitem__(self, idx):
        name, label = self.img_labels[idx]
        image = torch.from_numpy(self.images[name])
        if self.transform:
            image = self.transform(image)
        if self.target_transform:
            label = self.target_transform(label)
        return image, label


labels_map = {0: "T-Shirt", 1: "Trouser", 2: "Pullover", 3: "Dress", 4: "Coat",
              5: "Sandal", 6: "Shirt", 7: "Sneaker", 8: "Bag", 9: "Ankle Boot"}

training_data = CustomImageDataset(ANNOTATIONS, IMAGES, transform=lambda image: image.float() / 255)
print(len(training_data))
for i in range(3):
    img, label = training_data[i]
    print(labels_map[label], tuple(img.shape), f"{img.mean().item():.4f}")

train_dataloader = DataLoader(training_data, batch_size=4, shuffle=False)
train_features, train_labels = next(iter(train_dataloader))
print(f"Feature batch shape: {train_features.size()}")
print(f"Labels batch shape: {train_labels.size()}")
img = train_features[0].squeeze()
label = train_labels[0]
print(tuple(img.shape), f"Label: {label}")
for batch, (X, y) in enumerate(train_dataloader):
    print(batch, X.shape, y.tolist(), f"{X.sum().item():.2f}")
