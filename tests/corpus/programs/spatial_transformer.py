# Corpus program: "Spatial Transformer Networks Tutorial": the localisation network, F.affine_grid
#   and F.grid_sample, trained on digits.
# Source: pytorch/tutorials, intermediate_source/spatial_transformer_tutorial.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: MNIST is replaced by 64 scikit-learn digits padded to 28x28 (normalised as in the
#   tutorial); 1 epoch of batch 16; F.dropout and Dropout2d with p=0 (random masks differ).
# Randomness: weights set from NumPy (the identity init of fc_loc kept); no shuffling.
# corpus-tolerance: rtol=1e-3 -- bilinear sampling and SGD steps in float32, from an identity warp:
#   every sample then sits exactly on a pixel centre, where bilinear sampling's gradient jumps, and
#   grid coordinates one float32 ulp apart (PyTorch's vectorised linspace rounds a few of the 28
#   positions the other way) pick the other side. The losses agree to 1e-5, the final mean to 2e-4.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from sklearn.datasets import load_digits
from torch.utils.data import DataLoader, TensorDataset

digits = load_digits()
images = np.zeros((len(digits.images), 1, 28, 28), dtype=np.float32)
images[:, 0, 10:18, 10:18] = digits.images / 16.0
images = (images - 0.1307) / 0.3081
train_loader = DataLoader(TensorDataset(torch.from_numpy(images[:64]), torch.from_numpy(digits.target[:64])),
                          batch_size=16)
test_loader = DataLoader(TensorDataset(torch.from_numpy(images[64:96]), torch.from_numpy(digits.target[64:96])),
                         batch_size=32)
device = torch.device("cpu")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
        self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
        self.conv2_drop = nn.Dropout2d(p=0.0)
        self.fc1 = nn.Linear(320, 50)
        self.fc2 = nn.Linear(50, 10)
        self.localization = nn.Sequential(
            nn.Conv2d(1, 8, kernel_size=7),
            nn.MaxPool2d(2, stride=2),
            nn.ReLU(True),
            nn.Conv2d(8, 10, kernel_size=5),
            nn.MaxPool2d(2, stride=2),
            nn.ReLU(True)
        )
        self.fc_loc = nn.Sequential(
            nn.Linear(10 * 3 * 3, 32),
            nn.ReLU(True),
            nn.Linear(32, 3 * 2)
        )
        rng = np.random.default_rng(56)
        with torch.no_grad():
            for p in self.parameters():
                fan_in = p[0].numel() if p.dim() > 1 else p.numel()
                p.copy_(torch.from_numpy((rng.uniform(-1, 1, tuple(p.shape)) / fan_in**0.5).astype(np.float32)))
        self.fc_loc[2].weight.data.zero_()
        self.fc_loc[2].bias.data.copy_(torch.tensor([1, 0, 0, 0, 1, 0], dtype=torch.float))

    def stn(self, x):
        xs = self.localization(x)
        xs = xs.view(-1, 10 * 3 * 3)
        theta = self.fc_loc(xs)
        theta = theta.view(-1, 2, 3)
        grid = F.affine_grid(theta, x.size(), align_corners=False)
        x = F.grid_sample(x, grid, align_corners=False)
        return x

    def forward(self, x):
        x = self.stn(x)
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
        x = x.view(-1, 320)
        x = F.relu(self.fc1(x))
        x = F.dropout(x, p=0.0, training=self.training)
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


model = Net().to(device)
optimizer = optim.SGD(model.parameters(), lr=0.01)


def train(epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        print(f"Train Epoch: {epoch} [{batch_idx * len(data)}/{len(train_loader.dataset)} "
              f"({100. * batch_idx / len(train_loader):.0f}%)]\tLoss: {loss.item():.6f}")


def test():
    with torch.no_grad():
        model.eval()
        test_loss = 0
        correct = 0
        for data, target in test_loader:
            output = model(data)
            test_loss += F.nll_loss(output, target, size_average=False).item()
            pred = output.max(1, keepdim=True)[1]
            correct += pred.eq(target.view_as(pred)).sum().item()
        test_loss /= len(test_loader.dataset)
        print(f"\nTest set: Average loss: {test_loss:.4f}, Accuracy: {correct}/{len(test_loader.dataset)} "
              f"({100. * correct / len(test_loader.dataset):.0f}%)\n")


train(1)
test()
with torch.no_grad():
    data = next(iter(test_loader))[0]
    transformed = model.stn(data)
    print(transformed.shape, f"{transformed.mean().item():.5f}")
