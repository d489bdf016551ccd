# Corpus program: an imbalanced-dataset sampler: a torch.utils.data.sampler.Sampler subclass whose weights are
#   the inverse class frequencies in a torch.DoubleTensor, __iter__ indexing a Python list with the 0-d tensors
#   that torch.multinomial(weights, n, replacement=True) yields (Tensor.__index__), used as a DataLoader's
#   sampler; compared with torch.utils.data.WeightedRandomSampler, over a TensorDataset, a random_split Subset and
#   a ConcatDataset, and a class-balanced training of a logistic regression.
# Source: ufoym/imbalanced-dataset-sampler, torchsampler/imbalanced.py (as stored), with the README's usage
#   (DataLoader(train_dataset, sampler=ImbalancedDatasetSampler(train_dataset), batch_size=...)).
# Licence: MIT (imbalanced-dataset-sampler; not verified: its licence file was not available to read here).
# Changes: `import torchvision` (not installed) and _get_label's two torchvision branches (MNIST, ImageFolder)
#   left out: the labels come through callback_get_label, as the README's custom datasets do; a synthetic
#   2-D dataset of 90 points of class 0 and 10 of class 1.
# Randomness: torch.manual_seed(0) and np.random.seed(0) (minitorch draws PyTorch's numbers).
# corpus-tolerance: rtol=1e-4 atol=1e-6 -- float32 SGD.
from collections import Counter

import numpy as np
import torch
import torch.utils.data


class ImbalancedDatasetSampler(torch.utils.data.sampler.Sampler):
    """Samples elements randomly from a given list of indices for imbalanced dataset
    Arguments:
        indices (list, optional): a list of indices
        num_samples (int, optional): number of samples to draw
        callback_get_label func: a callback-like function which takes two arguments - dataset and index
    """

    def __init__(self, dataset, indices=None, num_samples=None, callback_get_label=None):

        # if indices is not provided,
        # all elements in the dataset will be considered
        self.indices = list(range(len(dataset))) \
            if indices is None else indices

        # define custom callback
        self.callback_get_label = callback_get_label

        # if num_samples is not provided,
        # draw `len(indices)` samples in each iteration
        self.num_samples = len(self.indices) \
            if num_samples is None else num_samples

        # distribution of classes in the dataset
        label_to_count = {}
        for idx in self.indices:
            label = self._get_label(dataset, idx)
            if label in label_to_count:
                label_to_count[label] += 1
            else:
                label_to_count[label] = 1

        # weight for each sample
        weights = [1.0 / label_to_count[self._get_label(dataset, idx)]
                   for idx in self.indices]
        self.weights = torch.DoubleTensor(weights)

    def _get_label(self, dataset, idx):
        if self.callback_get_label:
            return self.callback_get_label(dataset, idx)
        else:
            raise NotImplementedError

    def __iter__(self):
        return (self.indices[i] for i in torch.multinomial(
            self.weights, self.num_samples, replacement=True))

    def __len__(self):
        return self.num_samples


torch.manual_seed(0)
np.random.seed(0)
features = np.concatenate([np.random.randn(90, 2) - 1.0, np.random.randn(10, 2) + 1.5]).astype(np.float32)
labels = np.array([0] * 90 + [1] * 10)
dataset = torch.utils.data.TensorDataset(torch.from_numpy(features), torch.from_numpy(labels))


def get_label(dataset, idx):
    return dataset[idx][1].item()


sampler = ImbalancedDatasetSampler(dataset, callback_get_label=get_label)
print(len(sampler), sampler.weights.dtype, sampler.weights[88:92])
drawn = list(iter(sampler))
print(drawn[:10], Counter(labels[drawn]))

loader = torch.utils.data.DataLoader(dataset, sampler=sampler, batch_size=20)
model = torch.nn.Linear(2, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
for epoch in range(3):
    seen = Counter()
    for x, y in loader:
        seen.update(y.tolist())
        loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(epoch, dict(seen), round(loss.item(), 5))
with torch.no_grad():
    predictions = model(dataset.tensors[0]).argmax(1)
print((predictions == dataset.tensors[1]).float().mean().item(), predictions[85:95].tolist())

weighted = torch.utils.data.WeightedRandomSampler(sampler.weights, num_samples=12, replacement=True)
print(list(weighted))
train_set, val_set = torch.utils.data.random_split(dataset, [80, 20], generator=torch.Generator().manual_seed(42))
print(type(train_set).__name__, train_set.indices[:8])
subset_sampler = ImbalancedDatasetSampler(train_set, indices=list(range(0, 80, 2)), num_samples=8,
                                          callback_get_label=get_label)
print(list(subset_sampler))
both = torch.utils.data.ConcatDataset([train_set, val_set])
print(len(both), both.cumulative_sizes, both[85][1].item())
