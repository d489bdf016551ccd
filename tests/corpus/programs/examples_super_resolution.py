# Corpus program: pytorch/examples "super_resolution": the sub-pixel convolution network
#   (PixelShuffle), trained with Adam on the MSE loss, evaluated by PSNR.
# Source: pytorch/examples, super_resolution/model.py and main.py
# Licence: BSD-3-Clause (pytorch/examples); re-written here following the example's steps.
# Changes: BSDS300 (a download) is replaced by 8 NumPy images of 1x32x32 and their 2x2 block
#   means as the low-resolution input; upscale factor 2; 3 epochs; the orthogonal init is
#   replaced by NumPy-made weights (torch.nn.init.orthogonal_ draws random numbers).
# Randomness: weights and images from NumPy.
# corpus-tolerance: rtol=1e-4 -- Adam steps through four convolutions in float32.
import math

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self, upscale_factor):
        super().__init__()
        self.relu = nn.ReLU()
        self.conv1 = nn.Conv2d(1, 16, (5, 5), (1, 1), (2, 2))
        self.conv2 = nn.Conv2d(16, 16, (3, 3), (1, 1), (1, 1))
        self.conv3 = nn.Conv2d(16, 8, (3, 3), (1, 1), (1, 1))
        self.conv4 = nn.Conv2d(8, upscale_factor ** 2, (3, 3), (1, 1), (1, 1))
        self.pixel_shuffle = nn.PixelShuffle(upscale_factor)
        self._initialize_weights()

    def forward(self, x):
        x = self.relu(self.conv1(x))
        x = self.relu(self.conv2(x))
        x = self.relu(self.conv3(x))
        x = self.pixel_shuffle(self.conv4(x))
        return x

    def _initialize_weights(self):
        rng = np.random.default_rng(49)
        with torch.no_grad():
            for p in self.parameters():
                fan_in = p[0].numel() if p.dim() > 1 else p.numel()
                p.copy_(torch.from_numpy((rng.uniform(-1, 1, tuple(p.shape)) / fan_in**0.5).astype(np.float32)))


rng = np.random.default_rng(50)
high = rng.random((8, 1, 32, 32), dtype=np.float32)
low = high.reshape(8, 1, 16, 2, 16, 2).mean(axis=(3, 5))
training_data_loader = DataLoader(TensorDataset(torch.from_numpy(low[:6]), torch.from_numpy(high[:6])), batch_size=2)
testing_data_loader = DataLoader(TensorDataset(torch.from_numpy(low[6:]), torch.from_numpy(high[6:])), batch_size=2)

model = Net(upscale_factor=2)
print(model)
criterion = nn.MSELoss()
optimizer = optim.Adam(model.parameters(), lr=0.001)


def train(epoch):
    epoch_loss = 0
    for iteration, batch in enumerate(training_data_loader, 1):
        input, target = batch[0], batch[1]
        optimizer.zero_grad()
        loss = criterion(model(input), target)
        epoch_loss += loss.item()
        loss.backward()
        optimizer.step()
        print(f"===> Epoch[{epoch}]({iteration}/{len(training_data_loader)}): Loss: {loss.item():.5f}")
    print(f"===> Epoch {epoch} Complete: Avg. Loss: {epoch_loss / len(training_data_loader):.5f}")


def test():
    avg_psnr = 0
    with torch.no_grad():
        for batch in testing_data_loader:
            input, target = batch[0], batch[1]
            prediction = model(input)
            mse = criterion(prediction, target)
            psnr = 10 * math.log10(1 / mse.item())
            avg_psnr += psnr
    print(f"===> Avg. PSNR: {avg_psnr / len(testing_data_loader):.3f} dB")


for epoch in range(1, 4):
    train(epoch)
    test()
print(model(torch.from_numpy(low[:1])).shape)
