# Corpus program: pytorch/examples "mnist": the convolutional network, Adadelta and StepLR.
# Source: pytorch/examples, mnist/main.py
# Licence: BSD-3-Clause (pytorch/examples); re-written here following the example's steps.
# Changes: MNIST (a download) is replaced by scikit-learn's bundled digits padded to 28x28 and
#   normalised with the example's mean and std (32 train, 32 test); 2 epochs of batch 16;
#   no argparse; dropout p=0 (random masks differ between libraries).
# Randomness: weights set from NumPy; no shuffling, no dropout.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from sklearn.datasets import load_digits
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout(0.0)
        self.dropout2 = nn.Dropout(0.0)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.dropout2(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


def train(log_interval, model, device, train_loader, optimizer, epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % log_interval == 0:
            print(f"Train Epoch: {epoch} [{batch_idx * len(data)}/{len(train_loader.dataset)} "
                  f"({100. * batch_idx / len(train_loader):.0f}%)]\tLoss: {loss.item():.6f}")


def test(model, device, test_loader):
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction="sum").item()
            pred = output.argmax(dim=1, keepdim=True)
            correct += pred.eq(target.view_as(pred)).sum().item()
    test_loss /= len(test_loader.dataset)
    print(f"\nTest set: Average loss: {test_loss:.4f}, Accuracy: {correct}/{len(test_loader.dataset)} "
          f"({100. * correct / len(test_loader.dataset):.0f}%)\n")


def main():
    torch.manual_seed(1)
    device = torch.device("cpu")
    digits = load_digits()
    images = np.zeros((len(digits.images), 1, 28, 28), dtype=np.float32)
    images[:, 0, 10:18, 10:18] = digits.images / 16.0
    images = (images - 0.1307) / 0.3081
    dataset1 = TensorDataset(torch.from_numpy(images[:32]), torch.from_numpy(digits.target[:32]))
    dataset2 = TensorDataset(torch.from_numpy(images[32:64]), torch.from_numpy(digits.target[32:64]))
    train_loader = DataLoader(dataset1, batch_size=16)
    test_loader = DataLoader(dataset2, batch_size=1000)

    model = Net().to(device)
    rng = np.random.default_rng(39)
    with torch.no_grad():
        for p in model.parameters():
            fan_in = p[0].numel() if p.dim() > 1 else p.numel()
            p.copy_(torch.from_numpy((rng.uniform(-1, 1, tuple(p.shape)) / fan_in**0.5).astype(np.float32)))
    optimizer = optim.Adadelta(model.parameters(), lr=1.0)
    scheduler = StepLR(optimizer, step_size=1, gamma=0.7)
    for epoch in range(1, 3):
        train(1, model, device, train_loader, optimizer, epoch)
        test(model, device, test_loader)
        scheduler.step()
    print(scheduler.get_last_lr())
    torch.save(model.state_dict(), "mnist_cnn.pt")


if __name__ == "__main__":
    main()
