# Corpus program: "Implementation of Multilayer Perceptrons from Scratch" of Dive into Deep Learning.
# Source: d2l-ai/d2l-en, chapter_multilayer-perceptrons/mlp-scratch.md (PyTorch tab)
# Licence: MIT-0 (d2l-en's sample code, LICENSE-SAMPLECODE); re-written here following the section.
# Changes: Fashion-MNIST is replaced by 256 + 64 NumPy images with learnable labels; 3 epochs;
#   the parameters' torch.randn * 0.01 draws come from NumPy.
# Randomness: data and parameters from NumPy; no shuffling.
import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(53)


def make(n):
    x = rng.random((n, 1, 28, 28), dtype=np.float32)
    y = rng.integers(0, 10, n)
    x[np.arange(n), 0, :, y * 2] += 1.5
    return TensorDataset(torch.from_numpy(x), torch.from_numpy(y))


batch_size = 64
train_iter = DataLoader(make(256), batch_size)
test_iter = DataLoader(make(64), batch_size)

num_inputs, num_outputs, num_hiddens = 784, 10, 256
W1 = nn.Parameter(torch.tensor(rng.standard_normal((num_inputs, num_hiddens)), dtype=torch.float32) * 0.01)
b1 = nn.Parameter(torch.zeros(num_hiddens, requires_grad=True))
W2 = nn.Parameter(torch.tensor(rng.standard_normal((num_hiddens, num_outputs)), dtype=torch.float32) * 0.01)
b2 = nn.Parameter(torch.zeros(num_outputs, requires_grad=True))
params = [W1, b1, W2, b2]


def relu(X):
    a = torch.zeros_like(X)
    return torch.max(X, a)


def net(X):
    X = X.reshape((-1, num_inputs))
    H = relu(X @ W1 + b1)
    return (H @ W2 + b2)


loss = nn.CrossEntropyLoss(reduction="none")
num_epochs, lr = 3, 0.1
updater = torch.optim.SGD(params, lr=lr)
for epoch in range(num_epochs):
    total, correct, count = 0.0, 0.0, 0
    for X, y in train_iter:
        y_hat = net(X)
        l = loss(y_hat, y)  # noqa: E741
        updater.zero_grad()
        l.mean().backward()
        updater.step()
        total += float(l.sum())
        correct += float((y_hat.argmax(axis=1) == y).sum())
        count += y.numel()
    with torch.no_grad():
        test_correct = sum(float((net(X).argmax(axis=1) == y).sum()) for X, y in test_iter)
    print(epoch + 1, f"{total / count:.4f} {correct / count:.4f} {test_correct / 64:.4f}")
print(isinstance(W1, torch.Tensor), W1.requires_grad, type(W1).__name__)
