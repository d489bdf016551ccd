# Corpus program: the examples of PyTorch's "Autograd mechanics" note.
# Source: pytorch/pytorch, docs/source/notes/autograd.rst (locally disabling gradient computation,
#   requires_grad, grad modes, inference mode, in-place correctness checks, backward hooks and the order
#   they run in, register_post_accumulate_grad_hook, retain_grad).
# Licence: BSD-3-Clause (PyTorch); the note's snippets, put together in one script.
# Changes: the snippets become one script printing what the note shows; small shapes.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers).
import torch
import torch.nn as nn

torch.manual_seed(0)

# -- Setting requires_grad ---------------------------------------------------------------------
x = torch.randn(5, 5)  # requires_grad=False by default
y = torch.randn(5, 5)  # requires_grad=False by default
z = torch.randn((5, 5), requires_grad=True)
a = x + y
print(a.requires_grad)
b = a + z
print(b.requires_grad)

model = nn.Linear(4, 2)
for param in model.parameters():
    param.requires_grad_(False)
model.bias.requires_grad_(True)
out = model(torch.randn(3, 4)).sum()
out.backward()
print(model.weight.grad, model.bias.grad)

# -- Grad modes ------------------------------------------------------------------------------------
x = torch.ones(3, requires_grad=True)
with torch.no_grad():
    y = x * 2
print(y.requires_grad, torch.is_grad_enabled())
with torch.enable_grad():
    with torch.no_grad():
        pass
    print(torch.is_grad_enabled())
torch.set_grad_enabled(False)
print(torch.is_grad_enabled(), (x * 2).requires_grad)
torch.set_grad_enabled(True)
with torch.set_grad_enabled(False):
    print((x * 2).requires_grad)


@torch.no_grad()
def doubler(x):
    return x * 2


print(doubler(x).requires_grad)

with torch.inference_mode():
    w = x * 3
print(w.requires_grad, w.is_inference(), torch.is_inference_mode_enabled())
try:
    (w * x).sum().backward()
    print("no error")
except RuntimeError as error:
    print("RuntimeError:", str(error).splitlines()[0])

# -- In-place correctness checks -------------------------------------------------------------------
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a.sin()
c = b * 2
b_saved = a.exp()
b_saved.add_(1)
d = b_saved.sum()
print(a._version, b_saved._version)
try:
    d.backward()
    print("backward ran; a.grad =", a.grad)
except RuntimeError as error:
    print("RuntimeError:", error)
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
e = a.exp()
e.mul_(2)
try:
    e.sum().backward()
    print("no error", a.grad)
except RuntimeError as error:
    print("RuntimeError:", str(error).split(";")[0])

# -- Backward hooks ------------------------------------------------------------------------------------
a = torch.tensor(2., requires_grad=True)
b = a * 3
b.retain_grad()
order = []
b.register_hook(lambda grad: order.append("tensor hook") or grad * 10)
b.grad_fn.register_prehook(lambda grad_outputs: order.append("grad_fn prehook"))
b.grad_fn.register_hook(lambda grad_inputs, grad_outputs: order.append("grad_fn hook"))
a.register_post_accumulate_grad_hook(lambda tensor: order.append(f"post accumulate {tensor.grad.item()}"))
c = b ** 2
c.backward()
print(order)
print(a.grad, b.grad)

# a hook that modifies the gradient in place of a leaf's accumulation
lin = nn.Linear(3, 1)
handle = lin.weight.register_hook(lambda grad: grad.clamp(-0.1, 0.1))
lin(torch.ones(2, 3)).sum().backward()
print(lin.weight.grad, lin.bias.grad)
handle.remove()
lin.zero_grad()
lin(torch.ones(2, 3)).sum().backward()
print(lin.weight.grad)
