# Corpus program: "Implementation of Softmax Regression from Scratch" of Dive into Deep Learning.
# Source: d2l-ai/d2l-en, chapter_linear-networks/softmax-regression-scratch.md (PyTorch tab)
# Licence: MIT-0 (d2l-en's sample code, LICENSE-SAMPLECODE); re-written here following the section.
# Changes: Fashion-MNIST is replaced by 256 + 64 NumPy images with learnable labels; the d2l
#   helpers (Accumulator, accuracy, sgd, train_epoch_ch3) are written out; 3 epochs; no plots.
# Randomness: data and W's torch.normal draw from NumPy; no shuffling.
import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(61)


def make(n):
    x = rng.random((n, 1, 28, 28), dtype=np.float32)
    y = rng.integers(0, 10, n)
    x[np.arange(n), 0, y * 2, :] += 1.5
    return TensorDataset(torch.from_numpy(x), torch.from_numpy(y))


batch_size = 64
train_iter = DataLoader(make(256), batch_size)
test_iter = DataLoader(make(64), batch_size)

num_inputs = 784
num_outputs = 10
W = torch.tensor(rng.normal(0, 0.01, (num_inputs, num_outputs)), dtype=torch.float32, requires_grad=True)
b = torch.zeros(num_outputs, requires_grad=True)

X = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print(X.sum(0, keepdim=True), X.sum(1, keepdim=True))


def softmax(X):
    X_exp = torch.exp(X)
    partition = X_exp.sum(1, keepdim=True)
    return X_exp / partition  # The broadcasting mechanism is applied here


X = torch.tensor(rng.normal(0, 1, (2, 5)), dtype=torch.float32)
X_prob = softmax(X)
print(X_prob, X_prob.sum(1))


def net(X):
    return softmax(torch.matmul(X.reshape((-1, W.shape[0])), W) + b)


y = torch.tensor([0, 2])
y_hat = torch.tensor([[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]])
print(y_hat[[0, 1], y])


def cross_entropy(y_hat, y):
    return -torch.log(y_hat[range(len(y_hat)), y])


print(cross_entropy(y_hat, y))


def accuracy(y_hat, y):
    """Compute the number of correct predictions."""
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.type(y.dtype) == y
    return float(cmp.type(y.dtype).sum())


print(accuracy(y_hat, y) / len(y))


class Accumulator:
    """For accumulating sums over `n` variables."""

    def __init__(self, n):
        self.data = [0.0] * n

    def add(self, *args):
        self.data = [a + float(b) for a, b in zip(self.data, args)]

    def reset(self):
        self.data = [0.0] * len(self.data)

    def __getitem__(self, idx):
        return self.data[idx]


def evaluate_accuracy(net, data_iter):
    """Compute the accuracy for a model on a dataset."""
    if isinstance(net, torch.nn.Module):
        net.eval()  # Set the model to evaluation mode
    metric = Accumulator(2)  # No. of correct predictions, no. of predictions
    with torch.no_grad():
        for X, y in data_iter:
            metric.add(accuracy(net(X), y), y.numel())
    return metric[0] / metric[1]


print(evaluate_accuracy(net, test_iter))


def sgd(params, lr, batch_size):
    """Minibatch stochastic gradient descent."""
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()


def train_epoch_ch3(net, train_iter, loss, updater):
    """The training loop defined in Chapter 3."""
    if isinstance(net, torch.nn.Module):
        net.train()
    metric = Accumulator(3)
    for X, y in train_iter:
        y_hat = net(X)
        l = loss(y_hat, y)  # noqa: E741 - as in the book
        if isinstance(updater, torch.optim.Optimizer):
            updater.zero_grad()
            l.mean().backward()
            updater.step()
        else:
            l.sum().backward()
            updater(X.shape[0])
        metric.add(float(l.sum()), accuracy(y_hat, y), y.numel())
    return metric[0] / metric[2], metric[1] / metric[2]


lr = 0.1


def updater(batch_size):
    return sgd([W, b], lr, batch_size)


for epoch in range(3):
    train_metrics = train_epoch_ch3(net, train_iter, cross_entropy, updater)
    test_acc = evaluate_accuracy(net, test_iter)
    print(epoch + 1, f"{train_metrics[0]:.4f} {train_metrics[1]:.4f} {test_acc:.4f}")
