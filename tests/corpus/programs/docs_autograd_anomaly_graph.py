# Corpus program: PyTorch's autograd debugging and graph inspection as documented: detect_anomaly and
#   set_detect_anomaly naming the forward op behind a NaN gradient, torch.autograd.graph.Node (name, next_functions,
#   metadata, register_hook), grad_fn traversal, retain_graph errors, backward with inputs=, autograd.grad with
#   allow_unused and materialize_grads, torch.autograd.backward with grad_tensors, Tensor.register_hook on
#   intermediates, requires_grad_ and detach_.
# Source: pytorch/pytorch, torch/autograd/anomaly_mode.py (detect_anomaly's Example), torch/autograd/graph.py (Node
#   docstrings), torch/autograd/__init__.py (backward, grad) and docs/source/autograd.rst.
# Licence: BSD-3-Clause (PyTorch); the docs' examples, put together in one script.
# Changes: the anomaly's warning traceback is not printed (stderr), only the error's first line.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers).
import warnings

import torch
from torch import autograd

torch.manual_seed(0)
warnings.simplefilter("ignore")


class MyFunc(autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        return inp.clone()

    @staticmethod
    def backward(ctx, gO):
        # Error during the backward pass
        raise RuntimeError("Some error in backward")
        return gO.clone()


def run_fn(a):
    out = MyFunc.apply(a)
    return out.sum()


inp = torch.rand(10, 10, requires_grad=True)
out = run_fn(inp)
try:
    out.backward()
except RuntimeError as error:
    print("RuntimeError:", error)
with autograd.detect_anomaly():
    inp = torch.rand(10, 10, requires_grad=True)
    out = run_fn(inp)
    try:
        out.backward()
    except RuntimeError as error:
        print("RuntimeError:", str(error).splitlines()[0])
print(torch.is_anomaly_enabled())
x = torch.tensor([0.0, 1.0], requires_grad=True)
with autograd.detect_anomaly():
    y = torch.sqrt(x) * 0  # the gradient of sqrt at 0 is inf; times 0 gives nan
    try:
        y.sum().backward()
    except RuntimeError as error:
        print("RuntimeError:", str(error).splitlines()[0])
with autograd.set_detect_anomaly(False):
    print(torch.is_anomaly_enabled())

a = torch.tensor([2., 3.], requires_grad=True)
b = a * a
c = b.exp().sum()
print(c.grad_fn.name(), c.grad_fn.next_functions, b.grad_fn.next_functions[0][0].variable is a)
print(isinstance(c.grad_fn, torch.autograd.graph.Node), c.grad_fn.metadata)
node = c.grad_fn
names = []
while node is not None:
    names.append(type(node).__name__)
    node = node.next_functions[0][0] if node.next_functions else None
print(names)
c.backward(retain_graph=True)
c.backward()
print(a.grad)
try:
    c.backward()
except RuntimeError as error:
    print("RuntimeError:", str(error).split(".")[0])
x = torch.tensor(1.0, requires_grad=True)
y = torch.tensor(2.0, requires_grad=True)
z = x * y + y ** 2
z.backward(inputs=[y])
print(x.grad, y.grad)
unused = torch.tensor(1.0, requires_grad=True)
print(autograd.grad(x * 3, [x, unused], allow_unused=True), autograd.grad(x * 3, [x, unused], materialize_grads=True))
p = torch.ones(2, requires_grad=True)
q = torch.ones(3, requires_grad=True)
torch.autograd.backward([p * 2, q * 3], grad_tensors=[torch.tensor([1., 2.]), torch.ones(3)])
print(p.grad, q.grad)
h = torch.tensor([1., 2.], requires_grad=True)
mid = h * 2
seen = []
mid.register_hook(lambda grad: seen.append(grad.clone()))
(mid ** 2).sum().backward()
print(seen, h.grad)
t = torch.ones(2)
print(t.requires_grad_().requires_grad, (t * 2).detach_().requires_grad, torch.ones(1).requires_grad)
