"""The inputs of the collective checks, shared by the ranks (scripts/collectives.py) and the test (the NumPy side)."""

from __future__ import annotations

import numpy as np

DTYPES = ["float32", "float64", "int64", "int32", "float16", "bool"]
SHAPE = (3, 4)


def rank_input(rank: int, dtype: str, salt: int = 0) -> np.ndarray:
    """Rank ``rank``'s tensor for one check: small integers (exact sums), or booleans."""
    generator = np.random.default_rng(1000 * salt + 10 * rank + DTYPES.index(dtype))
    if dtype == "bool":
        return generator.random(SHAPE) < 0.5
    values = generator.integers(-3, 4, size=SHAPE)
    if dtype.startswith("float"):
        values = values + generator.random(SHAPE).round(2)
    return values.astype(dtype)
