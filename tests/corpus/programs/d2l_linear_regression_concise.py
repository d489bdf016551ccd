# Corpus program: "Concise Implementation of Linear Regression" of Dive into Deep Learning.
# Source: d2l-ai/d2l-en, chapter_linear-regression/linear-regression-concise.md (PyTorch tab)
# Licence: MIT-0 (d2l-en's sample code, LICENSE-SAMPLECODE); re-written here following the section.
# Changes: the synthetic data's torch.normal draws come from NumPy; the d2l helpers (load_array)
#   are written out; no shuffling; 3 epochs.
# Randomness: data and the weight init (normal_(0, 0.01)) from NumPy; the bias is filled with 0.
import numpy as np
import torch
from torch import nn
from torch.utils import data

rng = np.random.default_rng(60)


def synthetic_data(w, b, num_examples):
    """Generate y = Xw + b + noise."""
    X = torch.tensor(rng.normal(0, 1, (num_examples, len(w))), dtype=torch.float32)
    y = torch.matmul(X, w) + b
    y += torch.tensor(rng.normal(0, 0.01, tuple(y.shape)), dtype=torch.float32)
    return X, y.reshape((-1, 1))


true_w = torch.tensor([2, -3.4])
true_b = 4.2
features, labels = synthetic_data(true_w, true_b, 1000)


def load_array(data_arrays, batch_size, is_train=True):
    """Construct a PyTorch data iterator."""
    dataset = data.TensorDataset(*data_arrays)
    return data.DataLoader(dataset, batch_size, shuffle=False)


batch_size = 10
data_iter = load_array((features, labels), batch_size)
print(next(iter(data_iter))[0].shape, next(iter(data_iter))[1].shape)

net = nn.Sequential(nn.Linear(2, 1))
net[0].weight.data = torch.tensor(rng.normal(0, 0.01, (1, 2)), dtype=torch.float32)
net[0].bias.data.fill_(0)
loss = nn.MSELoss()
trainer = torch.optim.SGD(net.parameters(), lr=0.03)

num_epochs = 3
for epoch in range(num_epochs):
    for X, y in data_iter:
        l = loss(net(X), y)  # noqa: E741 - as in the book
        trainer.zero_grad()
        l.backward()
        trainer.step()
    l = loss(net(features), labels)  # noqa: E741
    print(f"epoch {epoch + 1}, loss {l:f}")

w = net[0].weight.data
print("error in estimating w:", true_w - w.reshape(true_w.shape))
b = net[0].bias.data
print("error in estimating b:", true_b - b)
print(net[0].weight.grad.shape, net[0].weight.grad.dtype)
