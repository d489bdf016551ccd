# Corpus program: "What is torch.nn really?", the CNN parts: Mnist_CNN, nn.Sequential with a
#   Lambda layer, AdaptiveAvgPool2d and WrappedDataLoader.
# Source: pytorch/tutorials, beginner_source/nn_tutorial.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: MNIST is replaced by 256 scikit-learn digits padded to 28x28; 1 epoch each.
# Randomness: weights set from NumPy; no shuffling.
import numpy as np
import torch
import torch.nn.functional as F
from sklearn.datasets import load_digits
from torch import nn, optim
from torch.utils.data import DataLoader, TensorDataset

digits = load_digits()
images = np.zeros((len(digits.images), 28, 28), dtype=np.float32)
images[:, 10:18, 10:18] = digits.images / 16.0
x_train, y_train = images[:256].reshape(-1, 784), digits.target[:256]
x_valid, y_valid = images[256:384].reshape(-1, 784), digits.target[256:384]
x_train, y_train, x_valid, y_valid = map(torch.tensor, (x_train, y_train, x_valid, y_valid))
loss_func = F.cross_entropy
rng = np.random.default_rng(18)
bs = 64
lr = 0.1


def init(model):
    with torch.no_grad():
        for p in model.parameters():
            fan_in = p[0].numel() if p.dim() > 1 else p.numel()
            p.copy_(torch.from_numpy((rng.uniform(-1, 1, tuple(p.shape)) / fan_in**0.5).astype(np.float32)))
    return model


class Mnist_CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1)
        self.conv2 = nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1)
        self.conv3 = nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1)

    def forward(self, xb):
        xb = xb.view(-1, 1, 28, 28)
        xb = F.relu(self.conv1(xb))
        xb = F.relu(self.conv2(xb))
        xb = F.relu(self.conv3(xb))
        xb = F.avg_pool2d(xb, 4)
        return xb.view(-1, xb.size(1))


def loss_batch(model, loss_func, xb, yb, opt=None):
    loss = loss_func(model(xb), yb)
    if opt is not None:
        loss.backward()
        opt.step()
        opt.zero_grad()
    return loss.item(), len(xb)


def fit(epochs, model, loss_func, opt, train_dl, valid_dl):
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_dl:
            loss_batch(model, loss_func, xb, yb, opt)
        model.eval()
        with torch.no_grad():
            losses, nums = zip(*[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl])
        val_loss = np.sum(np.multiply(losses, nums)) / np.sum(nums)
        print(epoch, f"{val_loss:.4f}")


train_dl = DataLoader(TensorDataset(x_train, y_train), batch_size=bs)
valid_dl = DataLoader(TensorDataset(x_valid, y_valid), batch_size=bs * 2)

model = init(Mnist_CNN())
opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)
fit(1, model, loss_func, opt, train_dl, valid_dl)


class Lambda(nn.Module):
    def __init__(self, func):
        super().__init__()
        self.func = func

    def forward(self, x):
        return self.func(x)


def preprocess(x, y):
    return x.view(-1, 1, 28, 28), y


class WrappedDataLoader:
    def __init__(self, dl, func):
        self.dl = dl
        self.func = func

    def __len__(self):
        return len(self.dl)

    def __iter__(self):
        for b in self.dl:
            yield (self.func(*b))


train_dl = WrappedDataLoader(train_dl, preprocess)
valid_dl = WrappedDataLoader(valid_dl, preprocess)
model = init(nn.Sequential(
    nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1), nn.ReLU(),
    nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1), nn.ReLU(),
    nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1),
    Lambda(lambda x: x.view(x.size(0), -1)),
))
print(model)
opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)
fit(1, model, loss_func, opt, train_dl, valid_dl)
