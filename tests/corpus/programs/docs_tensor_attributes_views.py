# Corpus program: PyTorch's "Tensor Attributes" and "Tensor Views" notes: type promotion examples, torch.device forms,
#   memory formats (channels_last), strides, and which ops return views.
# Source: pytorch/pytorch, docs/source/tensor_attributes.rst (torch.dtype promotion examples, torch.device,
#   torch.layout, torch.memory_format) and docs/source/tensor_view.rst (view ops, contiguous).
# Licence: BSD-3-Clause (PyTorch); the notes' examples, put together in one script.
# Changes: the CUDA examples use the CPU; the storage data_ptr comparison is replaced by writing through the view.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers).
import torch

torch.manual_seed(0)
float_tensor = torch.ones(1, dtype=torch.float)
double_tensor = torch.ones(1, dtype=torch.double)
complex_float_tensor = None
int_tensor = torch.ones(1, dtype=torch.int)
long_tensor = torch.ones(1, dtype=torch.long)
uint_tensor = torch.ones(1, dtype=torch.uint8)
bool_tensor = torch.ones(1, dtype=torch.bool)
# zero-dim tensors
long_zerodim = torch.tensor(1, dtype=torch.long)
int_zerodim = torch.tensor(1, dtype=torch.int)
print(torch.add(5, 5).dtype)
print((int_tensor + 5).dtype, (int_tensor + long_zerodim).dtype, (long_tensor + int_tensor).dtype,
      (bool_tensor + long_tensor).dtype, (bool_tensor + uint_tensor).dtype, (float_tensor + double_tensor).dtype,
      (bool_tensor + int_tensor).dtype)
print(torch.add(long_tensor, float_tensor).dtype)
# allowed:
float_tensor *= float_tensor
float_tensor *= int_tensor
float_tensor *= uint_tensor
float_tensor *= bool_tensor
float_tensor *= double_tensor
int_tensor *= long_tensor
int_tensor *= uint_tensor
uint_tensor *= int_tensor
# disallowed (RuntimeError: result type can't be cast to the desired output type):
try:
    int_tensor *= float_tensor
except RuntimeError as error:
    print("RuntimeError:", error)
try:
    bool_tensor *= int_tensor
except RuntimeError as error:
    print("RuntimeError:", error)
print(torch.promote_types(torch.int32, torch.float32), torch.result_type(torch.tensor([1, 2]), 1.0),
      torch.can_cast(torch.double, torch.float), torch.can_cast(torch.float, torch.int))
print(torch.float32.is_floating_point, torch.int64.is_signed, torch.finfo(torch.float16).max, torch.iinfo(torch.int8).min,
      torch.float32.itemsize)
print(torch.device('cuda:0'), torch.device('cpu'), torch.device('cuda'), torch.device('cuda', 0),
      torch.device('cpu').type, torch.device('cuda:1').index)
x = torch.randn(1, 3, 4, 4)
print(x.layout, x.is_contiguous(), x.stride())
y = x.to(memory_format=torch.channels_last)
print(y.is_contiguous(), y.is_contiguous(memory_format=torch.channels_last), y.stride(), torch.equal(x, y))
print(x.contiguous(memory_format=torch.channels_last).stride(), torch.empty_like(y).stride())
t = torch.rand(4, 4)
b = t.view(2, 8)
b[0][0] = 3.14
print(t[0][0])
base = torch.tensor([[0, 1], [2, 3]])
print(base.is_contiguous())
t = base.transpose(0, 1)  # `t` is a view of `base`. No data movement happened here.
print(t.is_contiguous())
c = t.contiguous()
print(c.is_contiguous(), c.stride(), t.stride(), t._base is base, c._base is None)
for name, view in [('narrow', base.narrow(0, 0, 1)), ('unsqueeze', base.unsqueeze(0)), ('T', base.T),
                   ('diagonal', base.diagonal()), ('unflatten', base.view(4).unflatten(0, (2, 2))),
                   ('unfold', torch.arange(6.).unfold(0, 2, 1)), ('expand', base[0].expand(3, 2)),
                   ('movedim', base.movedim(0, 1)), ('split', base.split(1)[1]), ('indices', base[:, 1])]:
    print(name, view.shape, view.stride(), view._base is not None)
print(torch.arange(6).view(2, 3).reshape(3, 2)._base is not None, torch.arange(6).view(2, 3).t().reshape(6)._base is None)
print(torch.ones(2, 3).view(-1, 2).shape)
try:
    torch.ones(2, 3).t().view(6)
except RuntimeError as error:
    print("RuntimeError:", error)
