"""DDP training of the course's MLP, written for PyTorch; the first argument says which library is ``torch``.

    python -m minitorch.distributed.run --nproc-per-node 2 train.py minitorch mpi OUT
    python -m minitorch.distributed.run --nproc-per-node 2 train.py torch gloo OUT

Only the import and the backend name differ. Three runs, each from the same start weights
(``start_weights``, from NumPy, so both libraries start alike), float64, SGD, 2 epochs:

* ``shuffled``: DistributedSampler(shuffle=True), set_epoch each epoch;
* ``ordered``: DistributedSampler(shuffle=False) (the partition is PyTorch's; the shuffle is not);
* ``accumulated``: each local batch as two micro-batches, the first under ``no_sync()``.

Each rank writes OUT/<run>-rank<r>.npz: the final parameters, the indices of every batch it
saw, and (minitorch) the order of gradient hooks and bucket all-reduces in the first backward.
"""

import datetime
import sys

import numpy as np
from training_cases import (
    CLASSES,
    EPOCHS,
    FEATURES,
    HIDDEN,
    LEARNING_RATE,
    LOCAL_BATCH,
    SAMPLES,
    data_arrays,
    start_weights,
)

if sys.argv[1] == "torch":
    import torch
else:
    import minitorch as torch

backend, out = sys.argv[2], sys.argv[3]
runs = sys.argv[4].split(",") if len(sys.argv) > 4 else ["shuffled", "ordered", "accumulated"]
dist = torch.distributed
nn = torch.nn
DDP = torch.nn.parallel.DistributedDataParallel
DistributedSampler = torch.utils.data.distributed.DistributedSampler


def dataset():
    features, labels = data_arrays()
    return torch.utils.data.TensorDataset(torch.tensor(features, dtype=torch.float64),
                                          torch.tensor(labels, dtype=torch.int64), torch.arange(SAMPLES))


def model():
    network = nn.Sequential(nn.Linear(FEATURES, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, CLASSES)).double()
    if dist.get_rank() == 0:  # only rank 0's weights matter: DDP broadcasts them
        with torch.no_grad():
            for parameter, value in zip(network.parameters(), start_weights()):
                parameter.copy_(torch.tensor(value, dtype=torch.float64))
    return network


def train(run):
    data = dataset()
    sampler = DistributedSampler(data, shuffle=(run == "shuffled"), seed=7)
    loader = torch.utils.data.DataLoader(data, batch_size=LOCAL_BATCH, sampler=sampler)
    ddp = DDP(model(), bucket_cap_mb=0.001)  # about 1 KB: several buckets even for this small model
    optimizer = torch.optim.SGD(ddp.parameters(), lr=LEARNING_RATE)
    seen, log = [], None
    for epoch in range(EPOCHS):
        sampler.set_epoch(epoch)
        for features, labels, indices in loader:
            seen.append(indices.tolist())
            optimizer.zero_grad()
            if run == "accumulated":
                half = LOCAL_BATCH // 2
                with ddp.no_sync():
                    (nn.functional.cross_entropy(ddp(features[:half]), labels[:half]) / 2).backward()
                (nn.functional.cross_entropy(ddp(features[half:]), labels[half:]) / 2).backward()
            else:
                nn.functional.cross_entropy(ddp(features), labels).backward()
            if log is None and hasattr(ddp, "reduction_log"):
                log = [f"{kind}:{what}" for kind, what in ddp.reduction_log]
            optimizer.step()
    parameters = {name: p.detach().numpy() for name, p in ddp.module.named_parameters()}
    np.savez(f"{out}/{run}-rank{dist.get_rank()}.npz", seen=np.array(seen), log=np.array(log or []),
             keys=np.array(list(ddp.state_dict())), **parameters)


dist.init_process_group(backend, timeout=datetime.timedelta(seconds=60))
for run in runs:
    train(run)
dist.destroy_process_group()
