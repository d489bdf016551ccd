# Corpus program: d2l's builders' guide (current edition): parameter access and shared parameters, custom layers
#   (CenteredLayer, MyLinear), file I/O of tensors and of an MLP's state_dict, and nn.Module's apply with custom init
#   functions.
# Source: d2l-ai/d2l-en, chapter_builders-guide/parameters.md, init-param.md, custom-layer.md and read-write.md
#   (PyTorch tabs).
# Licence: MIT-0 (d2l-en's sample code, LICENSE-SAMPLECODE); re-written here following the sections.
# Changes: files go to a temporary folder; LazyLinear layers are run once before their parameters are read, as the
#   sections do.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers).
import os
import tempfile

import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
folder = tempfile.mkdtemp()
net = nn.Sequential(nn.LazyLinear(8),
                    nn.ReLU(),
                    nn.LazyLinear(1))
X = torch.rand(size=(2, 4))
print(net(X).shape)
print(net[2].state_dict())
print(type(net[2].bias), net[2].bias.data)
print(net[2].weight.grad == None)  # noqa: E711 - as the section writes it
print([(name, param.shape) for name, param in net.named_parameters()])
# We need to give the shared layer a name so that we can refer to its
# parameters
shared = nn.LazyLinear(8)
net = nn.Sequential(nn.LazyLinear(8), nn.ReLU(),
                    shared, nn.ReLU(),
                    shared, nn.ReLU(),
                    nn.LazyLinear(1))
net(X)
# Check whether the parameters are the same
print(net[2].weight.data[0] == net[4].weight.data[0])
net[2].weight.data[0, 0] = 100
# Make sure that they are actually the same object rather than just having the
# same value
print(net[2].weight.data[0] == net[4].weight.data[0])

# init-param.md
net = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.LazyLinear(1))
net(X)


def init_normal(module):
    if type(module) == nn.Linear:
        nn.init.normal_(module.weight, mean=0, std=0.01)
        nn.init.zeros_(module.bias)


net.apply(init_normal)
print(net[0].weight.data[0], net[0].bias.data[0])


def init_constant(module):
    if type(module) == nn.Linear:
        nn.init.constant_(module.weight, 1)
        nn.init.zeros_(module.bias)


net.apply(init_constant)
print(net[0].weight.data[0], net[0].bias.data[0])


def init_xavier(module):
    if type(module) == nn.Linear:
        nn.init.xavier_uniform_(module.weight)


def init_42(module):
    if type(module) == nn.Linear:
        nn.init.constant_(module.weight, 42)


net[0].apply(init_xavier)
net[2].apply(init_42)
print(net[0].weight.data[0])
print(net[2].weight.data)


def my_init(module):
    if type(module) == nn.Linear:
        print("Init", *[(name, param.shape)
                        for name, param in module.named_parameters()][0])
        nn.init.uniform_(module.weight, -10, 10)
        module.weight.data *= module.weight.data.abs() >= 5


net.apply(my_init)
print(net[0].weight[:2])
net[0].weight.data[:] += 1
net[0].weight.data[0, 0] = 42
print(net[0].weight.data[0])


# custom-layer.md
class CenteredLayer(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, X):
        return X - X.mean()


layer = CenteredLayer()
print(layer(torch.tensor([1.0, 2, 3, 4, 5])))
net = nn.Sequential(nn.LazyLinear(128), CenteredLayer())
Y = net(torch.rand(4, 8))
print(Y.mean().abs() < 1e-6)


class MyLinear(nn.Module):
    def __init__(self, in_units, units):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_units, units))
        self.bias = nn.Parameter(torch.randn(units,))

    def forward(self, X):
        linear = torch.matmul(X, self.weight.data) + self.bias.data
        return F.relu(linear)


linear = MyLinear(5, 3)
print(linear.weight)
print(linear(torch.rand(2, 5)))
net = nn.Sequential(MyLinear(64, 8), MyLinear(8, 1))
print(net(torch.rand(2, 64)))

# read-write.md
x = torch.arange(4)
torch.save(x, os.path.join(folder, 'x-file'))
x2 = torch.load(os.path.join(folder, 'x-file'))
print(x2)
y = torch.zeros(4)
torch.save([x, y], os.path.join(folder, 'x-files'))
x2, y2 = torch.load(os.path.join(folder, 'x-files'))
print((x2, y2))
mydict = {'x': x, 'y': y}
torch.save(mydict, os.path.join(folder, 'mydict'))
mydict2 = torch.load(os.path.join(folder, 'mydict'))
print(mydict2)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.LazyLinear(256)
        self.output = nn.LazyLinear(10)

    def forward(self, x):
        return self.output(F.relu(self.hidden(x)))


net = MLP()
X = torch.randn(size=(2, 20))
Y = net(X)
torch.save(net.state_dict(), os.path.join(folder, 'mlp.params'))
clone = MLP()
clone.load_state_dict(torch.load(os.path.join(folder, 'mlp.params')))
print(clone.eval())
Y_clone = clone(X)
print(Y_clone == Y)
