# Corpus program: pytorch/examples "mnist_rnn": an LSTM reads each image row by row.
# Source: pytorch/examples, mnist_rnn/main.py
# Licence: BSD-3-Clause (pytorch/examples); re-written here following the example's steps.
# Changes: MNIST is replaced by scikit-learn's digits padded to 28x28 (64 train, 32 test);
#   1 epoch of batch 16; dropout p=0 (random masks differ); no argparse.
# Randomness: weights set from NumPy; no shuffling.
# corpus-tolerance: rtol=1e-4 -- 28 LSTM steps and batch normalisation in float32.
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
        self.rnn = nn.LSTM(input_size=28, hidden_size=64, batch_first=True)
        self.batchnorm = nn.BatchNorm1d(64)
        self.dropout1 = nn.Dropout2d(0.0)
        self.dropout2 = nn.Dropout2d(0.0)
        self.fc1 = nn.Linear(64, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, input):
        input = input.reshape(-1, 28, 28)
        output, hidden = self.rnn(input)
        output = output[:, -1, :]
        output = self.batchnorm(output)
        output = self.dropout1(output)
        output = self.fc1(output)
        output = F.relu(output)
        output = self.dropout2(output)
        output = self.fc2(output)
        output = F.log_softmax(output, dim=1)
        return output


def train(model, train_loader, optimizer, epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        print(f"Train Epoch: {epoch} [{batch_idx * len(data)}/{len(train_loader.dataset)} "
              f"({100. * batch_idx / len(train_loader):.0f}%)]\tLoss: {loss.item():.6f}")


def test(model, test_loader):
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction="sum").item()
            pred = output.argmax(dim=1, keepdim=True)
            correct += pred.eq(target.view_as(pred)).sum().item()
    test_loss /= len(test_loader.dataset)
    print(f"\nTest set: Average loss: {test_loss:.4f}, Accuracy: {correct}/{len(test_loader.dataset)} "
          f"({100. * correct / len(test_loader.dataset):.0f}%)\n")


digits = load_digits()
images = np.zeros((len(digits.images), 1, 28, 28), dtype=np.float32)
images[:, 0, 10:18, 10:18] = digits.images / 16.0
images = (images - 0.1307) / 0.3081
train_loader = DataLoader(TensorDataset(torch.from_numpy(images[:64]), torch.from_numpy(digits.target[:64])),
                          batch_size=16)
test_loader = DataLoader(TensorDataset(torch.from_numpy(images[64:96]), torch.from_numpy(digits.target[64:96])),
                         batch_size=32)
model = Net()
rng = np.random.default_rng(47)
with torch.no_grad():
    for name, p in model.named_parameters():
        if "batchnorm" not in name:
            p.copy_(torch.from_numpy(rng.uniform(-0.15, 0.15, tuple(p.shape)).astype(np.float32)))
optimizer = optim.Adadelta(model.parameters(), lr=0.1)
scheduler = StepLR(optimizer, step_size=1, gamma=0.7)
for epoch in range(1, 2):
    train(model, train_loader, optimizer, epoch)
    test(model, test_loader)
    scheduler.step()
print(model.batchnorm.running_mean[:4], model.batchnorm.num_batches_tracked)
