# Corpus program: the examples of PyTorch's "Modules" note.
# Source: pytorch/pytorch, docs/source/notes/modules.rst (a simple custom module, modules as building
#   blocks, ModuleList and ModuleDict, training, state_dict with buffers, persistent=False, apply(init),
#   factory kwargs device/dtype, skip_init, module hooks, train/eval).
# Licence: BSD-3-Clause (PyTorch); the note's snippets, put together in one script.
# Changes: the training loop runs 5 iterations instead of 10000; the values are printed.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers).
import torch
from torch import nn

torch.manual_seed(0)


class MyLinear(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_features, out_features))
        self.bias = nn.Parameter(torch.randn(out_features))

    def forward(self, input):
        return (input @ self.weight) + self.bias


m = MyLinear(4, 3)
sample_input = torch.randn(4)
print(m(sample_input))
for parameter in m.named_parameters():
    print(parameter)

net = nn.Sequential(
    MyLinear(4, 3),
    nn.ReLU(),
    MyLinear(3, 1)
)
sample_input = torch.randn(4)
print(net(sample_input))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.l0 = MyLinear(4, 3)
        self.l1 = MyLinear(3, 1)

    def forward(self, x):
        x = self.l0(x)
        x = nn.functional.relu(x)
        x = self.l1(x)
        return x


net = Net()
for child in net.named_children():
    print(child)


class BigNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = MyLinear(5, 4)
        self.net = Net()

    def forward(self, x):
        return self.net(self.l1(x))


big_net = BigNet()
for module in big_net.named_modules():
    print(module)


class DynamicNet(nn.Module):
    def __init__(self, num_layers):
        super().__init__()
        self.linears = nn.ModuleList(
            [MyLinear(4, 4) for _ in range(num_layers)])
        self.activations = nn.ModuleDict({
            'relu': nn.ReLU(),
            'lrelu': nn.LeakyReLU()
        })
        self.final = MyLinear(4, 1)

    def forward(self, x, act):
        for linear in self.linears:
            x = linear(x)
            x = self.activations[act](x)
        x = self.final(x)
        return x


dynamic_net = DynamicNet(3)
sample_input = torch.randn(4)
output = dynamic_net(sample_input, 'relu')
for parameter in dynamic_net.named_parameters():
    print(parameter[0], parameter[1].shape)
print(dynamic_net)

# Neural Network Training with Modules
net = nn.Sequential(
    nn.Linear(4, 2),
    nn.ReLU(),
    nn.Linear(2, 1),
    nn.Sigmoid()
)
optimizer = torch.optim.SGD(net.parameters(), lr=1e-4, weight_decay=1e-2, momentum=0.9)
for _ in range(5):
    input = torch.randn(4)
    output = net(input)
    loss = torch.abs(output)
    net.zero_grad()
    loss.backward()
    optimizer.step()
print(net[0].weight)


class ModalModule(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        if self.training:
            # Add a constant only in training mode.
            return x + 1.
        else:
            return x


m = ModalModule()
x = torch.randn(4)
print(f'training mode output: {m(x)}')
m.eval()
print(f'evaluation mode output: {m(x)}')


class RunningMean(nn.Module):
    def __init__(self, num_features, momentum=0.9):
        super().__init__()
        self.momentum = momentum
        self.register_buffer('mean', torch.zeros(num_features))

    def forward(self, x):
        self.mean = self.momentum * self.mean + (1.0 - self.momentum) * x
        return self.mean


m = RunningMean(4)
for _ in range(3):
    input = torch.randn(4)
    m(input)
print(m)
print(m.state_dict())
m.load_state_dict(m.state_dict())


class RunningMeanNP(nn.Module):
    def __init__(self, num_features, momentum=0.9):
        super().__init__()
        self.register_buffer('unserialized_thing', torch.randn(5), persistent=False)


print(RunningMeanNP(4).state_dict(), list(RunningMeanNP(4).buffers())[0].shape)

# Module initialization
m = nn.Linear(5, 3, device='cpu', dtype=torch.float64)
print(m.weight.dtype, m.weight.device)


@torch.no_grad()
def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.xavier_normal_(m.weight)
        m.bias.fill_(0.0)


net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
net.apply(init_weights)
print(net[0].weight, net[2].bias)
m = torch.nn.utils.skip_init(nn.Linear, 5, 1)
print(m.weight.shape, type(m).__name__)

# Module hooks
torch.manual_seed(1)
m = nn.Linear(3, 3)
x = torch.randn(2, 3, requires_grad=True)


def forward_pre_hook(m, inputs):
    # Allows for examination and modification of the input before the forward pass.
    # Note that inputs are always wrapped in a tuple.
    input = inputs[0]
    return input + 1.


forward_pre_hook_handle = m.register_forward_pre_hook(forward_pre_hook)
y = m(x)
print(y)


def forward_hook(m, inputs, output):
    # Allows for examination of inputs / outputs and modification of the outputs
    # after the forward pass. Note that inputs are always wrapped in a tuple while outputs
    # are passed as-is.

    # Residual computation a la ResNet.
    return output + inputs[0]


forward_hook_handle = m.register_forward_hook(forward_hook)
z = m(x)
print(z)


def backward_hook(m, grad_inputs, grad_outputs):
    # Allows for examination of grad_inputs / grad_outputs and modification of
    # grad_inputs used in the rest of the backwards pass. Note that grad_inputs and
    # grad_outputs are always wrapped in tuples.
    new_grad_inputs = [torch.ones_like(gi) * 42. for gi in grad_inputs]
    return new_grad_inputs


z.sum().backward()
print(x.grad)
x.grad = None
m.register_full_backward_hook(backward_hook)
m(x).sum().backward()
print(x.grad)
forward_pre_hook_handle.remove()
forward_hook_handle.remove()
print(m(x))
