# Corpus program: "DCGAN Tutorial": the generator (transposed convolutions) and discriminator,
#   weights_init applied with Module.apply, BCELoss, the alternating Adam updates.
# Source: pytorch/tutorials, beginner_source/dcgan_faces_tutorial.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: CelebA (a download) is replaced by 16 NumPy images of 3x64x64 in [-1, 1]; feature maps
#   of 8 (ngf, ndf) instead of 64 and nz=16; 2 iterations of batch 8; the noise and weights_init's
#   normal_ draws come from NumPy; no plots.
# Randomness: noise, data and weights from NumPy.
# corpus-tolerance: rtol=1e-3 -- batch normalisation over tiny batches and Adam steps in float32.
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(999)
nc = 3
nz = 16
ngf = 8
ndf = 8
lr = 0.0002
beta1 = 0.5
ngpu = 0
device = torch.device("cpu")
dataset = TensorDataset(torch.from_numpy(rng.uniform(-1, 1, (16, 3, 64, 64)).astype(np.float32)))
dataloader = DataLoader(dataset, batch_size=8, shuffle=False)


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        with torch.no_grad():
            m.weight.copy_(torch.tensor(rng.normal(0.0, 0.02, tuple(m.weight.shape)), dtype=torch.float32))
    elif classname.find("BatchNorm") != -1:
        with torch.no_grad():
            m.weight.copy_(torch.tensor(rng.normal(1.0, 0.02, tuple(m.weight.shape)), dtype=torch.float32))
        nn.init.constant_(m.bias.data, 0)


class Generator(nn.Module):
    def __init__(self, ngpu):
        super().__init__()
        self.ngpu = ngpu
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 8, 4, 1, 0, bias=False),
            nn.BatchNorm2d(ngf * 8),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 8, ngf * 4, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf * 4),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False),
            nn.Tanh()
        )

    def forward(self, input):
        return self.main(input)


class Discriminator(nn.Module):
    def __init__(self, ngpu):
        super().__init__()
        self.ngpu = ngpu
        self.main = nn.Sequential(
            nn.Conv2d(nc, ndf, 4, 2, 1, bias=False),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 2),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 2, ndf * 4, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 4),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 4, ndf * 8, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 8),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 8, 1, 4, 1, 0, bias=False),
            nn.Sigmoid()
        )

    def forward(self, input):
        return self.main(input)


netG = Generator(ngpu).to(device)
netG.apply(weights_init)
print(netG)
netD = Discriminator(ngpu).to(device)
netD.apply(weights_init)
print(netD)

criterion = nn.BCELoss()
fixed_noise = torch.tensor(rng.standard_normal((4, nz, 1, 1)), dtype=torch.float32, device=device)
real_label = 1.
fake_label = 0.
optimizerD = optim.Adam(netD.parameters(), lr=lr, betas=(beta1, 0.999))
optimizerG = optim.Adam(netG.parameters(), lr=lr, betas=(beta1, 0.999))

img_list = []
G_losses = []
D_losses = []
iters = 0
num_epochs = 1
print("Starting Training Loop...")
for epoch in range(num_epochs):
    for i, data in enumerate(dataloader, 0):
        netD.zero_grad()
        real_cpu = data[0].to(device)
        b_size = real_cpu.size(0)
        label = torch.full((b_size,), real_label, dtype=torch.float, device=device)
        output = netD(real_cpu).view(-1)
        errD_real = criterion(output, label)
        errD_real.backward()
        D_x = output.mean().item()
        noise = torch.tensor(rng.standard_normal((b_size, nz, 1, 1)), dtype=torch.float32, device=device)
        fake = netG(noise)
        label.fill_(fake_label)
        output = netD(fake.detach()).view(-1)
        errD_fake = criterion(output, label)
        errD_fake.backward()
        D_G_z1 = output.mean().item()
        errD = errD_real + errD_fake
        optimizerD.step()
        netG.zero_grad()
        label.fill_(real_label)
        output = netD(fake).view(-1)
        errG = criterion(output, label)
        errG.backward()
        D_G_z2 = output.mean().item()
        optimizerG.step()
        print(f"[{epoch}/{num_epochs}][{i}/{len(dataloader)}]\tLoss_D: {errD.item():.4f}\tLoss_G: {errG.item():.4f}\t"
              f"D(x): {D_x:.4f}\tD(G(z)): {D_G_z1:.4f} / {D_G_z2:.4f}")
        G_losses.append(errG.item())
        D_losses.append(errD.item())
        iters += 1

with torch.no_grad():
    fake = netG(fixed_noise).detach().cpu()
print(fake.shape, f"{fake.mean().item():.4f}")
