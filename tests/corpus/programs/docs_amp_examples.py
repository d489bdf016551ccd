# Corpus program: "Typical mixed precision training" from PyTorch's "Automatic Mixed Precision examples" note,
#   on the CPU (autocast with bfloat16, a GradScaler, gradient clipping with unscale_).
# Source: pytorch/pytorch, docs/source/notes/amp_examples.rst (typical mixed precision training, working
#   with unscaled gradients) with device_type="cpu" as the autocast docs allow.
# Licence: BSD-3-Clause (PyTorch); the note's snippets, put together in one script.
# Changes: a two-layer model and 3 batches of random data; bfloat16 on the CPU instead of float16 on CUDA.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers).
# corpus-tolerance: rtol=1e-2 -- bfloat16 arithmetic.
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.CrossEntropyLoss()
data = [(torch.randn(6, 8), torch.randint(0, 4, (6,))) for _ in range(3)]

# Creates a GradScaler once at the beginning of training.
scaler = torch.amp.GradScaler("cpu")

for epoch in range(2):
    for input, target in data:
        optimizer.zero_grad()

        # Runs the forward pass with autocasting.
        with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
            output = model(input)
            loss = loss_fn(output, target)
        print(output.dtype, loss.dtype)

        # Scales loss.  Calls backward() on scaled loss to create scaled gradients.
        scaler.scale(loss).backward()

        # Unscales the gradients of optimizer's assigned params in-place
        scaler.unscale_(optimizer)

        # Since the gradients of optimizer's assigned params are unscaled, clips as usual:
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)

        # scaler.step() first unscales the gradients of the optimizer's assigned params.
        scaler.step(optimizer)

        # Updates the scale for next iteration.
        scaler.update()
        print('%.3f' % loss.item(), scaler.get_scale())
x = torch.randn(2, 8)
print(x.to(torch.bfloat16))
