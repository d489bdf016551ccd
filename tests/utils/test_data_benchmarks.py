"""The data-loading and MLP-training benchmarks compute the right things (their speed is the benchmark's business)."""

from __future__ import annotations

import numpy as np

from benchmarks import data_loading, train_mlp
from tests.support import require, require_torch


def test_data_loading_epoch_with_workers_sees_every_sample_once():
    by_hand = data_loading._epoch_by_hand()()
    with_workers = data_loading._epoch_with_loader("minitorch", 2)()()
    np.testing.assert_allclose(np.asarray(with_workers), np.asarray(by_hand), rtol=1e-5)
    assert 0.5e-3 < data_loading.sample_cost_seconds(samples=5) < 0.1  # "about 2 ms", on any sane machine


def test_mlp_training_reaches_the_same_accuracy_as_pytorch_from_the_same_weights():
    require("sklearn", "the MLP benchmark trains on scikit-learn's digits (pip install scikit-learn)")
    require_torch()
    ours_accuracy, ours_weight = train_mlp._training("minitorch")()()
    theirs_accuracy, theirs_weight = train_mlp._training("torch")()()
    assert ours_accuracy > 85 and abs(ours_accuracy - theirs_accuracy) <= 1.0
    np.testing.assert_allclose(ours_weight, theirs_weight, rtol=1e-3, atol=1e-4)
