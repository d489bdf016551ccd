# Corpus program: "Convolutional Neural Networks (LeNet)" of Dive into Deep Learning.
# Source: d2l-ai/d2l-en, chapter_convolutional-neural-networks/lenet.md (PyTorch tab)
# Licence: MIT-0 (d2l-en's sample code, LICENSE-SAMPLECODE); re-written here following the section.
# Changes: Fashion-MNIST is replaced by 128 + 64 NumPy images with learnable labels; the d2l helpers
#   (train_ch6, evaluate_accuracy_gpu, Accumulator, accuracy) are written out without timers and
#   plots; 2 epochs; the xavier_uniform_ init draws from NumPy with the same bound.
# Randomness: data and the init from NumPy (biases: the default init's bound, from NumPy too).
# corpus-tolerance: rtol=1e-4 -- sigmoid LeNet trained in float32.
import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(63)

net = nn.Sequential(
    nn.Conv2d(1, 6, kernel_size=5, padding=2), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2),
    nn.Conv2d(6, 16, kernel_size=5), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2),
    nn.Flatten(),
    nn.Linear(16 * 5 * 5, 120), nn.Sigmoid(),
    nn.Linear(120, 84), nn.Sigmoid(),
    nn.Linear(84, 10))

X = torch.rand(size=(1, 1, 28, 28), dtype=torch.float32)
for layer in net:
    X = layer(X)
    print(layer.__class__.__name__, "output shape: \t", X.shape)


def make(n):
    x = rng.random((n, 1, 28, 28), dtype=np.float32)
    y = rng.integers(0, 10, n)
    x[np.arange(n), 0, y * 2, :] += 1.5
    return TensorDataset(torch.from_numpy(x), torch.from_numpy(y))


batch_size = 32
train_iter = DataLoader(make(128), batch_size)
test_iter = DataLoader(make(64), batch_size)


def accuracy(y_hat, y):
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.type(y.dtype) == y
    return float(cmp.type(y.dtype).sum())


class Accumulator:
    def __init__(self, n):
        self.data = [0.0] * n

    def add(self, *args):
        self.data = [a + float(b) for a, b in zip(self.data, args)]

    def __getitem__(self, idx):
        return self.data[idx]


def evaluate_accuracy_gpu(net, data_iter, device=None):
    """Compute the accuracy for a model on a dataset using a GPU."""
    if isinstance(net, nn.Module):
        net.eval()  # Set the model to evaluation mode
        if not device:
            device = next(iter(net.parameters())).device
    metric = Accumulator(2)
    with torch.no_grad():
        for X, y in data_iter:
            if isinstance(X, list):
                X = [x.to(device) for x in X]
            else:
                X = X.to(device)
            y = y.to(device)
            metric.add(accuracy(net(X), y), y.numel())
    return metric[0] / metric[1]


def train_ch6(net, train_iter, test_iter, num_epochs, lr, device):
    """Train a model with a GPU (defined in Chapter 6)."""
    def init_weights(m):
        if type(m) == nn.Linear or type(m) == nn.Conv2d:  # noqa: E721 - as in the book
            fan_out, fan_in = m.weight.shape[0], m.weight[0].numel()
            receptive = m.weight[0, 0].numel() if m.weight.dim() > 2 else 1
            bound = (6 / (fan_in + fan_out * receptive)) ** 0.5
            with torch.no_grad():
                m.weight.copy_(torch.tensor(rng.uniform(-bound, bound, tuple(m.weight.shape)), dtype=torch.float32))
                m.bias.copy_(torch.tensor(rng.uniform(-fan_in ** -0.5, fan_in ** -0.5, tuple(m.bias.shape)),
                                          dtype=torch.float32))
    net.apply(init_weights)
    print("training on", device)
    net.to(device)
    optimizer = torch.optim.SGD(net.parameters(), lr=lr)
    loss = nn.CrossEntropyLoss()
    for epoch in range(num_epochs):
        metric = Accumulator(3)
        net.train()
        for i, (X, y) in enumerate(train_iter):
            optimizer.zero_grad()
            X, y = X.to(device), y.to(device)
            y_hat = net(X)
            l = loss(y_hat, y)  # noqa: E741
            l.backward()
            optimizer.step()
            with torch.no_grad():
                metric.add(l * X.shape[0], accuracy(y_hat, y), X.shape[0])
        train_l = metric[0] / metric[2]
        train_acc = metric[1] / metric[2]
        test_acc = evaluate_accuracy_gpu(net, test_iter)
        print(f"epoch {epoch + 1}: loss {train_l:.4f}, train acc {train_acc:.3f}, test acc {test_acc:.3f}")


def try_gpu(i=0):
    if torch.cuda.device_count() >= i + 1:
        return torch.device(f"cuda:{i}")
    return torch.device("cpu")


lr, num_epochs = 0.9, 2
train_ch6(net, train_iter, test_iter, num_epochs, lr, try_gpu())
