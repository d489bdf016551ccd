# Corpus program: "Training with PyTorch" of "Introduction to PyTorch - YouTube Series".
# Source: pytorch/tutorials, beginner_source/introyt/trainingyt.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: FashionMNIST is replaced by 128 + 32 NumPy images of 1x28x28; TensorBoard logging is
#   left out; 2 epochs, loss reported every 8 batches; the loaders do not shuffle.
# Randomness: weights set from NumPy; no shuffling.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(22)
x = rng.random((160, 1, 28, 28), dtype=np.float32)
y = rng.integers(0, 10, 160)
x[np.arange(160), 0, y, :] += 1.0
training_set = TensorDataset(torch.from_numpy((x[:128] - 0.5) / 0.5), torch.from_numpy(y[:128]))
validation_set = TensorDataset(torch.from_numpy((x[128:] - 0.5) / 0.5), torch.from_numpy(y[128:]))
training_loader = DataLoader(training_set, batch_size=4, shuffle=False)
validation_loader = DataLoader(validation_set, batch_size=4, shuffle=False)
classes = ("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
           "Sandal", "Shirt", "Sneaker", "Bag", "Ankle Boot")
print(f"Training set has {len(training_set)} instances")
print(f"Validation set has {len(validation_set)} instances")

dataiter = iter(training_loader)
images, labels = next(dataiter)
print("  ".join(classes[labels[j]] for j in range(4)))


class GarmentClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 4 * 4, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 4 * 4)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


model = GarmentClassifier()
with torch.no_grad():
    for p in model.parameters():
        fan_in = p[0].numel() if p.dim() > 1 else p.numel()
        p.copy_(torch.from_numpy((rng.uniform(-1, 1, tuple(p.shape)) / fan_in**0.5).astype(np.float32)))

loss_fn = torch.nn.CrossEntropyLoss()
dummy_outputs = torch.from_numpy(rng.random((4, 10), dtype=np.float32))
dummy_labels = torch.tensor([1, 5, 3, 7])
print(dummy_outputs)
print(dummy_labels)
loss = loss_fn(dummy_outputs, dummy_labels)
print(f"Total loss for this batch: {loss.item():.6f}")

optimizer = torch.optim.SGD(model.parameters(), lr=0.001, momentum=0.9)


def train_one_epoch(epoch_index):
    running_loss = 0.
    last_loss = 0.
    for i, data in enumerate(training_loader):
        inputs, labels = data
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = loss_fn(outputs, labels)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
        if i % 8 == 7:
            last_loss = running_loss / 8
            print(f"  batch {i + 1} loss: {last_loss:.5f}")
            running_loss = 0.
    return last_loss


epoch_number = 0
EPOCHS = 2
best_vloss = 1_000_000.
for epoch in range(EPOCHS):
    print(f"EPOCH {epoch_number + 1}:")
    model.train(True)
    avg_loss = train_one_epoch(epoch_number)
    running_vloss = 0.0
    model.eval()
    with torch.no_grad():
        for i, vdata in enumerate(validation_loader):
            vinputs, vlabels = vdata
            voutputs = model(vinputs)
            vloss = loss_fn(voutputs, vlabels)
            running_vloss += vloss
    avg_vloss = running_vloss / (i + 1)
    print(f"LOSS train {avg_loss:.5f} valid {avg_vloss.item():.5f}")
    if avg_vloss < best_vloss:
        best_vloss = avg_vloss
        model_path = f"model_{epoch_number}"
        torch.save(model.state_dict(), model_path)
    epoch_number += 1

saved_model = GarmentClassifier()
saved_model.load_state_dict(torch.load(model_path, weights_only=True))
print(model_path, torch.equal(saved_model.fc3.weight, model.fc3.weight))
