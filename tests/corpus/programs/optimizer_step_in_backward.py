# Corpus program: tutorial "How to save memory by fusing the optimizer step into the backward pass".
# Source: pytorch/tutorials, intermediate_source/optimizer_step_in_backward_tutorial.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: the torchvision ViT-L/16 on CUDA is replaced by a small MLP on the CPU; the memory
#   snapshots (torch.cuda.memory._record_memory_history) are left out; 3 steps each way; the
#   Adam results of both ways are printed and compared.
# Randomness: data and weights from NumPy.
import numpy as np
import torch

rng = np.random.default_rng(67)


def make_model():
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.Linear(16, 4))
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.tensor(np.linspace(-0.4, 0.4, p.numel()).reshape(tuple(p.shape)), dtype=torch.float32))
    return model


inputs = torch.tensor(rng.standard_normal((6, 8)), dtype=torch.float32)
model = make_model()
optimizer = torch.optim.Adam(model.parameters())


def train(model, optimizer):
    # create our fake image input: tensor shape is batch_size, channels, height, width
    fake_image = inputs

    # call our forward and backward
    loss = model.forward(fake_image)
    loss.sum().backward()

    # optimizer update
    optimizer.step()
    optimizer.zero_grad()


for _ in range(3):
    train(model, optimizer)
plain = [p.detach().clone() for p in model.parameters()]
print([tuple(p.shape) for p in plain])

model = make_model()
# Instead of having just *one* optimizer, we will have a ``dict`` of optimizers
# for every parameter so we could reference them in our hook.
optimizer_dict = {p: torch.optim.Adam([p], foreach=False) for p in model.parameters()}


# Define our hook, which will call the optimizer ``step()`` and ``zero_grad()``
def optimizer_hook(parameter) -> None:
    optimizer_dict[parameter].step()
    optimizer_dict[parameter].zero_grad()


# Register the hook onto every parameter
for p in model.parameters():
    p.register_post_accumulate_grad_hook(optimizer_hook)


def train_fused(model):
    # create our fake image input: tensor shape is batch_size, channels, height, width
    fake_image = inputs

    # call our forward and backward
    loss = model.forward(fake_image)
    loss.sum().backward()

    # optimizer update --> no longer needed!
    # optimizer.step()
    # optimizer.zero_grad()


for _ in range(3):
    train_fused(model)
fused = [p.detach().clone() for p in model.parameters()]
print([p.grad for p in model.parameters()])
for before, after in zip(plain, fused):
    print(torch.allclose(before, after), f"{(before - after).abs().max().item():.2e}")
print(fused[0][0])
print(optimizer_dict[next(model.parameters())].state_dict()["param_groups"])
