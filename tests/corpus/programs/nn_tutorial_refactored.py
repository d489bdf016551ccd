# Corpus program: "What is torch.nn really?", parts 2-3: nn.functional, nn.Module, nn.Linear, optim,
#   Dataset, DataLoader, validation and the fit()/get_data() helpers.
# Source: pytorch/tutorials, beginner_source/nn_tutorial.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: MNIST is replaced by scikit-learn's bundled digits padded to 28x28; 2 epochs; the
#   training loader does not shuffle (the two libraries would shuffle differently).
# Randomness: weights set from NumPy; no shuffling.
import math

import numpy as np
import torch
import torch.nn.functional as F
from sklearn.datasets import load_digits
from torch import nn, optim
from torch.utils.data import DataLoader, TensorDataset

digits = load_digits()
images = np.zeros((len(digits.images), 28, 28), dtype=np.float32)
images[:, 10:18, 10:18] = digits.images / 16.0
x_train, y_train = images[:1000].reshape(-1, 784), digits.target[:1000]
x_valid, y_valid = images[1000:1500].reshape(-1, 784), digits.target[1000:1500]
x_train, y_train, x_valid, y_valid = map(torch.tensor, (x_train, y_train, x_valid, y_valid))

loss_func = F.cross_entropy
rng = np.random.default_rng(17)


class Mnist_Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = nn.Parameter(torch.tensor(rng.standard_normal((784, 10)) / math.sqrt(784),
                                                 dtype=torch.float32))
        self.bias = nn.Parameter(torch.zeros(10))

    def forward(self, xb):
        return xb @ self.weights + self.bias


class Mnist_Linear(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(784, 10)

    def forward(self, xb):
        return self.lin(xb)


bs = 64
lr = 0.5
model = Mnist_Logistic()
print(f"{loss_func(model(x_train[0:bs]), y_train[0:bs]).item():.4f}")


def get_model(cls):
    model = cls()
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.from_numpy(rng.uniform(-0.03, 0.03, tuple(p.shape)).astype(np.float32)))
    return model, optim.SGD(model.parameters(), lr=lr)


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


def get_data(train_ds, valid_ds, bs):
    return (DataLoader(train_ds, batch_size=bs, shuffle=False), DataLoader(valid_ds, batch_size=bs * 2))


train_ds = TensorDataset(x_train, y_train)
valid_ds = TensorDataset(x_valid, y_valid)
train_dl, valid_dl = get_data(train_ds, valid_ds, bs)
for cls in (Mnist_Logistic, Mnist_Linear):
    model, opt = get_model(cls)
    fit(2, model, loss_func, opt, train_dl, valid_dl)

model = nn.Sequential(nn.Linear(784, 64), nn.ReLU(), nn.Linear(64, 10))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.05, 0.05, tuple(p.shape)).astype(np.float32)))
opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
fit(2, model, loss_func, opt, train_dl, valid_dl)
