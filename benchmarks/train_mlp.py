"""Training workload: an MLP on scikit-learn's digits, the whole loop, minitorch next to PyTorch.

A 64-128-64-10 multilayer perceptron (ReLU) is trained for 5 epochs on 1,437 of the 1,797
8x8 digit images (pixels scaled to [0, 1]), in batches of 64 from a ``DataLoader`` over a
``TensorDataset``, with SGD (lr 0.05, momentum 0.9) and the cross-entropy loss; then it is
evaluated on the other 360 images. Everything a training loop does is timed: batching,
forward, backward, the optimizer step and the evaluation.

Both libraries run the *same* function (``lib`` is the module), start from the *same*
initial weights (drawn once with NumPy and copied into both models), and visit the samples
in the *same* order (the epoch permutations are drawn once with NumPy too), so they follow
the same trajectory up to float32 rounding. The step returns the test accuracy in percent
and the last layer's weights; the cross-framework check (``rtol``) allows 0.95 points of
accuracy. Target: at most 1.5x PyTorch's time.

``python benchmarks/train_mlp.py`` prints both accuracies and times.
"""

from __future__ import annotations

import importlib
import os
import sys

if __name__ == "__main__":  # run as a script: one thread per library, and make ``import benchmarks`` work
    for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_variable] = "1"
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

from benchmarks.workload import Target, Workload  # noqa: E402

EPOCHS, BATCH_SIZE, LEARNING_RATE, MOMENTUM = 5, 64, 0.05, 0.9
LAYER_SIZES = (64, 128, 64, 10)


def digits():
    """``(train_x, train_y, test_x, test_y)`` as NumPy arrays: a fixed 80/20 split of scikit-learn's digits."""
    from sklearn.datasets import load_digits  # ships with scikit-learn: no download

    images, labels = load_digits(return_X_y=True)
    order = np.random.default_rng(0).permutation(len(labels))
    images = (images[order] / 16.0).astype(np.float32)
    labels = labels[order].astype(np.int64)
    split = int(0.8 * len(labels))
    return images[:split], labels[:split], images[split:], labels[split:]


def initial_weights():
    """``[(weight, bias), ...]`` for the three layers, drawn like ``nn.Linear`` does (uniform in +-1/sqrt(fan_in))."""
    rng = np.random.default_rng(1)
    weights = []
    for fan_in, fan_out in zip(LAYER_SIZES[:-1], LAYER_SIZES[1:]):
        bound = 1.0 / np.sqrt(fan_in)
        weight = rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32)
        bias = rng.uniform(-bound, bound, fan_out).astype(np.float32)
        weights.append((weight, bias))
    return weights


class EpochOrders:
    """A sampler that visits the training set in a fixed sequence of NumPy permutations, one per epoch.

    The two libraries' random generators differ; drawing the orders with NumPy gives both the
    same batches. ``restart()`` goes back to the first epoch's order.
    """

    def __init__(self, size: int, epochs: int, seed: int = 2) -> None:
        rng = np.random.default_rng(seed)
        self.orders = [rng.permutation(size).tolist() for _ in range(epochs)]
        self.epoch = 0

    def restart(self) -> None:
        self.epoch = 0

    def __iter__(self):
        order = self.orders[self.epoch % len(self.orders)]
        self.epoch += 1
        return iter(order)

    def __len__(self) -> int:
        return len(self.orders[0])


def _cross_entropy(lib):
    functional = lib.nn.functional
    import minitorch

    if hasattr(minitorch.nn.functional, "cross_entropy"):
        return functional.cross_entropy
    # minitorch without its losses yet: the same formula in both libraries
    return lambda logits, target: -functional.log_softmax(logits, dim=1).gather(1, target.unsqueeze(1)).mean()


def build(lib):
    """The model, optimizer factory, loader and test tensors of one library, ready to train."""
    train_x, train_y, test_x, test_y = digits()
    nn = lib.nn
    model = nn.Sequential(
        nn.Linear(LAYER_SIZES[0], LAYER_SIZES[1]), nn.ReLU(),
        nn.Linear(LAYER_SIZES[1], LAYER_SIZES[2]), nn.ReLU(),
        nn.Linear(LAYER_SIZES[2], LAYER_SIZES[3]),
    )
    sampler = EpochOrders(len(train_y), EPOCHS)
    dataset = lib.utils.data.TensorDataset(lib.tensor(train_x), lib.tensor(train_y))
    loader = lib.utils.data.DataLoader(dataset, batch_size=BATCH_SIZE, sampler=sampler)
    return model, sampler, loader, lib.tensor(test_x), lib.tensor(test_y)


def train(lib, model, sampler, loader, test_x, test_y):
    """Reset the weights, train for ``EPOCHS`` epochs, and return (test accuracy in percent, last weight)."""
    loss_function = _cross_entropy(lib)
    layers = [module for module in model if isinstance(module, lib.nn.Linear)]
    with lib.no_grad():
        for layer, (weight, bias) in zip(layers, initial_weights()):
            layer.weight.copy_(lib.tensor(weight))
            layer.bias.copy_(lib.tensor(bias))
    sampler.restart()
    optimizer = lib.optim.SGD(model.parameters(), lr=LEARNING_RATE, momentum=MOMENTUM)
    model.train()
    for _ in range(EPOCHS):
        for images, labels in loader:
            optimizer.zero_grad()
            loss = loss_function(model(images), labels)
            loss.backward()
            optimizer.step()
    model.eval()
    with lib.no_grad():
        predictions = model(test_x).argmax(dim=1)
        accuracy = (predictions == test_y).float().mean().item() * 100
    return np.float64(accuracy), layers[-1].weight.detach().numpy().copy()


def _training(module_name: str):
    def setup():
        lib = importlib.import_module(module_name)
        parts = build(lib)

        def step():
            return train(lib, *parts)

        return step

    return setup


WORKLOADS = [
    Workload(
        name="train_mlp_digits",
        description=(
            f"MLP 64-128-64-10 on digits, {EPOCHS} epochs, batch {BATCH_SIZE}, SGD momentum {MOMENTUM}, "
            "DataLoader + forward + backward + step + test; time per training run"
        ),
        setups={"minitorch": _training("minitorch"), "pytorch": _training("torch")},
        steps=1,
        quick_steps=1,
        target=Target("pytorch", 1.5),
        unit="run",
        # accuracy in percent: |difference| <= rtol * (1 + 1) * ~95 = 0.95 points; the weights agree far better
        rtol=0.005,
    ),
]


def main(rounds: int = 5) -> None:
    import statistics
    import time

    import torch

    torch.set_num_threads(1)
    steps = {name: _training(module)() for name, module in (("minitorch", "minitorch"), ("PyTorch", "torch"))}
    times = {name: [] for name in steps}
    results = {}
    for round_index in range(rounds):
        for name in (list(steps) if round_index % 2 == 0 else list(steps)[::-1]):
            start = time.perf_counter()
            results[name] = steps[name]()
            times[name].append(time.perf_counter() - start)
    for name in steps:
        print(f"{name:9s}: {statistics.median(times[name]):.3f} s per training run, "
              f"test accuracy {results[name][0]:.2f}%")
    ratio = statistics.median(mine / theirs for mine, theirs in zip(times["minitorch"], times["PyTorch"]))
    print(f"minitorch / PyTorch: {ratio:.2f}x (target <= 1.5x); accuracy difference "
          f"{abs(results['minitorch'][0] - results['PyTorch'][0]):.2f} points (target <= 1)")


if __name__ == "__main__":
    main()
