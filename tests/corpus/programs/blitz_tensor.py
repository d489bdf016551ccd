# Corpus program: "Tensors" of "Deep Learning with PyTorch: A 60 Minute Blitz".
# Source: pytorch/tutorials, beginner_source/blitz/tensor_tutorial.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: random tensors are printed through their shape and dtype only.
# Randomness: only shapes of random tensors are printed; the rest is deterministic.
import numpy as np
import torch

data = [[1, 2], [3, 4]]
x_data = torch.tensor(data)
print(x_data)
x_np = torch.from_numpy(np.array(data))
print(x_np)
x_ones = torch.ones_like(x_data)
print(f"Ones Tensor: \n {x_ones} \n")
x_rand = torch.rand_like(x_data, dtype=torch.float)
print(f"Random Tensor: {tuple(x_rand.shape)} {x_rand.dtype}")

shape = (2, 3,)
print(torch.rand(shape).shape, torch.ones(shape), torch.zeros(shape))

tensor = torch.rand(3, 4)
print(f"Shape of tensor: {tensor.shape}")
print(f"Datatype of tensor: {tensor.dtype}")
print(f"Device tensor is stored on: {tensor.device}")

tensor = torch.ones(4, 4)
tensor[:, 1] = 0
print(tensor)
t1 = torch.cat([tensor, tensor, tensor], dim=1)
print(t1)
print(f"tensor.mul(tensor) \n {tensor.mul(tensor)} \n")
print(f"tensor * tensor \n {tensor * tensor}")
print(f"tensor.matmul(tensor.T) \n {tensor.matmul(tensor.T)} \n")
print(f"tensor @ tensor.T \n {tensor @ tensor.T}")
print(tensor, "\n")
tensor.add_(5)
print(tensor)

t = torch.ones(5)
n = t.numpy()
t.add_(1)
print(f"t: {t}")
print(f"n: {n}")
n = np.ones(5)
t = torch.from_numpy(n)
np.add(n, 1, out=n)
print(f"t: {t}")
print(f"n: {n}")
