# Corpus program: the examples of PyTorch's data-loading documentation: map-style and iterable-style datasets, an
#   IterableDataset that splits its range among workers through get_worker_info, random_split with a seeded generator,
#   Subset, ConcatDataset, ChainDataset, StackDataset, the samplers (Sequential, Random, SubsetRandom, WeightedRandom,
#   Batch), default_collate and default_convert, and a custom collate_fn with pin_memory.
# Source: pytorch/pytorch, docs/source/data.rst and the docstrings of torch/utils/data/dataset.py, sampler.py and
#   _utils/collate.py (MyIterableDataset with worker_init_fn, random_split, BatchSampler, WeightedRandomSampler,
#   default_collate examples).
# Licence: BSD-3-Clause (PyTorch); the docs' examples, put together in one script.
# Changes: num_workers=0 where the docs use several workers (the split is computed by worker_init_fn the same way).
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers); the samplers draw from seeded generators.
import collections
import math

import numpy as np
import torch
from torch.utils.data import (
    BatchSampler,
    ChainDataset,
    ConcatDataset,
    DataLoader,
    IterableDataset,
    RandomSampler,
    SequentialSampler,
    StackDataset,
    Subset,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
    default_collate,
    random_split,
)
from torch.utils.data.dataloader import default_convert

torch.manual_seed(0)


class MyIterableDataset(torch.utils.data.IterableDataset):
    def __init__(self, start, end):
        super(MyIterableDataset).__init__()
        assert end > start, "this example code only works with end >= start"
        self.start = start
        self.end = end

    def __iter__(self):
        worker_info = torch.utils.data.get_worker_info()
        if worker_info is None:  # single-process data loading, return the full iterator
            iter_start = self.start
            iter_end = self.end
        else:  # in a worker process
            # split workload
            per_worker = int(math.ceil((self.end - self.start) / float(worker_info.num_workers)))
            worker_id = worker_info.id
            iter_start = self.start + worker_id * per_worker
            iter_end = min(iter_start + per_worker, self.end)
        return iter(range(iter_start, iter_end))


# should give same set of data as range(3, 7), i.e., [3, 4, 5, 6].
ds = MyIterableDataset(start=3, end=7)
# Single-process loading
print(list(torch.utils.data.DataLoader(ds, num_workers=0)))
print(list(torch.utils.data.DataLoader(ds, batch_size=3)))
print(get_info := torch.utils.data.get_worker_info())

generator1 = torch.Generator().manual_seed(42)
generator2 = torch.Generator().manual_seed(42)
print([list(s) for s in random_split(range(10), [3, 7], generator=generator1)])
print([list(s) for s in random_split(range(30), [0.3, 0.3, 0.4], generator=generator2)])
dataset = TensorDataset(torch.arange(10.), torch.arange(10) % 3)
subset = Subset(dataset, [1, 3, 5])
print(len(subset), subset[1], subset.indices)
concat = ConcatDataset([dataset, subset])
print(len(concat), concat[11], concat.cumulative_sizes)
print(list(ChainDataset([MyIterableDataset(0, 2), MyIterableDataset(5, 7)])))
stack = StackDataset(full=dataset, subset=Subset(dataset, range(10)))
print(stack[2])
print(list(SequentialSampler(range(5))), list(RandomSampler(range(5), generator=torch.Generator().manual_seed(0))))
print(list(RandomSampler(range(5), replacement=True, num_samples=8, generator=torch.Generator().manual_seed(1))))
print(list(SubsetRandomSampler([10, 20, 30], generator=torch.Generator().manual_seed(2))))
print(list(WeightedRandomSampler([0.1, 0.9, 0.4, 0.7, 3.0, 0.6], 5, replacement=True,
                                 generator=torch.Generator().manual_seed(3))))
print(list(WeightedRandomSampler([0.9, 0.4, 0.05, 0.2, 0.3, 0.1], 5, replacement=False,
                                 generator=torch.Generator().manual_seed(4))))
print(list(BatchSampler(SequentialSampler(range(10)), batch_size=3, drop_last=False)))
print(list(BatchSampler(SequentialSampler(range(10)), batch_size=3, drop_last=True)))
loader = DataLoader(dataset, batch_sampler=BatchSampler(RandomSampler(dataset, generator=torch.Generator().manual_seed(5)), 4, False))
print([batch[0].tolist() for batch in loader], len(loader))
print(default_collate([0, 1, 2, 3]), default_collate(['a', 'b', 'c']))
print(default_collate([{'A': 0, 'B': 1}, {'A': 100, 'B': 100}]))
Point = collections.namedtuple('Point', ['x', 'y'])
print(default_collate([Point(0, 0), Point(1, 1)]))
print(default_collate([(0, 1), (2, 3)]), default_collate([[0, 1], [2, 3]]))
print(default_collate([np.array([1.5, 2.0]), np.array([3.0, 4.0])]), default_collate([torch.ones(2), torch.zeros(2)]))
print(default_convert(0), default_convert(np.array([0, 1])), default_convert([np.array([0, 1]), np.array([2, 3])]))


class SimpleCustomBatch:
    def __init__(self, data):
        transposed_data = list(zip(*data))
        self.inp = torch.stack(transposed_data[0], 0)
        self.tgt = torch.stack(transposed_data[1], 0)

    # custom memory pinning method on custom type
    def pin_memory(self):
        self.inp = self.inp.pin_memory()
        self.tgt = self.tgt.pin_memory()
        return self


def collate_wrapper(batch):
    return SimpleCustomBatch(batch)


inps = torch.arange(10 * 5, dtype=torch.float32).view(10, 5)
tgts = torch.arange(10 * 5, dtype=torch.float32).view(10, 5)
dataset = TensorDataset(inps, tgts)
loader = DataLoader(dataset, batch_size=2, collate_fn=collate_wrapper, pin_memory=torch.cuda.is_available())
for batch_ndx, sample in enumerate(loader):
    print(sample.inp.is_pinned(), sample.tgt.shape, sample.inp[:, 0])
    if batch_ndx == 1:
        break


class Squares(IterableDataset):
    def __iter__(self):
        return (i * i for i in range(7))


print(list(DataLoader(Squares(), batch_size=3, drop_last=True)))
