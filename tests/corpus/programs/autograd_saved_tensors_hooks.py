# Corpus program: tutorial "Hooks for autograd saved tensors": what a node saves
#   (grad_fn._saved_self, _saved_result), pack/unpack hooks on a node's saved tensors, and the
#   saved_tensors_hooks context manager.
# Source: pytorch/tutorials, intermediate_source/autograd_saved_tensors_hooks_tutorial.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: the memory measurements, the CUDA and the disk-offloading parts (temporary files,
#   torch.save per tensor) are left out; torch.randn draws come from NumPy.
# Randomness: all tensors from NumPy.
import numpy as np
import torch

rng = np.random.default_rng(69)


def randn(*shape, requires_grad=False):
    return torch.tensor(rng.standard_normal(shape), dtype=torch.float32, requires_grad=requires_grad)


a = randn(5, requires_grad=True)
b = torch.ones(5, requires_grad=True)
c = a * b
print(c.grad_fn._saved_self is a)  # True
print(c.grad_fn._saved_other is b)

x = randn(5, requires_grad=True)
y = x.pow(2)
print(y.grad_fn._saved_self.equal(x))
print(y.grad_fn._saved_self is x)

x = randn(5, requires_grad=True)
y = x.exp()
print(y.equal(y.grad_fn._saved_result))  # True
print(y is y.grad_fn._saved_result)  # False


def pack_hook(x):
    print("Packing", x)
    return x


def unpack_hook(x):
    print("Unpacking", x)
    return x


a = torch.ones(5, requires_grad=True)
b = torch.ones(5, requires_grad=True) * 2

y = a * b
y.grad_fn._raw_saved_self.register_hooks(pack_hook, unpack_hook)
y.sum().backward()
print(a.grad)


def pack_hook(x):  # noqa: F811 - the tutorial redefines the hooks
    print("Packing", x)
    return x


def unpack_hook(x):  # noqa: F811
    print("Unpacking", x)
    return x


a = torch.ones(5, requires_grad=True)
b = torch.ones(5, requires_grad=True) * 2
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = a * b

y.sum().backward()


def fn(x):
    return x.sin().sin().sin()


x = randn(5, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(lambda x: x * 4, lambda x: x / 4):
    y = fn(x)
y_grad = torch.autograd.grad(y.sum(), x)[0]
y2 = fn(x)
print(torch.allclose(y_grad, torch.autograd.grad(y2.sum(), x)[0]))


# Only save on disk tensors that have size >= 1000 becomes: only pack tensors with 3+ elements
SAVE_ON_DISK_THRESHOLD = 3
stored = []


def pack_hook(tensor):  # noqa: F811
    if tensor.numel() < SAVE_ON_DISK_THRESHOLD:
        return tensor
    stored.append(tensor.clone())
    return len(stored) - 1


def unpack_hook(packed):  # noqa: F811
    if isinstance(packed, torch.Tensor):
        return packed
    return stored[packed]


x = randn(5, requires_grad=True)
small = randn(2, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = (x * x).sum() + (small * small).sum()
y.backward()
print(len(stored), x.grad.equal(2 * x), small.grad.equal(2 * small))
