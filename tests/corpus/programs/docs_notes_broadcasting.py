# Corpus program: the examples of PyTorch's "Broadcasting semantics" note.
# Source: pytorch/pytorch, docs/source/notes/broadcasting.rst (general semantics, in-place semantics,
#   backwards compatibility).
# Licence: BSD-3-Clause (PyTorch); the note's snippets, put together in one script.
# Changes: torch.empty becomes torch.ones (empty memory is not printable); the errors are printed.
# Randomness: none printed (the values of torch.randn do not reach the output).
import torch

x=torch.ones(5,7,3)
y=torch.ones(5,7,3)
print((x+y).size())

# same shapes are always broadcastable (i.e. the above rules always hold)
x=torch.ones((0,))
y=torch.ones(2,2)
try:
    x + y
except RuntimeError as error:
    print("RuntimeError:", error)

# can line up trailing dimensions
x=torch.ones(5,3,4,1)
y=torch.ones(  3,1,1)
print((x+y).size())

# x and y are not broadcastable, because in the 3rd trailing dimension 2 != 3
x=torch.ones(5,2,4,1)
y=torch.ones(  3,1,1)
try:
    (x+y).size()
except RuntimeError as error:
    print("RuntimeError:", error)

# can line up trailing dimensions to make reading easier
x=torch.ones(5,1,4,1)
y=torch.ones(  3,1,1)
print((x+y).size())

# but not necessary:
x=torch.ones(1)
y=torch.ones(3,1,7)
print((x+y).size())

x=torch.ones(5,2,4,1)
y=torch.ones(3,1,1)
try:
    (x+y).size()
except RuntimeError as error:
    print("RuntimeError:", error)

# In-place semantics
x=torch.ones(5,3,4,1)
y=torch.ones(3,1,1)
print((x.add_(y)).size())

# but:
x=torch.ones(1,3,1)
y=torch.ones(3,1,7)
try:
    (x.add_(y)).size()
except RuntimeError as error:
    print("RuntimeError:", error)

# Backwards compatibility
print(torch.add(torch.ones(4,1), torch.randn(4)).size())
a = torch.arange(4.).view(4, 1)
b = torch.arange(4.)
print(a + b)
print(torch.broadcast_shapes((2,), (3, 1), (1, 1, 1)))
print([t.shape for t in torch.broadcast_tensors(a, b)])
print(a.expand_as(torch.ones(4, 3)).stride(), b.broadcast_to((2, 4)))
