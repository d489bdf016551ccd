# Corpus program: "Batch Normalization" of Dive into Deep Learning (from scratch, and the concise version).
# Source: d2l-ai/d2l-en, chapter_convolutional-modern/batch-norm.md (PyTorch tab)
# Licence: MIT-0 (d2l-en's sample code, LICENSE-SAMPLECODE); re-written here following the section.
# Changes: Fashion-MNIST is replaced by 64 NumPy images with learnable labels; one epoch of the
#   LeNet with batch norm (train_ch6 written out without plots); the default inits of the
#   convolutions and linear layers are replaced by NumPy draws with the same bounds.
# Randomness: data and weights from NumPy; no shuffling.
# corpus-tolerance: rtol=1e-4 -- batch statistics and SGD steps in float32.
import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(65)


def batch_norm(X, gamma, beta, moving_mean, moving_var, eps, momentum):
    # Use `is_grad_enabled` to determine whether we are in training mode
    if not torch.is_grad_enabled():
        # In prediction mode, use mean and variance obtained by moving average
        X_hat = (X - moving_mean) / torch.sqrt(moving_var + eps)
    else:
        assert len(X.shape) in (2, 4)
        if len(X.shape) == 2:
            # When using a fully connected layer, calculate the mean and
            # variance on the feature dimension
            mean = X.mean(dim=0)
            var = ((X - mean) ** 2).mean(dim=0)
        else:
            # When using a two-dimensional convolutional layer, calculate the
            # mean and variance on the channel dimension (axis=1). Here we
            # need to maintain the shape of `X`, so that the broadcasting
            # operation can be carried out later
            mean = X.mean(dim=(0, 2, 3), keepdim=True)
            var = ((X - mean) ** 2).mean(dim=(0, 2, 3), keepdim=True)
        # In training mode, the current mean and variance are used
        X_hat = (X - mean) / torch.sqrt(var + eps)
        # Update the mean and variance using moving average
        moving_mean = (1.0 - momentum) * moving_mean + momentum * mean
        moving_var = (1.0 - momentum) * moving_var + momentum * var
    Y = gamma * X_hat + beta  # Scale and shift
    return Y, moving_mean.data, moving_var.data


class BatchNorm(nn.Module):
    # `num_features`: the number of outputs for a fully connected layer
    # or the number of output channels for a convolutional layer. `num_dims`:
    # 2 for a fully connected layer and 4 for a convolutional layer
    def __init__(self, num_features, num_dims):
        super().__init__()
        if num_dims == 2:
            shape = (1, num_features)
        else:
            shape = (1, num_features, 1, 1)
        # The scale parameter and the shift parameter (model parameters) are
        # initialized to 1 and 0, respectively
        self.gamma = nn.Parameter(torch.ones(shape))
        self.beta = nn.Parameter(torch.zeros(shape))
        # The variables that are not model parameters are initialized to 0 and
        # 1
        self.moving_mean = torch.zeros(shape)
        self.moving_var = torch.ones(shape)

    def forward(self, X):
        # If `X` is not on the main memory, copy `moving_mean` and
        # `moving_var` to the device where `X` is located
        if self.moving_mean.device != X.device:
            self.moving_mean = self.moving_mean.to(X.device)
            self.moving_var = self.moving_var.to(X.device)
        # Save the updated `moving_mean` and `moving_var`
        Y, self.moving_mean, self.moving_var = batch_norm(
            X, self.gamma, self.beta, self.moving_mean,
            self.moving_var, eps=1e-5, momentum=0.1)
        return Y


def lenet(norm):
    return nn.Sequential(
        nn.Conv2d(1, 6, kernel_size=5), norm(6, 4), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2),
        nn.Conv2d(6, 16, kernel_size=5), norm(16, 4), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2), nn.Flatten(),
        nn.Linear(16 * 4 * 4, 120), norm(120, 2), nn.Sigmoid(),
        nn.Linear(120, 84), norm(84, 2), nn.Sigmoid(),
        nn.Linear(84, 10))


def init_from_numpy(net):
    with torch.no_grad():
        for m in net:
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                bound = 1 / m.weight[0].numel() ** 0.5
                m.weight.copy_(torch.tensor(rng.uniform(-bound, bound, tuple(m.weight.shape)), dtype=torch.float32))
                m.bias.copy_(torch.tensor(rng.uniform(-bound, bound, tuple(m.bias.shape)), dtype=torch.float32))


x = rng.random((64, 1, 28, 28), dtype=np.float32)
y = rng.integers(0, 10, 64)
x[np.arange(64), 0, y * 2, :] += 1.5
train_iter = DataLoader(TensorDataset(torch.from_numpy(x), torch.from_numpy(y)), batch_size=16)


def train(net, lr):
    init_from_numpy(net)
    optimizer = torch.optim.SGD(net.parameters(), lr=lr)
    loss = nn.CrossEntropyLoss()
    net.train()
    for i, (X, y) in enumerate(train_iter):
        optimizer.zero_grad()
        l = loss(net(X), y)  # noqa: E741 - as in the book
        l.backward()
        optimizer.step()
        print(f"batch {i}: loss {l.item():.4f}")


net = lenet(lambda channels, dims: BatchNorm(channels, num_dims=dims))
train(net, lr=1.0)
print(net[1].gamma.reshape((-1,)), net[1].beta.reshape((-1,)))
print(net[1].moving_mean.reshape((-1,)))


def concise(channels, dims):
    return nn.BatchNorm2d(channels) if dims == 4 else nn.BatchNorm1d(channels)


net = lenet(concise)
train(net, lr=1.0)
print(net[1].weight, net[1].bias)
print(net[1].running_mean, net[1].num_batches_tracked)
net.eval()
with torch.no_grad():
    print(net(torch.from_numpy(x[:4])).argmax(1))
