# Corpus program: yunjey's PyTorch basics (autograd, loading from NumPy, input pipeline with a custom Dataset,
#   save/load).
# Source: yunjey/pytorch-tutorial, tutorials/01-basics/pytorch_basics/main.py.
# Licence: MIT (pytorch-tutorial); re-written here following the file.
# Changes: CIFAR-10 and the pretrained resnet18 are replaced by a TensorDataset of random images and a small CNN;
#   files go to a temporary folder.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers).
# corpus-tolerance: rtol=1e-4 -- float32 arithmetic.
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
# ================================================================== #
#                     1. Basic autograd example 1                    #
# ================================================================== #
x = torch.tensor(1., requires_grad=True)
w = torch.tensor(2., requires_grad=True)
b = torch.tensor(3., requires_grad=True)
y = w * x + b    # y = 2 * x + 3
y.backward()
print(x.grad)    # x.grad = 2
print(w.grad)    # w.grad = 1
print(b.grad)    # b.grad = 1

# ================================================================== #
#                    2. Basic autograd example 2                     #
# ================================================================== #
x = torch.randn(10, 3)
y = torch.randn(10, 2)
linear = nn.Linear(3, 2)
print ('w: ', linear.weight)
print ('b: ', linear.bias)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(linear.parameters(), lr=0.01)
pred = linear(x)
loss = criterion(pred, y)
print('loss: ', loss.item())
loss.backward()
print ('dL/dw: ', linear.weight.grad)
print ('dL/db: ', linear.bias.grad)
optimizer.step()
pred = linear(x)
loss = criterion(pred, y)
print('loss after 1 step optimization: ', loss.item())

# ================================================================== #
#                     3. Loading data from numpy                     #
# ================================================================== #
x = np.array([[1, 2], [3, 4]])
y = torch.from_numpy(x)
z = y.numpy()
print(y, z, type(z).__name__, z.dtype)

# ================================================================== #
#                         4. Input pipeline                          #
# ================================================================== #
train_dataset = torch.utils.data.TensorDataset(torch.randn(20, 3, 8, 8), torch.randint(0, 10, (20,)))
image, label = train_dataset[0]
print (image.size())
print (label)
train_loader = torch.utils.data.DataLoader(dataset=train_dataset, batch_size=8, shuffle=True)
data_iter = iter(train_loader)
images, labels = next(data_iter)
print(images.shape, labels)
for images, labels in train_loader:
    pass
print(images.shape)


class CustomDataset(torch.utils.data.Dataset):
    def __init__(self):
        self.data = torch.arange(12.).view(6, 2)

    def __getitem__(self, index):
        return self.data[index], index % 2

    def __len__(self):
        return 6


custom_dataset = CustomDataset()
train_loader = torch.utils.data.DataLoader(dataset=custom_dataset, batch_size=4, shuffle=False)
for batch in train_loader:
    print(batch)

# ================================================================== #
#                        6. Save and load the model                  #
# ================================================================== #
model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 10))
for param in model.parameters():
    param.requires_grad = False
model[4] = nn.Linear(4, 100)  # 100 is an example.
print(model(images).size(), [p.requires_grad for p in model.parameters()])
folder = tempfile.mkdtemp()
torch.save(model, os.path.join(folder, 'model.ckpt'))
model = torch.load(os.path.join(folder, 'model.ckpt'), weights_only=False)
torch.save(model.state_dict(), os.path.join(folder, 'params.ckpt'))
model.load_state_dict(torch.load(os.path.join(folder, 'params.ckpt')))
print(model)
