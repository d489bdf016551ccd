# Corpus program: pytorch/examples "mnist_forward_forward": Hinton's forward-forward algorithm,
#   each layer trained locally on positive and negative data.
# Source: pytorch/examples, mnist_forward_forward/main.py
# Licence: BSD-3-Clause (pytorch/examples); re-written here following the example's steps.
# Changes: MNIST is replaced by 200 scikit-learn digits padded to 28x28 and flattened; 2 layers of
#   100 units; 20 epochs per layer instead of 1000; the negative labels come from NumPy.
# Randomness: weights set from NumPy; the shuffled labels of the negative data from NumPy.
# corpus-tolerance: rtol=1e-3 -- each layer's goodness goes through a softplus of differences of
#   sums of squares, and 20 Adam steps per layer keep float32 rounding differences.
import numpy as np
import torch
import torch.nn as nn
from sklearn.datasets import load_digits
from torch.optim import Adam


def overlay_y_on_x(x, y):
    x_ = x.clone()
    x_[:, :10] *= 0.0
    x_[range(x.shape[0]), y] = x.max()
    return x_


class Net(torch.nn.Module):
    def __init__(self, dims):
        super().__init__()
        self.layers = []
        for d in range(len(dims) - 1):
            self.layers += [Layer(dims[d], dims[d + 1])]

    def predict(self, x):
        goodness_per_label = []
        for label in range(10):
            h = overlay_y_on_x(x, label)
            goodness = []
            for layer in self.layers:
                h = layer(h)
                goodness += [h.pow(2).mean(1)]
            goodness_per_label += [sum(goodness).unsqueeze(1)]
        goodness_per_label = torch.cat(goodness_per_label, 1)
        return goodness_per_label.argmax(1)

    def train(self, x_pos, x_neg):
        h_pos, h_neg = x_pos, x_neg
        for i, layer in enumerate(self.layers):
            print("training layer", i, "...")
            h_pos, h_neg = layer.train(h_pos, h_neg)


class Layer(nn.Linear):
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__(in_features, out_features, bias, device, dtype)
        self.relu = torch.nn.ReLU()
        self.opt = Adam(self.parameters(), lr=0.03)
        self.threshold = 2.0
        self.num_epochs = 20

    def forward(self, x):
        x_direction = x / (x.norm(2, 1, keepdim=True) + 1e-4)
        return self.relu(torch.mm(x_direction, self.weight.T) + self.bias.unsqueeze(0))

    def train(self, x_pos, x_neg):
        for i in range(self.num_epochs):
            g_pos = self.forward(x_pos).pow(2).mean(1)
            g_neg = self.forward(x_neg).pow(2).mean(1)
            loss = torch.log(1 + torch.exp(torch.cat([-g_pos + self.threshold, g_neg - self.threshold]))).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            if i % 5 == 4:
                print(i, f"{loss.item():.5f}")
        return self.forward(x_pos).detach(), self.forward(x_neg).detach()


digits = load_digits()
images = np.zeros((len(digits.images), 28, 28), dtype=np.float32)
images[:, 10:18, 10:18] = digits.images / 16.0
x = torch.from_numpy(((images - 0.1307) / 0.3081).reshape(-1, 784)[:200])
y = torch.from_numpy(digits.target[:200])
x_te = torch.from_numpy(((images - 0.1307) / 0.3081).reshape(-1, 784)[200:300])
y_te = torch.from_numpy(digits.target[200:300])

net = Net([784, 100, 100])
rng = np.random.default_rng(48)
with torch.no_grad():
    for layer in net.layers:
        for p in layer.parameters():
            fan_in = p[0].numel() if p.dim() > 1 else p.numel()
            p.copy_(torch.from_numpy((rng.uniform(-1, 1, tuple(p.shape)) / fan_in**0.5).astype(np.float32)))
x_pos = overlay_y_on_x(x, y)
rnd = torch.from_numpy(rng.permutation(x.size(0)))
x_neg = overlay_y_on_x(x, y[rnd])
net.train(x_pos, x_neg)
print("train error:", f"{1.0 - net.predict(x).eq(y).float().mean().item():.4f}")
print("test error:", f"{1.0 - net.predict(x_te).eq(y_te).float().mean().item():.4f}")
