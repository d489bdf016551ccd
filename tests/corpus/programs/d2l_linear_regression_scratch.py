# Corpus program: "Linear Regression Implementation from Scratch" of Dive into Deep Learning.
# Source: d2l-ai/d2l-en, chapter_linear-networks/linear-regression-scratch.md (PyTorch tab,
#   first edition's synthetic_data, data_iter, linreg, squared_loss and sgd)
# Licence: MIT-0 (d2l-en's sample code, LICENSE-SAMPLECODE); re-written here following the section.
# Changes: the noise and the initial weights come from NumPy (torch.normal draws different streams);
#   Python's random module (seeded) shuffles, as in the book.
# Randomness: NumPy for the data and w; random.seed(0) for the shuffling.
import random

import numpy as np
import torch

rng = np.random.default_rng(51)


def synthetic_data(w, b, num_examples):
    X = torch.tensor(rng.normal(0, 1, (num_examples, len(w))), dtype=torch.float32)
    y = torch.matmul(X, w) + b
    y += torch.tensor(rng.normal(0, 0.01, tuple(y.shape)), dtype=torch.float32)
    return X, y.reshape((-1, 1))


true_w = torch.tensor([2, -3.4])
true_b = 4.2
features, labels = synthetic_data(true_w, true_b, 1000)
print("features:", features[0], "\nlabel:", labels[0])


def data_iter(batch_size, features, labels):
    num_examples = len(features)
    indices = list(range(num_examples))
    random.shuffle(indices)
    for i in range(0, num_examples, batch_size):
        batch_indices = torch.tensor(indices[i: min(i + batch_size, num_examples)])
        yield features[batch_indices], labels[batch_indices]


random.seed(0)
batch_size = 10
for X, y in data_iter(batch_size, features, labels):
    print(X, "\n", y)
    break

w = torch.tensor(rng.normal(0, 0.01, (2, 1)), dtype=torch.float32, requires_grad=True)
b = torch.zeros(1, requires_grad=True)


def linreg(X, w, b):
    return torch.matmul(X, w) + b


def squared_loss(y_hat, y):
    return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2


def sgd(params, lr, batch_size):
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()


lr = 0.03
num_epochs = 3
net = linreg
loss = squared_loss
for epoch in range(num_epochs):
    for X, y in data_iter(batch_size, features, labels):
        l = loss(net(X, w, b), y)  # noqa: E741
        l.sum().backward()
        sgd([w, b], lr, batch_size)
    with torch.no_grad():
        train_l = loss(net(features, w, b), labels)
        print(f"epoch {epoch + 1}, loss {float(train_l.mean()):f}")
print(f"error in estimating w: {true_w - w.reshape(true_w.shape)}")
print(f"error in estimating b: {true_b - b}")
