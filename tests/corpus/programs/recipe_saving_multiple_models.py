# Corpus program: recipe "Saving and loading multiple models in one file using PyTorch".
# Source: pytorch/tutorials, recipes_source/recipes/saving_multiple_models_in_one_file.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the recipe's steps.
# Changes: the two models are smaller; loading uses weights_only=True.
# Randomness: weights set from NumPy.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.fc1 = nn.Linear(6 * 6 * 6, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = x.view(-1, 6 * 6 * 6)
        return self.fc1(x)


rng = np.random.default_rng(30)


def filled():
    model = Net()
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.from_numpy(rng.uniform(-0.2, 0.2, tuple(p.shape)).astype(np.float32)))
    return model


netA = filled()
netB = filled()
optimizerA = optim.SGD(netA.parameters(), lr=0.001, momentum=0.9)
optimizerB = optim.SGD(netB.parameters(), lr=0.001, momentum=0.9)

PATH = "model.pt"
torch.save({
    'modelA_state_dict': netA.state_dict(),
    'modelB_state_dict': netB.state_dict(),
    'optimizerA_state_dict': optimizerA.state_dict(),
    'optimizerB_state_dict': optimizerB.state_dict(),
}, PATH)

modelA = Net()
modelB = Net()
optimModelA = optim.SGD(modelA.parameters(), lr=0.001, momentum=0.9)
optimModelB = optim.SGD(modelB.parameters(), lr=0.001, momentum=0.9)
checkpoint = torch.load(PATH, weights_only=True)
modelA.load_state_dict(checkpoint['modelA_state_dict'])
modelB.load_state_dict(checkpoint['modelB_state_dict'])
optimModelA.load_state_dict(checkpoint['optimizerA_state_dict'])
optimModelB.load_state_dict(checkpoint['optimizerB_state_dict'])
modelA.eval()
modelB.eval()
x = torch.from_numpy(rng.random((2, 3, 16, 16), dtype=np.float32))
print(modelA(x))
print(modelB(x))
print(sorted(checkpoint.keys()))
