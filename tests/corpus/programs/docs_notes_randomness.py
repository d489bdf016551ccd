# Corpus program: the recipes of PyTorch's "Reproducibility" note.
# Source: pytorch/pytorch, docs/source/notes/randomness.rst (controlling sources of randomness,
#   use_deterministic_algorithms, cuDNN flags, DataLoader with seed_worker and a seeded generator).
# Licence: BSD-3-Clause (PyTorch); the note's snippets, put together in one script.
# Changes: the DataLoader reads a 12-element TensorDataset; values are printed.
# Randomness: torch.manual_seed and Generator (minitorch draws PyTorch's numbers), the loader's
#   workers seeded from it.
import random

import numpy as np
import torch

torch.manual_seed(0)
random.seed(0)
np.random.seed(0)

print(torch.rand(3))
print(torch.initial_seed())
torch.use_deterministic_algorithms(True)
print(torch.are_deterministic_algorithms_enabled())
torch.use_deterministic_algorithms(False)
print(torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled())

torch.backends.cudnn.benchmark = False
torch.backends.cudnn.deterministic = True
print(torch.backends.cudnn.benchmark, torch.backends.cudnn.deterministic)


def seed_worker(worker_id):
    worker_seed = torch.initial_seed() % 2**32
    np.random.seed(worker_seed)
    random.seed(worker_seed)


g = torch.Generator()
g.manual_seed(0)

train_dataset = torch.utils.data.TensorDataset(torch.arange(12.))
DataLoader = torch.utils.data.DataLoader
train_dataloader = DataLoader(
    train_dataset,
    batch_size=4,
    num_workers=0,
    worker_init_fn=seed_worker,
    generator=g,
    shuffle=True,
)
for epoch in range(2):
    print([batch[0].tolist() for batch in train_dataloader])

state = torch.get_rng_state()
first = torch.randn(2)
torch.set_rng_state(state)
print(torch.equal(first, torch.randn(2)))
with torch.random.fork_rng():
    torch.randn(5)
print(torch.randn(2))
g2 = torch.Generator().manual_seed(42)
print(torch.randint(0, 10, (5,), generator=g2), g2.initial_seed())
print(torch.randperm(6, generator=torch.Generator().manual_seed(1)))
