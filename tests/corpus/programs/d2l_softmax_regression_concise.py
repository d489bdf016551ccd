# Corpus program: "Concise Implementation of Softmax Regression" of Dive into Deep Learning.
# Source: d2l-ai/d2l-en, chapter_linear-networks/softmax-regression-concise.md (PyTorch tab)
# Licence: MIT-0 (d2l-en's sample code, LICENSE-SAMPLECODE); re-written here following the section.
# Changes: Fashion-MNIST (a download) is replaced by 256 + 64 NumPy images of 28x28 with learnable
#   labels; the d2l helpers (train_ch3, Accumulator, accuracy) are written out; 3 epochs; the
#   normal_(std=0.01) init draws from NumPy instead, and so does the bias, which the book leaves
#   at nn.Linear's default init (uniform in +-1/sqrt(784)): that default draws from the library's
#   own generator, unseeded here, so it differed between the two runs and between PyTorch runs.
# Randomness: data, weight and bias from NumPy; no shuffling.
import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(52)


def make(n):
    x = rng.random((n, 1, 28, 28), dtype=np.float32)
    y = rng.integers(0, 10, n)
    x[np.arange(n), 0, y * 2, :] += 1.5
    return TensorDataset(torch.from_numpy(x), torch.from_numpy(y))


batch_size = 64
train_iter = DataLoader(make(256), batch_size)
test_iter = DataLoader(make(64), batch_size)

net = nn.Sequential(nn.Flatten(), nn.Linear(784, 10))


def init_weights(m):
    if type(m) == nn.Linear:  # noqa: E721 - as in the book
        with torch.no_grad():
            m.weight.copy_(torch.tensor(rng.normal(0, 0.01, tuple(m.weight.shape)), dtype=torch.float32))
            bound = 1 / m.in_features ** 0.5
            m.bias.copy_(torch.tensor(rng.uniform(-bound, bound, tuple(m.bias.shape)), dtype=torch.float32))


net.apply(init_weights)
loss = nn.CrossEntropyLoss(reduction="none")
trainer = torch.optim.SGD(net.parameters(), lr=0.1)


class Accumulator:
    def __init__(self, n):
        self.data = [0.0] * n

    def add(self, *args):
        self.data = [a + float(b) for a, b in zip(self.data, args)]

    def __getitem__(self, idx):
        return self.data[idx]


def accuracy(y_hat, y):
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.type(y.dtype) == y
    return float(cmp.type(y.dtype).sum())


def evaluate_accuracy(net, data_iter):
    net.eval()
    metric = Accumulator(2)
    with torch.no_grad():
        for X, y in data_iter:
            metric.add(accuracy(net(X), y), y.numel())
    return metric[0] / metric[1]


def train_epoch_ch3(net, train_iter, loss, updater):
    net.train()
    metric = Accumulator(3)
    for X, y in train_iter:
        y_hat = net(X)
        l = loss(y_hat, y)  # noqa: E741
        updater.zero_grad()
        l.mean().backward()
        updater.step()
        metric.add(float(l.sum()), accuracy(y_hat, y), y.numel())
    return metric[0] / metric[2], metric[1] / metric[2]


num_epochs = 3
for epoch in range(num_epochs):
    train_metrics = train_epoch_ch3(net, train_iter, loss, trainer)
    test_acc = evaluate_accuracy(net, test_iter)
    print(epoch + 1, f"{train_metrics[0]:.4f} {train_metrics[1]:.4f} {test_acc:.4f}")
