# Corpus program: "Training a Classifier" (CIFAR-10) of the 60 Minute Blitz.
# Source: pytorch/tutorials, beginner_source/blitz/cifar10_tutorial.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: CIFAR-10 (a download) is replaced by 64 training and 32 test images of 3x32x32 made with
#   NumPy (normalised to [-1, 1] as the tutorial's transform does), 2 epochs, batch size 4; the
#   mini-batch loss is printed every 8 batches instead of every 2000.
# Randomness: weights set from NumPy; no shuffling.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(9)
classes = ("plane", "car", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck")


def images(n):
    x = rng.random((n, 3, 32, 32), dtype=np.float32)
    y = rng.integers(0, 10, n)
    x[np.arange(n), y % 3, :, :] += 0.3 * (y[:, None, None] / 10)
    return TensorDataset(torch.from_numpy((np.clip(x, 0, 1) - 0.5) / 0.5), torch.from_numpy(y))


batch_size = 4
trainloader = DataLoader(images(64), batch_size=batch_size, shuffle=False)
testloader = DataLoader(images(32), batch_size=batch_size, shuffle=False)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


net = Net()
weights = np.random.default_rng(0)
with torch.no_grad():
    for parameter in net.parameters():
        fan_in = parameter[0].numel() if parameter.dim() > 1 else parameter.numel()
        values = weights.uniform(-1, 1, tuple(parameter.shape)) / fan_in**0.5
        parameter.copy_(torch.from_numpy(values.astype(np.float32)))

criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)

for epoch in range(2):
    running_loss = 0.0
    for i, data in enumerate(trainloader, 0):
        inputs, labels = data
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
        if i % 8 == 7:
            print(f"[{epoch + 1}, {i + 1:5d}] loss: {running_loss / 8:.3f}")
            running_loss = 0.0
print("Finished Training")

PATH = "./cifar_net.pth"
torch.save(net.state_dict(), PATH)

dataiter = iter(testloader)
images_, labels = next(dataiter)
print("GroundTruth: ", " ".join(f"{classes[labels[j]]:5s}" for j in range(4)))
net = Net()
net.load_state_dict(torch.load(PATH, weights_only=True))
outputs = net(images_)
_, predicted = torch.max(outputs, 1)
print("Predicted: ", " ".join(f"{classes[predicted[j]]:5s}" for j in range(4)))

correct = 0
total = 0
with torch.no_grad():
    for data in testloader:
        images_, labels = data
        outputs = net(images_)
        _, predicted = torch.max(outputs.data, 1)
        total += labels.size(0)
        correct += (predicted == labels).sum().item()
print(f"Accuracy of the network on the {total} test images: {100 * correct // total} %")

correct_pred = {classname: 0 for classname in classes}
total_pred = {classname: 0 for classname in classes}
with torch.no_grad():
    for data in testloader:
        images_, labels = data
        outputs = net(images_)
        _, predictions = torch.max(outputs, 1)
        for label, prediction in zip(labels, predictions):
            if label == prediction:
                correct_pred[classes[label]] += 1
            total_pred[classes[label]] += 1
for classname, correct_count in correct_pred.items():
    accuracy = 100 * float(correct_count) / max(1, total_pred[classname])
    print(f"Accuracy for class: {classname:5s} is {accuracy:.1f} %")
