# Corpus program: "Save and Load the Model" of PyTorch's "Learn the Basics".
# Source: pytorch/tutorials, beginner_source/basics/saveloadrun_tutorial.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: torchvision's pretrained VGG16 (a download) is replaced by a small convolutional
#   network; the save/load calls are the tutorial's. Saving the whole model (torch.save(model))
#   is left out: minitorch's files hold tensors and plain containers only, never pickled classes.
# Randomness: weights are set from NumPy; the input too.
import numpy as np
import torch
from torch import nn

model = nn.Sequential(
    nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d((1, 1)),
    nn.Flatten(), nn.Linear(8, 5),
)
rng = np.random.default_rng(6)
with torch.no_grad():
    for parameter in model.parameters():
        parameter.copy_(torch.from_numpy(rng.uniform(-0.3, 0.3, tuple(parameter.shape)).astype(np.float32)))

torch.save(model.state_dict(), "model_weights.pth")

model2 = nn.Sequential(
    nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d((1, 1)),
    nn.Flatten(), nn.Linear(8, 5),
)
print(model2.load_state_dict(torch.load("model_weights.pth", weights_only=True)))
model2.eval()

x = torch.from_numpy(rng.random((2, 3, 16, 16), dtype=np.float32))
with torch.no_grad():
    print(model(x))
    print(model2(x))
    print(torch.equal(model(x), model2(x)))
print(sorted(model2.state_dict().keys()))
print([tuple(v.shape) for v in model2.state_dict().values()])
