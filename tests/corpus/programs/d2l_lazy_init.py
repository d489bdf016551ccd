# Corpus program: "Lazy Initialization" and the lazy LeNet of Dive into Deep Learning (current edition).
# Source: d2l-ai/d2l-en, chapter_builders-guide/lazy-init.md and chapter_convolutional-neural-networks/lenet.md
#   (PyTorch tabs), where every layer is nn.LazyLinear / nn.LazyConv2d and d2l's Module.apply_init runs a
#   dry batch before initialising.
# Licence: MIT-0 (d2l-en's sample code, LICENSE-SAMPLECODE); re-written here following the sections.
# Changes: d2l.Module and the Trainer are written out as small classes; Fashion-MNIST is replaced by
#   96 NumPy images with learnable labels; 2 epochs; the init_cnn xavier draws come from NumPy with the
#   same bound, and the biases too (from NumPy, in [-0.1, 0.1]).
# Randomness: data and every initial weight from NumPy; the dry batches' values are not printed.
# corpus-tolerance: rtol=1e-4 -- a sigmoid LeNet trained in float32.
import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(2024)

# -- lazy-init.md ---------------------------------------------------------------------------------
net = nn.Sequential(nn.LazyLinear(256), nn.ReLU(), nn.LazyLinear(10))
print(net[0].weight)
print(net)
X = torch.rand(2, 20)
net(X)
print(net[0].weight.shape)
print(net)


# -- a small d2l.Module with apply_init and layer_summary -------------------------------------------
class Module(nn.Module):
    def forward(self, X):
        return self.net(X)

    def apply_init(self, inputs, init=None):
        self.forward(*inputs)
        if init is not None:
            self.net.apply(init)

    def layer_summary(self, X_shape):
        X = torch.randn(*X_shape)
        for layer in self.net:
            X = layer(X)
            print(layer.__class__.__name__, "output shape:\t", X.shape)


def init_cnn(module):
    """Xavier-uniform weights, as d2l's init_cnn (drawn from NumPy here)."""
    if type(module) == nn.Linear or type(module) == nn.Conv2d:  # noqa: E721 - as in the book
        fan_out = module.weight.shape[0]
        fan_in = module.weight[0].numel()
        receptive = module.weight[0, 0].numel() if module.weight.dim() > 2 else 1
        bound = (6 / (fan_in + fan_out * receptive)) ** 0.5
        with torch.no_grad():
            module.weight.copy_(torch.tensor(rng.uniform(-bound, bound, tuple(module.weight.shape)),
                                             dtype=torch.float32))
            module.bias.copy_(torch.tensor(rng.uniform(-0.1, 0.1, tuple(module.bias.shape)), dtype=torch.float32))


class LeNet(Module):
    """The LeNet-5 model, built from lazy layers."""

    def __init__(self, lr=0.1, num_classes=10):
        super().__init__()
        self.lr = lr
        self.net = nn.Sequential(
            nn.LazyConv2d(6, kernel_size=5, padding=2), nn.Sigmoid(),
            nn.AvgPool2d(kernel_size=2, stride=2),
            nn.LazyConv2d(16, kernel_size=5), nn.Sigmoid(),
            nn.AvgPool2d(kernel_size=2, stride=2),
            nn.Flatten(),
            nn.LazyLinear(120), nn.Sigmoid(),
            nn.LazyLinear(84), nn.Sigmoid(),
            nn.LazyLinear(num_classes))

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), self.lr)


model = LeNet(lr=0.9)
print(model)
model.layer_summary((1, 1, 28, 28))
print(model)

x = rng.random((96, 1, 28, 28), dtype=np.float32)
y = rng.integers(0, 10, 96)
x[np.arange(96), 0, y * 2, :] += 1.5
data_X, data_y = torch.from_numpy(x), torch.from_numpy(y)

model = LeNet(lr=0.9)
optimizer = model.configure_optimizers()  # d2l's Trainer makes it before the dry batch
model.apply_init([data_X[:32]], init_cnn)
print("parameters:", sum(p.numel() for p in model.parameters()))
loss = nn.CrossEntropyLoss()
for epoch in range(2):
    total = 0.0
    for start in range(0, 96, 32):
        optimizer.zero_grad()
        l = loss(model(data_X[start:start + 32]), data_y[start:start + 32])  # noqa: E741
        l.backward()
        optimizer.step()
        total += l.item() * 32
    with torch.no_grad():
        accuracy = float((model(data_X).argmax(axis=1) == data_y).float().mean())
    print(f"epoch {epoch + 1}: loss {total / 96:.4f}, train acc {accuracy:.3f}")

state = model.state_dict()
print(list(state)[:4], tuple(state["net.0.weight"].shape))
fresh = LeNet()
fresh.load_state_dict(state)
print(type(fresh.net[0]).__name__)
fresh(data_X[:2])
print(type(fresh.net[0]).__name__, torch.allclose(fresh(data_X[:8]), model(data_X[:8])))
