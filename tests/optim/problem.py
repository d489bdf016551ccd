"""The fixed training problem the optimizer tests share, written for either library.

A small MLP in raw tensors (no ``nn``): ``tanh(x @ W1.T + b1) @ W2.T + b2`` fitted to fixed
targets with the mean squared error, in float64. The same code runs with ``lib=minitorch`` and
``lib=torch``; the tests compare the parameters after every step.
"""

from __future__ import annotations

import numpy as np

STEPS = 50


def initial_arrays() -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    rng = np.random.default_rng(20240607)
    weights = [
        rng.standard_normal((8, 4)) * 0.5,  # W1
        rng.standard_normal(8) * 0.1,  # b1
        rng.standard_normal((3, 8)) * 0.5,  # W2
        rng.standard_normal(3) * 0.1,  # b2
    ]
    inputs = rng.standard_normal((16, 4))
    targets = rng.standard_normal((16, 3))
    return weights, inputs, targets


class Problem:
    """Leaf parameters, data and the loss, on one library (and one device for minitorch)."""

    def __init__(self, lib, device=None, arrays=None):
        weights, inputs, targets = initial_arrays()
        if arrays is not None:
            weights = arrays
        self.lib = lib
        where = {} if device is None else {"device": device}
        self.params = [lib.tensor(array, dtype=lib.float64, requires_grad=True, **where) for array in weights]
        self.inputs = lib.tensor(inputs, dtype=lib.float64, **where)
        self.targets = lib.tensor(targets, dtype=lib.float64, **where)

    def loss(self):
        w1, b1, w2, b2 = self.params
        hidden = (self.inputs @ w1.T + b1).tanh()
        return ((hidden @ w2.T + b2 - self.targets) ** 2).mean()

    def closure(self, optimizer):
        def evaluate():
            optimizer.zero_grad()
            loss = self.loss()
            loss.backward()
            return loss

        return evaluate

    def snapshot(self) -> np.ndarray:
        """All parameters, flattened into one float64 vector."""
        return np.concatenate([np.asarray(param.detach().cpu().numpy(), dtype=np.float64).ravel()
                               for param in self.params])

    def arrays(self) -> list[np.ndarray]:
        return [np.array(param.detach().cpu().numpy()) for param in self.params]


def train(problem: Problem, optimizer, steps: int) -> list[np.ndarray]:
    """``steps`` optimizer steps (each through a closure); the parameters after each."""
    trajectory = []
    for _ in range(steps):
        optimizer.step(problem.closure(optimizer))
        trajectory.append(problem.snapshot())
    return trajectory
