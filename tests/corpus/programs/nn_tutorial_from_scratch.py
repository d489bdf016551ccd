# Corpus program: "What is torch.nn really?", part 1: a neural net from scratch (no torch.nn).
# Source: pytorch/tutorials, beginner_source/nn_tutorial.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: MNIST (a download, pickled) is replaced by scikit-learn's bundled 8x8 digits, padded
#   to 28x28 so the shapes are the tutorial's (784 inputs, 10 classes); 2 epochs.
# Randomness: the weights come from NumPy (Xavier-scaled as in the tutorial) instead of torch.randn.
import math

import numpy as np
import torch
from sklearn.datasets import load_digits

digits = load_digits()
images = np.zeros((len(digits.images), 28, 28), dtype=np.float32)
images[:, 10:18, 10:18] = digits.images / 16.0
x_train, y_train = images[:1000].reshape(-1, 784), digits.target[:1000]
x_valid, y_valid = images[1000:1500].reshape(-1, 784), digits.target[1000:1500]
x_train, y_train, x_valid, y_valid = map(torch.tensor, (x_train, y_train, x_valid, y_valid))
n, c = x_train.shape
print(x_train.shape)
print(y_train.min(), y_train.max())

rng = np.random.default_rng(16)
weights = torch.tensor(rng.standard_normal((784, 10)) / math.sqrt(784), dtype=torch.float32)
weights.requires_grad_()
bias = torch.zeros(10, requires_grad=True)


def log_softmax(x):
    return x - x.exp().sum(-1).log().unsqueeze(-1)


def model(xb):
    return log_softmax(xb @ weights + bias)


bs = 64
xb = x_train[0:bs]
preds = model(xb)
print(preds[0], preds.shape)


def nll(input, target):
    return -input[range(target.shape[0]), target].mean()


loss_func = nll
yb = y_train[0:bs]
print(loss_func(preds, yb))


def accuracy(out, yb):
    preds = torch.argmax(out, dim=1)
    return (preds == yb).float().mean()


print(accuracy(preds, yb))

lr = 0.5
epochs = 2
for epoch in range(epochs):
    for i in range((n - 1) // bs + 1):
        start_i = i * bs
        end_i = start_i + bs
        xb = x_train[start_i:end_i]
        yb = y_train[start_i:end_i]
        pred = model(xb)
        loss = loss_func(pred, yb)
        loss.backward()
        with torch.no_grad():
            weights -= weights.grad * lr
            bias -= bias.grad * lr
            weights.grad.zero_()
            bias.grad.zero_()

print(f"{loss_func(model(xb), yb).item():.4f}", f"{accuracy(model(xb), yb).item():.4f}")
print(f"{loss_func(model(x_valid), y_valid).item():.4f}", f"{accuracy(model(x_valid), y_valid).item():.4f}")
