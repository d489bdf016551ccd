# Corpus program: the examples of PyTorch's "Serialization semantics" note.
# Source: pytorch/pytorch, docs/source/notes/serialization.rst (saving and loading tensors, views share
#   storage, saving a clone to shrink the file, state_dict of modules, custom modules, weights_only with
#   add_safe_globals).
# Licence: BSD-3-Clause (PyTorch); the note's snippets, put together in one script.
# Changes: files go to a temporary folder; values the note prints are printed.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers).
import os
import tempfile

import torch

torch.manual_seed(0)
folder = tempfile.mkdtemp()
path = lambda name: os.path.join(folder, name)  # noqa: E731

t = torch.tensor([1., 2.])
torch.save(t, path('tensor.pt'))
print(torch.load(path('tensor.pt')))

d = {'a': torch.tensor([1., 2.]), 'b': torch.tensor([3., 4.])}
torch.save(d, path('tensor_dict.pt'))
print(torch.load(path('tensor_dict.pt')))

# Saving and loading tensors preserves views
numbers = torch.arange(1, 10)
evens = numbers[1::2]
torch.save([numbers, evens], path('tensors.pt'))
loaded_numbers, loaded_evens = torch.load(path('tensors.pt'))
loaded_evens *= 2
print(loaded_numbers)

# Saving tensors with a smaller storage
large = torch.arange(1, 1000)
small = large[0:5]
torch.save(small, path('small.pt'))
loaded_small = torch.load(path('small.pt'))
print(loaded_small.untyped_storage().size())
torch.save(small.clone(), path('small.pt'))  # saves a clone of small
loaded_small = torch.load(path('small.pt'))
print(loaded_small.untyped_storage().size(), loaded_small)

# Saving and loading torch.nn.Modules
bn = torch.nn.BatchNorm1d(3, track_running_stats=True)
print(list(bn.named_parameters()))
print(list(bn.named_buffers()))
print(bn.state_dict())
torch.save(bn.state_dict(), path('bn.pt'))
bn_state_dict = torch.load(path('bn.pt'))
new_bn = torch.nn.BatchNorm1d(3, track_running_stats=True)
print(new_bn.load_state_dict(bn_state_dict))


# A module with submodules
class MyModule(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l0 = torch.nn.Linear(4, 2)
        self.l1 = torch.nn.Linear(2, 1)

    def forward(self, input):
        out0 = self.l0(input)
        out0_relu = torch.nn.functional.relu(out0)
        return self.l1(out0_relu)


m = MyModule()
print(m.state_dict())
torch.save(m.state_dict(), path('mymodule.pt'))
m_state_dict = torch.load(path('mymodule.pt'))
new_m = MyModule()
print(new_m.load_state_dict(m_state_dict))
print(torch.equal(new_m(torch.ones(1, 4)), m(torch.ones(1, 4))))

# weights_only: plain containers load; other globals are refused unless allowed
torch.save({'step': 3, 'lrs': [0.1, 0.01], 'shape': torch.Size([2, 3]), 'dtype': torch.float64},
           path('meta.pt'))
print(torch.load(path('meta.pt'), weights_only=True))


class Config:
    def __init__(self, width):
        self.width = width


torch.save(Config(8), path('config.pt'))
try:
    torch.load(path('config.pt'), weights_only=True)
except Exception as error:
    print(type(error).__name__, "Weights only load failed" in str(error))
torch.serialization.add_safe_globals([Config])
print(torch.load(path('config.pt'), weights_only=True).width)
with torch.serialization.safe_globals([Config]):
    print(torch.load(path('config.pt')).width)
print(torch.load(path('config.pt'), weights_only=False).width)
