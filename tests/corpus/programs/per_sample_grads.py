# Corpus program: tutorial "Per-sample-gradients" (torch.func: functional_call, grad, vmap).
# Source: pytorch/tutorials, intermediate_source/per_sample_grads.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: CUDA and the timing comparison are left out; the MNIST-shaped batch and the model's
#   weights come from NumPy; batch of 8.
# Randomness: data and weights from NumPy.
# corpus-tolerance: rtol=1e-5 -- per-sample gradients of a small CNN in float32.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(70)
device = "cpu"


class SimpleCNN(nn.Module):
    def __init__(self):
        super(SimpleCNN, self).__init__()  # noqa: UP008 - as in the tutorial
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


def loss_fn(predictions, targets):
    return F.nll_loss(predictions, targets)


batch_size = 8
num_batches = 1

# Here we simulate a batch of data.
data = torch.tensor(rng.standard_normal((batch_size, 1, 28, 28)), dtype=torch.float32, device=device)
targets = torch.tensor(rng.integers(0, 10, (batch_size,)), device=device)

model = SimpleCNN().to(device=device)
with torch.no_grad():
    for p in model.parameters():
        bound = 1 / p[0].numel() ** 0.5 if p.dim() > 1 else 0.05
        p.copy_(torch.tensor(rng.uniform(-bound, bound, tuple(p.shape)), dtype=torch.float32))


def compute_grad(sample, target):
    sample = sample.unsqueeze(0)  # prepend batch dimension for processing
    target = target.unsqueeze(0)

    prediction = model(sample)
    loss = loss_fn(prediction, target)

    return torch.autograd.grad(loss, list(model.parameters()))


def compute_sample_grads(data, targets):
    """ manually process each sample with per sample gradient """
    sample_grads = [compute_grad(data[i], targets[i]) for i in range(batch_size)]
    sample_grads = zip(*sample_grads)
    sample_grads = [torch.stack(shards) for shards in sample_grads]
    return sample_grads


per_sample_grads = compute_sample_grads(data, targets)
print(per_sample_grads[0].shape)

from torch.func import functional_call, grad, vmap  # noqa: E402 - as in the tutorial

params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v.detach() for k, v in model.named_buffers()}


def compute_loss(params, buffers, sample, target):
    batch = sample.unsqueeze(0)
    targets = target.unsqueeze(0)

    predictions = functional_call(model, (params, buffers), (batch,))
    loss = loss_fn(predictions, targets)
    return loss


ft_compute_grad = grad(compute_loss)
ft_compute_sample_grad = vmap(ft_compute_grad, in_dims=(None, None, 0, 0))
ft_per_sample_grads = ft_compute_sample_grad(params, buffers, data, targets)

for per_sample_grad, ft_per_sample_grad in zip(per_sample_grads, ft_per_sample_grads.values()):
    assert torch.allclose(per_sample_grad, ft_per_sample_grad, atol=3e-3, rtol=1e-5)
print(sorted(ft_per_sample_grads), [tuple(g.shape) for g in ft_per_sample_grads.values()])
print(f"{ft_per_sample_grads['fc2.bias'].abs().sum().item():.6f}", per_sample_grads[-1][0])
