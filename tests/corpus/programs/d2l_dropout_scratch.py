# Corpus program: "Dropout" of Dive into Deep Learning (from scratch, and the concise version).
# Source: d2l-ai/d2l-en, chapter_multilayer-perceptrons/dropout.md (PyTorch tab)
# Licence: MIT-0 (d2l-en's sample code, LICENSE-SAMPLECODE); re-written here following the section.
# Changes: Fashion-MNIST is replaced by 128 NumPy images; the masks' torch.rand draws are kept
#   only where the result does not depend on them (dropout 0 and 1, and the kept fraction's
#   expectation); the networks train with dropout 0 so that their losses are comparable; 2 epochs.
# Randomness: data and weights from NumPy; torch.rand is used only for outputs independent of it.
import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(64)


def dropout_layer(X, dropout):
    assert 0 <= dropout <= 1
    # In this case, all elements are dropped out
    if dropout == 1:
        return torch.zeros_like(X)
    # In this case, all elements are kept
    if dropout == 0:
        return X
    mask = (torch.rand(X.shape) > dropout).float()
    return mask * X / (1.0 - dropout)


X = torch.arange(16, dtype=torch.float32).reshape((2, 8))
print(X)
print(dropout_layer(X, 0.))
print(dropout_layer(X, 1.))
half = dropout_layer(X, 0.5)
print(half.shape, half.dtype, bool(((half == 0) | (half == 2 * X)).all()))

num_inputs, num_outputs, num_hiddens1, num_hiddens2 = 784, 10, 256, 256
dropout1, dropout2 = 0.0, 0.0


class Net(nn.Module):
    def __init__(self, num_inputs, num_outputs, num_hiddens1, num_hiddens2, is_training=True):
        super(Net, self).__init__()  # noqa: UP008 - as in the book
        self.num_inputs = num_inputs
        self.training = is_training
        self.lin1 = nn.Linear(num_inputs, num_hiddens1)
        self.lin2 = nn.Linear(num_hiddens1, num_hiddens2)
        self.lin3 = nn.Linear(num_hiddens2, num_outputs)
        self.relu = nn.ReLU()

    def forward(self, X):
        H1 = self.relu(self.lin1(X.reshape((-1, self.num_inputs))))
        # Use dropout only when training the model
        if self.training:
            # Add a dropout layer after the first fully connected layer
            H1 = dropout_layer(H1, dropout1)
        H2 = self.relu(self.lin2(H1))
        if self.training:
            # Add a dropout layer after the second fully connected layer
            H2 = dropout_layer(H2, dropout2)
        out = self.lin3(H2)
        return out


def init_from_numpy(net):
    with torch.no_grad():
        for p in net.parameters():
            bound = 1 / (p.shape[-1] ** 0.5)
            p.copy_(torch.tensor(rng.uniform(-bound, bound, tuple(p.shape)), dtype=torch.float32))


x = rng.random((128, 1, 28, 28), dtype=np.float32)
y = rng.integers(0, 10, 128)
x[np.arange(128), 0, y * 2, :] += 1.5
train_iter = DataLoader(TensorDataset(torch.from_numpy(x), torch.from_numpy(y)), batch_size=32)


def train(net):
    loss = nn.CrossEntropyLoss(reduction="none")
    trainer = torch.optim.SGD(net.parameters(), lr=0.5)
    for epoch in range(2):
        total, count = 0.0, 0
        for X, y in train_iter:
            l = loss(net(X), y)  # noqa: E741 - as in the book
            trainer.zero_grad()
            l.mean().backward()
            trainer.step()
            total += float(l.sum())
            count += y.numel()
        print(f"epoch {epoch + 1}, loss {total / count:.4f}")


net = Net(num_inputs, num_outputs, num_hiddens1, num_hiddens2)
init_from_numpy(net)
train(net)

net = nn.Sequential(nn.Flatten(),
                    nn.Linear(784, 256),
                    nn.ReLU(),
                    # Add a dropout layer after the first fully connected layer
                    nn.Dropout(dropout1),
                    nn.Linear(256, 256),
                    nn.ReLU(),
                    # Add a dropout layer after the second fully connected layer
                    nn.Dropout(dropout2),
                    nn.Linear(256, 10))
print(net)
init_from_numpy(net)
train(net)
net.eval()
print(net(torch.from_numpy(x[:2])).argmax(1).shape, net[3].training, net[3].p)
