# Corpus program: "Optimizing Model Parameters" of PyTorch's "Learn the Basics".
# Source: pytorch/tutorials, beginner_source/basics/optimization_tutorial.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: FashionMNIST is replaced by 192 NumPy images of 28x28 with learnable labels (the label
#   is the brightest of ten image bands); 3 epochs; the test set is 64 more such images.
# Randomness: weights set from NumPy; no shuffling.
import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(5)


def make(n):
    images = rng.random((n, 1, 28, 28), dtype=np.float32)
    labels = rng.integers(0, 10, n)
    for i, label in enumerate(labels):
        images[i, 0, :, label * 2 : label * 2 + 3] += 1.0
    return TensorDataset(torch.from_numpy(images), torch.from_numpy(labels))


train_dataloader = DataLoader(make(192), batch_size=64)
test_dataloader = DataLoader(make(64), batch_size=64)


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(28 * 28, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10),
        )

    def forward(self, x):
        x = self.flatten(x)
        return self.linear_relu_stack(x)


model = NeuralNetwork()
weights = np.random.default_rng(0)
with torch.no_grad():
    for parameter in model.parameters():
        fan_in = parameter[0].numel() if parameter.dim() > 1 else parameter.numel()
        values = weights.uniform(-1, 1, tuple(parameter.shape)) / fan_in**0.5
        parameter.copy_(torch.from_numpy(values.astype(np.float32)))

learning_rate = 1e-2
batch_size = 64
epochs = 3
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)


def train_loop(dataloader, model, loss_fn, optimizer):
    size = len(dataloader.dataset)
    model.train()
    for batch, (X, y) in enumerate(dataloader):
        pred = model(X)
        loss = loss_fn(pred, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        loss, current = loss.item(), batch * batch_size + len(X)
        print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")


def test_loop(dataloader, model, loss_fn):
    model.eval()
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    test_loss, correct = 0, 0
    with torch.no_grad():
        for X, y in dataloader:
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()
    test_loss /= num_batches
    correct /= size
    print(f"Test Error: \n Accuracy: {(100*correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")


for t in range(epochs):
    print(f"Epoch {t+1}\n-------------------------------")
    train_loop(train_dataloader, model, loss_fn, optimizer)
    test_loop(test_dataloader, model, loss_fn)
print("Done!")
