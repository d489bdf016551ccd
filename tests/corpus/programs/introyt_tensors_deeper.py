# Corpus program: "Introduction to PyTorch Tensors" of "Introduction to PyTorch - YouTube Series".
# Source: pytorch/tutorials, beginner_source/introyt/tensors_deeper_tutorial.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: the GPU section is left out; random tensors are made from NumPy.
# Randomness: torch.manual_seed streams differ between the libraries, so random tensors come from
#   NumPy; the rest is deterministic.
import math

import numpy as np
import torch

rng = np.random.default_rng(19)


def rand(*shape):
    return torch.from_numpy(rng.random(shape, dtype=np.float32))


x = torch.empty(3, 4)
print(type(x))
zeros = torch.zeros(2, 3)
print(zeros)
ones = torch.ones(2, 3)
print(ones)

x = torch.empty(2, 2, 3)
print(x.shape)
empty_like_x = torch.empty_like(x)
print(empty_like_x.shape)
zeros_like_x = torch.zeros_like(x)
print(zeros_like_x)
ones_like_x = torch.ones_like(x)
print(ones_like_x)

some_constants = torch.tensor([[3.1415926, 2.71828], [1.61803, 0.0072897]])
print(some_constants)
some_integers = torch.tensor((2, 3, 5, 7, 11, 13, 17, 19))
print(some_integers)
more_integers = torch.tensor(((2, 4, 6), [3, 6, 9]))
print(more_integers)

a = torch.ones((2, 3), dtype=torch.int16)
print(a)
b = rand(2, 3).to(torch.float64) * 20.
print(b)
c = b.to(torch.int32)
print(c)

ones = torch.zeros(2, 2) + 1
twos = torch.ones(2, 2) * 2
threes = (torch.ones(2, 2) * 7 - 1) / 2
fours = twos ** 2
sqrt2s = twos ** 0.5
print(ones)
print(twos)
print(threes)
print(fours)
print(sqrt2s)

powers2 = twos ** torch.tensor([[1, 2], [3, 4]])
print(powers2)
fives = ones + fours
print(fives)
dozens = threes * fours
print(dozens)

rand_ = rand(2, 4)
doubled = rand_ * (torch.ones(1, 4) * 2)
print(rand_)
print(doubled)

a = torch.ones(4, 3, 2)
b = a * rand(3, 2)
c = a * rand(3, 1)
d = a * rand(1, 2)
print(b.shape, c.shape, d.shape)

a = rand(2, 4) * 2 - 1
print("Common functions:")
print(torch.abs(a))
print(torch.ceil(a))
print(torch.floor(a))
print(torch.clamp(a, -0.5, 0.5))

angles = torch.tensor([0, math.pi / 4, math.pi / 2, 3 * math.pi / 4])
sines = torch.sin(angles)
inverses = torch.asin(sines)
print("\nSine and arcsine:")
print(angles)
print(sines)
print(inverses)

print("\nBitwise XOR:")
b = torch.tensor([1, 5, 11])
c = torch.tensor([2, 7, 10])
print(torch.bitwise_xor(b, c))

print("\nBroadcasted, element-wise equality comparison:")
d = torch.tensor([[1., 2.], [3., 4.]])
e = torch.ones(1, 2)
print(torch.eq(d, e))

print("\nReduction ops:")
print(torch.max(d))
print(torch.max(d).item())
print(torch.mean(d))
print(torch.std(d))
print(torch.prod(d))
print(torch.unique(torch.tensor([1, 2, 1, 2, 1, 2])))

v1 = torch.tensor([1., 0., 0.])
v2 = torch.tensor([0., 1., 0.])
m1 = rand(2, 2)
m2 = torch.tensor([[3., 0.], [0., 3.]])
print("\nVectors & Matrices:")
print(torch.linalg.cross(v2, v1))
print(m1)
m3 = torch.linalg.matmul(m1, m2)
print(m3)
print("\nSingular value decomposition:")
print(torch.linalg.svd(m3)[1])

a = torch.tensor([0, math.pi / 4, math.pi / 2, 3 * math.pi / 4])
print("a:")
print(a)
print(torch.sin(a))
print(a)
print("\nb:")
b = torch.tensor([0, math.pi / 4, math.pi / 2, 3 * math.pi / 4])
print(b)
print(torch.sin_(b))
print(b)

a = torch.ones(2, 2)
b = rand(2, 2)
print("Before:")
print(a)
print(b)
print("\nAfter adding:")
print(a.add_(b))
print(a)
print(b)
print("\nAfter multiplying")
print(b.mul_(b))
print(b)

a = rand(2, 2)
b = rand(2, 2)
c = torch.zeros(2, 2)
old_id = id(c)
print(c)
d = torch.matmul(a, b, out=c)
print(c)
assert c is d
assert id(c) == old_id

a = torch.ones(2, 2)
b = a.clone()
assert b is not a
print(torch.eq(a, b))
a[0][1] = 561
print(b)

a = torch.ones(2, 2, requires_grad=True)
print(a)
b = a.clone()
print(b)
c = a.detach().clone()
print(c)
print(a)

a = torch.ones(3, 226, 226)
b = a.unsqueeze(0)
print(a.shape)
print(b.shape)
c = rand(1, 1, 1, 1, 1)
print(c.shape)
a = rand(1, 20)
print(a.shape)
b = a.squeeze(0)
print(b.shape)
c = rand(2, 2)
print(c.shape)
d = c.squeeze(0)
print(d.shape)

a = torch.ones(4, 3, 2)
c = a * rand(3, 1)
a = torch.ones(4, 3, 2)
b = rand(3)
c = b.unsqueeze(1)
print(c.shape)
print(a * c)

batch_me = rand(3, 226, 226)
print(batch_me.shape)
batch_me.unsqueeze_(0)
print(batch_me.shape)

output3d = torch.zeros(6, 20, 20)
print(output3d.shape)
input1d = output3d.reshape(6 * 20 * 20)
print(input1d.shape)
print(torch.reshape(output3d, (6 * 20 * 20,)).shape)

numpy_array = np.ones((2, 3))
print(numpy_array)
pytorch_tensor = torch.from_numpy(numpy_array)
print(pytorch_tensor)
pytorch_rand = rand(2, 3)
numpy_rand = pytorch_rand.numpy()
print(numpy_rand.shape, numpy_rand.dtype)
numpy_array[1, 1] = 23
print(pytorch_tensor)
pytorch_rand[1, 1] = 17
print(numpy_rand[1, 1])
