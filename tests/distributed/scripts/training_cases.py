"""The data and start weights of scripts/train.py, as NumPy arrays (the test builds its reference from them)."""

import numpy as np

SAMPLES, FEATURES, HIDDEN, CLASSES, LOCAL_BATCH, EPOCHS, LEARNING_RATE = 48, 64, 32, 10, 4, 2, 0.5


def data_arrays():
    generator = np.random.default_rng(1)
    return generator.normal(size=(SAMPLES, FEATURES)), generator.integers(0, CLASSES, size=SAMPLES)


def start_weights():
    generator = np.random.default_rng(2)
    return [generator.normal(scale=0.2, size=shape) for shape in
            [(HIDDEN, FEATURES), (HIDDEN,), (CLASSES, HIDDEN), (CLASSES,)]]
