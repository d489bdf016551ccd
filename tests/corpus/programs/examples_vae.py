# Corpus program: pytorch/examples "vae": the variational auto-encoder and its loss (binary cross
#   entropy + the continuous Bernoulli normalising constant + KL divergence), trained with Adam.
# Source: pytorch/examples, vae/main.py
# Licence: BSD-3-Clause (pytorch/examples); re-written here following the example's steps.
# Changes: MNIST is replaced by scikit-learn's digits padded to 28x28 in [0, 1] (192 train, 64
#   test); 2 epochs of batch 64; no image files are saved; the noise of the reparameterisation
#   comes from a NumPy generator instead of torch.randn_like.
# Randomness: weights set from NumPy; the reparameterisation noise from NumPy; no shuffling.
# corpus-tolerance: rtol=1e-4 -- sums over 784 pixels of log terms near 0 and 1 in float32.
import numpy as np
import torch
import torch.utils.data
from sklearn.datasets import load_digits
from torch import nn, optim
from torch.nn import functional as F

digits = load_digits()
images = np.zeros((len(digits.images), 1, 28, 28), dtype=np.float32)
images[:, 0, 10:18, 10:18] = digits.images / 16.0
train_loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(torch.from_numpy(images[:192]), torch.from_numpy(digits.target[:192])),
    batch_size=64)
test_loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(torch.from_numpy(images[192:256]), torch.from_numpy(digits.target[192:256])),
    batch_size=64)
noise = np.random.default_rng(44)


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 400)
        self.fc21 = nn.Linear(400, 20)
        self.fc22 = nn.Linear(400, 20)
        self.fc3 = nn.Linear(20, 400)
        self.fc4 = nn.Linear(400, 784)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.from_numpy(noise.standard_normal(tuple(std.shape)).astype(np.float32))
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.clamp(torch.sigmoid(self.fc4(h3)), min=1e-4, max=1.0 - 1e-4)

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 784))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


model = VAE()
rng = np.random.default_rng(45)
with torch.no_grad():
    for p in model.parameters():
        fan_in = p[0].numel() if p.dim() > 1 else p.numel()
        p.copy_(torch.from_numpy((rng.uniform(-1, 1, tuple(p.shape)) / fan_in**0.5).astype(np.float32)))
optimizer = optim.Adam(model.parameters(), lr=1e-3)


def atanh(x):
    return 0.5 * (torch.log(1.0 + x) - torch.log(1.0 - x))


def cont_bern_log_norm(lam, l_lim=0.49, u_lim=0.51):
    cut_lam = torch.where(torch.max(torch.le(lam, l_lim), torch.gt(lam, u_lim)), lam, l_lim * torch.ones_like(lam))
    log_norm = torch.log(torch.abs(2.0 * atanh(1 - 2.0 * cut_lam))) - torch.log(torch.abs(1 - 2.0 * cut_lam))
    taylor = torch.log(torch.tensor(2.0)) + 4.0 / 3.0 * torch.pow(lam - 0.5, 2) + 104.0 / 45.0 * torch.pow(lam - 0.5, 4)
    return torch.where(torch.max(torch.le(lam, l_lim), torch.gt(lam, u_lim)), log_norm, taylor)


def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 784), reduction="sum")
    NLNC = -torch.sum(cont_bern_log_norm(recon_x))
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + NLNC + KLD


def train(epoch):
    model.train()
    train_loss = 0
    for batch_idx, (data, _) in enumerate(train_loader):
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
        print(f"Train Epoch: {epoch} [{batch_idx * len(data)}/{len(train_loader.dataset)} "
              f"({100. * batch_idx / len(train_loader):.0f}%)]\tLoss: {loss.item() / len(data):.4f}")
    print(f"====> Epoch: {epoch} Average loss: {train_loss / len(train_loader.dataset):.4f}")


def test(epoch):
    model.eval()
    test_loss = 0
    with torch.no_grad():
        for i, (data, _) in enumerate(test_loader):
            recon_batch, mu, logvar = model(data)
            test_loss += loss_function(recon_batch, data, mu, logvar).item()
            if i == 0:
                n = min(data.size(0), 8)
                comparison = torch.cat([data[:n], recon_batch.view(64, 1, 28, 28)[:n]])
                print(comparison.shape)
    test_loss /= len(test_loader.dataset)
    print(f"====> Test set loss: {test_loss:.4f}")


if __name__ == "__main__":
    for epoch in range(1, 3):
        train(epoch)
        test(epoch)
        with torch.no_grad():
            sample = torch.from_numpy(noise.standard_normal((64, 20)).astype(np.float32))
            sample = model.decode(sample).cpu()
            print(sample.view(64, 1, 28, 28).shape, f"{sample.mean().item():.4f}")
