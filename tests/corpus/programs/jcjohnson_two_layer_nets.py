# Corpus program: Justin Johnson's two-layer net, written with raw tensors, with autograd, with a custom
#   autograd.Function (MyReLU), with nn, with optim, with a custom Module and with a dynamic net.
# Source: jcjohnson/pytorch-examples, README.md and the scripts tensor/two_layer_net_tensor.py,
#   autograd/two_layer_net_autograd.py, autograd/two_layer_net_custom_function.py, nn/two_layer_net_nn.py,
#   nn/two_layer_net_optim.py, nn/two_layer_net_module.py, nn/dynamic_net.py.
# Licence: MIT (pytorch-examples); re-written here following the scripts.
# Changes: N, D_in, H, D_out = 8, 20, 16, 4 (the scripts use 64, 1000, 100, 10); 10 steps each; every 5th loss printed.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers).
# corpus-tolerance: rtol=1e-3 -- float32 training.
import random

import torch

random.seed(0)
torch.manual_seed(0)
dtype = torch.float
device = torch.device("cpu")
N, D_in, H, D_out = 8, 20, 16, 4

# two_layer_net_tensor.py
x = torch.randn(N, D_in, device=device, dtype=dtype)
y = torch.randn(N, D_out, device=device, dtype=dtype)
w1 = torch.randn(D_in, H, device=device, dtype=dtype)
w2 = torch.randn(H, D_out, device=device, dtype=dtype)
learning_rate = 1e-4
for t in range(10):
    h = x.mm(w1)
    h_relu = h.clamp(min=0)
    y_pred = h_relu.mm(w2)
    loss = (y_pred - y).pow(2).sum().item()
    if t % 5 == 4:
        print(t, loss)
    grad_y_pred = 2.0 * (y_pred - y)
    grad_w2 = h_relu.t().mm(grad_y_pred)
    grad_h_relu = grad_y_pred.mm(w2.t())
    grad_h = grad_h_relu.clone()
    grad_h[h < 0] = 0
    grad_w1 = x.t().mm(grad_h)
    w1 -= learning_rate * grad_w1
    w2 -= learning_rate * grad_w2


# two_layer_net_custom_function.py
class MyReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        grad_x = grad_output.clone()
        grad_x[x < 0] = 0
        return grad_x


w1 = torch.randn(D_in, H, device=device, requires_grad=True)
w2 = torch.randn(H, D_out, device=device, requires_grad=True)
for t in range(10):
    y_pred = MyReLU.apply(x.mm(w1)).mm(w2)
    loss = (y_pred - y).pow(2).sum()
    if t % 5 == 4:
        print(t, loss.item())
    loss.backward()
    with torch.no_grad():
        w1 -= learning_rate * w1.grad
        w2 -= learning_rate * w2.grad
        w1.grad.zero_()
        w2.grad.zero_()

# two_layer_net_nn.py
model = torch.nn.Sequential(
    torch.nn.Linear(D_in, H),
    torch.nn.ReLU(),
    torch.nn.Linear(H, D_out),
).to(device)
loss_fn = torch.nn.MSELoss(reduction='sum')
learning_rate = 1e-4
for t in range(10):
    y_pred = model(x)
    loss = loss_fn(y_pred, y)
    if t % 5 == 4:
        print(t, loss.item())
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for param in model.parameters():
            param.data -= learning_rate * param.grad

# two_layer_net_optim.py
optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)
for t in range(10):
    y_pred = model(x)
    loss = loss_fn(y_pred, y)
    if t % 5 == 4:
        print(t, loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


# two_layer_net_module.py
class TwoLayerNet(torch.nn.Module):
    def __init__(self, D_in, H, D_out):
        super(TwoLayerNet, self).__init__()
        self.linear1 = torch.nn.Linear(D_in, H)
        self.linear2 = torch.nn.Linear(H, D_out)

    def forward(self, x):
        h_relu = self.linear1(x).clamp(min=0)
        y_pred = self.linear2(h_relu)
        return y_pred


# dynamic_net.py
class DynamicNet(torch.nn.Module):
    def __init__(self, D_in, H, D_out):
        super(DynamicNet, self).__init__()
        self.input_linear = torch.nn.Linear(D_in, H)
        self.middle_linear = torch.nn.Linear(H, H)
        self.output_linear = torch.nn.Linear(H, D_out)

    def forward(self, x):
        h_relu = self.input_linear(x).clamp(min=0)
        for _ in range(random.randint(0, 3)):
            h_relu = self.middle_linear(h_relu).clamp(min=0)
        y_pred = self.output_linear(h_relu)
        return y_pred


for model in (TwoLayerNet(D_in, H, D_out), DynamicNet(D_in, H, D_out)):
    criterion = torch.nn.MSELoss(reduction='sum')
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-4, momentum=0.9)
    for t in range(10):
        y_pred = model(x)
        loss = criterion(y_pred, y)
        if t % 5 == 4:
            print(t, loss.item())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
