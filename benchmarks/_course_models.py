"""The models the course trains (chapters 4, 7, 8 and 9), written once for the export tests.

Each builder takes the framework (``minitorch`` or ``torch``) so the same architecture, with
the same parameter names, exists in both, and PyTorch's own exporter can be compared with
minitorch's on copied weights.
"""

from __future__ import annotations

import numpy as np


def mlp(torch):
    """Chapter 4's MLP on 8x8 digits (flattened inside, so inputs are images)."""
    nn = torch.nn
    return nn.Sequential(nn.Flatten(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))


def cnn(torch):
    """Chapter 7's CNN on 8x8 digits."""
    nn = torch.nn
    return nn.Sequential(
        nn.Conv2d(1, 16, kernel_size=3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, kernel_size=3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 2 * 2, 10),
    )


def lstm(torch, kind: str = "LSTM"):
    """Chapter 8's RecallFirst: embedding, a recurrent layer, the last step's state -> a score per symbol."""
    nn = torch.nn

    class RecallFirst(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(4, 8)
            self.recurrent = getattr(nn, kind)(8, 16, batch_first=True)
            self.head = nn.Linear(16, 4)

        def forward(self, tokens):
            output, _ = self.recurrent(self.embed(tokens))
            return self.head(output[:, -1])

    return RecallFirst()


def transformer(torch):
    """Chapter 9's Reverser: token and position embeddings, one encoder layer, a linear head."""
    nn = torch.nn
    vocabulary, length, width = 10, 8, 32

    class Reverser(nn.Module):
        def __init__(self):
            super().__init__()
            self.tokens = nn.Embedding(vocabulary, width)
            self.positions = nn.Embedding(length, width)
            self.block = nn.TransformerEncoderLayer(width, nhead=2, dim_feedforward=64, dropout=0.0, batch_first=True)
            self.classify = nn.Linear(width, vocabulary)

        def forward(self, digits):
            vectors = self.tokens(digits) + self.positions(torch.arange(digits.shape[1]))
            return self.classify(self.block(vectors))

    return Reverser()


def example_input(name: str, batch: int, seed: int = 0) -> np.ndarray:
    """A random input for ``name`` at ``batch``: images (float32) or token ids (int64)."""
    generator = np.random.default_rng(seed)
    if name in ("mlp", "cnn"):
        return generator.standard_normal((batch, 1, 8, 8)).astype(np.float32)
    if name == "lstm" or name == "gru":
        return generator.integers(0, 4, (batch, 10)).astype(np.int64)
    return generator.integers(0, 10, (batch, 8)).astype(np.int64)


BUILDERS = {"mlp": mlp, "cnn": cnn, "lstm": lstm, "gru": lambda torch: lstm(torch, "GRU"), "transformer": transformer}
