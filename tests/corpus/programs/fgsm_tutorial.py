# Corpus program: "Adversarial Example Generation" (the fast gradient sign method).
# Source: pytorch/tutorials, beginner_source/fgsm_tutorial.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: the pretrained LeNet (a download) is replaced by the same network trained here for 4
#   steps on scikit-learn's digits padded to 28x28; the test set is 8 digits, attacked one at a
#   time with the tutorial's epsilons; dropout p=0 (random masks differ); no plots.
# Randomness: weights set from NumPy; no shuffling, no dropout.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from sklearn.datasets import load_digits

epsilons = [0, .05, .1, .15, .2, .25, .3]
torch.manual_seed(42)


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


digits = load_digits()
images = np.zeros((len(digits.images), 1, 28, 28), dtype=np.float32)
images[:, 0, 10:18, 10:18] = digits.images / 16.0
train_x, train_y = torch.from_numpy(images[:64]), torch.from_numpy(digits.target[:64])
test_x, test_y = torch.from_numpy(images[1000:1008]), torch.from_numpy(digits.target[1000:1008])

device = torch.device("cpu")
model = Net().to(device)
rng = np.random.default_rng(54)
with torch.no_grad():
    for p in model.parameters():
        fan_in = p[0].numel() if p.dim() > 1 else p.numel()
        p.copy_(torch.from_numpy((rng.uniform(-1, 1, tuple(p.shape)) / fan_in**0.5).astype(np.float32)))
optimizer = optim.Adam(model.parameters(), lr=1e-3)
for step in range(4):
    batch = slice(step % 4 * 16, step % 4 * 16 + 16)
    optimizer.zero_grad()
    loss = F.nll_loss(model(train_x[batch]), train_y[batch])
    loss.backward()
    optimizer.step()
print(f"{loss.item():.4f}")
model.eval()


def fgsm_attack(image, epsilon, data_grad):
    sign_data_grad = data_grad.sign()
    perturbed_image = image + epsilon * sign_data_grad
    perturbed_image = torch.clamp(perturbed_image, 0, 1)
    return perturbed_image


def denorm(batch, mean=[0.1307], std=[0.3081]):
    if isinstance(mean, list):
        mean = torch.tensor(mean).to(device)
    if isinstance(std, list):
        std = torch.tensor(std).to(device)
    return batch * std.view(1, -1, 1, 1) + mean.view(1, -1, 1, 1)


def test(model, device, epsilon):
    correct = 0
    adv_examples = []
    for i in range(len(test_x)):
        data, target = test_x[i:i + 1], test_y[i:i + 1]
        data = ((data - 0.1307) / 0.3081).to(device)
        data.requires_grad = True
        output = model(data)
        init_pred = output.max(1, keepdim=True)[1]
        if init_pred.item() != target.item():
            continue
        loss = F.nll_loss(output, target)
        model.zero_grad()
        loss.backward()
        data_grad = data.grad.data
        data_denorm = denorm(data)
        perturbed_data = fgsm_attack(data_denorm, epsilon, data_grad)
        perturbed_data_normalized = (perturbed_data - 0.1307) / 0.3081
        output = model(perturbed_data_normalized)
        final_pred = output.max(1, keepdim=True)[1]
        if final_pred.item() == target.item():
            correct += 1
        elif len(adv_examples) < 5:
            adv_ex = perturbed_data.squeeze().detach().cpu().numpy()
            adv_examples.append((init_pred.item(), final_pred.item(), adv_ex))
    final_acc = correct / float(len(test_x))
    print(f"Epsilon: {epsilon}\tTest Accuracy = {correct} / {len(test_x)} = {final_acc}")
    return final_acc, adv_examples


accuracies = []
examples = []
for eps in epsilons:
    acc, ex = test(model, device, eps)
    accuracies.append(acc)
    examples.append(ex)
print([(init, final) for init, final, _ in examples[-1]])
