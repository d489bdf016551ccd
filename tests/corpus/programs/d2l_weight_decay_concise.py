# Corpus program: "Weight Decay" of Dive into Deep Learning (the scratch and the concise parts).
# Source: d2l-ai/d2l-en, chapter_multilayer-perceptrons/weight-decay.md (PyTorch tab)
# Licence: MIT-0 (d2l-en's sample code, LICENSE-SAMPLECODE); re-written here following the section.
# Changes: the synthetic data's normal draws come from NumPy; the d2l helpers (synthetic_data,
#   load_array, evaluate_loss, linreg, squared_loss, sgd) are written out; 20 epochs; no plots.
# Randomness: data and the initial weights from NumPy; no shuffling.
# corpus-tolerance: rtol=1e-6 -- the book prints float32 norms with the 17 digits of their float64
#   repr; a different summation order moves the last float32 bit.
import numpy as np
import torch
from torch import nn
from torch.utils import data

rng = np.random.default_rng(62)
n_train, n_test, num_inputs, batch_size = 20, 100, 200, 5
true_w, true_b = torch.ones((num_inputs, 1)) * 0.01, 0.05


def synthetic_data(w, b, num_examples):
    X = torch.tensor(rng.normal(0, 1, (num_examples, len(w))), dtype=torch.float32)
    y = torch.matmul(X, w) + b
    y += torch.tensor(rng.normal(0, 0.01, tuple(y.shape)), dtype=torch.float32)
    return X, y.reshape((-1, 1))


def load_array(data_arrays, batch_size, is_train=True):
    return data.DataLoader(data.TensorDataset(*data_arrays), batch_size, shuffle=False)


train_data = synthetic_data(true_w, true_b, n_train)
train_iter = load_array(train_data, batch_size)
test_data = synthetic_data(true_w, true_b, n_test)
test_iter = load_array(test_data, batch_size, is_train=False)


def init_params():
    w = torch.tensor(rng.normal(0, 1, (num_inputs, 1)), dtype=torch.float32, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    return [w, b]


def l2_penalty(w):
    return torch.sum(w.pow(2)) / 2


def linreg(X, w, b):
    return torch.matmul(X, w) + b


def squared_loss(y_hat, y):
    return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2


def sgd(params, lr, batch_size):
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()


def evaluate_loss(net, data_iter, loss):
    total, count = 0.0, 0
    for X, y in data_iter:
        out = net(X)
        y = y.reshape(out.shape)
        l = loss(out, y)  # noqa: E741 - as in the book
        total += float(l.sum())
        count += l.numel()
    return total / count


def train(lambd):
    w, b = init_params()
    net, loss = lambda X: linreg(X, w, b), squared_loss
    num_epochs, lr = 20, 0.003
    for epoch in range(num_epochs):
        for X, y in train_iter:
            # The L2 norm penalty term has been added, and broadcasting
            # makes `l2_penalty(w)` a vector whose length is `batch_size`
            l = loss(net(X), y) + lambd * l2_penalty(w)  # noqa: E741
            l.sum().backward()
            sgd([w, b], lr, batch_size)
        if (epoch + 1) % 5 == 0:
            print(epoch + 1, f"{evaluate_loss(net, train_iter, squared_loss):.5f}",
                  f"{evaluate_loss(net, test_iter, squared_loss):.5f}")
    print("L2 norm of w:", torch.norm(w).item())


train(lambd=0)
train(lambd=3)


def train_concise(wd):
    net = nn.Sequential(nn.Linear(num_inputs, 1))
    for param in net.parameters():
        param.data = torch.tensor(rng.normal(0, 1, tuple(param.shape)), dtype=torch.float32)
    loss = nn.MSELoss(reduction="none")
    num_epochs, lr = 20, 0.003
    # The bias parameter has not decayed
    trainer = torch.optim.SGD([
        {"params": net[0].weight, "weight_decay": wd},
        {"params": net[0].bias}], lr=lr)
    for epoch in range(num_epochs):
        for X, y in train_iter:
            trainer.zero_grad()
            l = loss(net(X), y)  # noqa: E741
            l.mean().backward()
            trainer.step()
        if (epoch + 1) % 5 == 0:
            print(epoch + 1, f"{evaluate_loss(net, train_iter, loss):.5f}",
                  f"{evaluate_loss(net, test_iter, loss):.5f}")
    print("L2 norm of w:", net[0].weight.norm().item())
    print(trainer.param_groups[0]["weight_decay"], trainer.param_groups[1]["weight_decay"])


train_concise(0)
train_concise(3)
