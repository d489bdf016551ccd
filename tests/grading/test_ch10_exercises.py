"""Chapter 10's exercise checks reject the typical mistakes: top-1 accuracy whatever k, counts instead
of a fraction or the smallest scores, a confusion matrix transposed or sized by the data, LeNet-5
features with the head, before the ReLU or untrained, a count of trainable parameters with the new
head frozen, nothing frozen or the head's bias forgotten.

The checks every chapter shares (the solutions pass, the blank stubs report "not implemented yet")
are in test_chapter_exercises.py.
"""

from __future__ import annotations

import pytest

import minitorch
import minitorch.nn as nn
import minitorch.nn.functional as F
from grading import check
from minitorch.vision import models


def top1_whatever_k(logits, labels, k):
    return (logits.argmax(dim=1) == labels).float().mean()


def topk_counts_not_fraction(logits, labels, k):
    label_scores = logits.gather(1, labels.unsqueeze(1))
    return ((logits > label_scores).sum(dim=1) < k).sum()


def topk_smallest_scores(logits, labels, k):
    label_scores = logits.gather(1, labels.unsqueeze(1))
    return ((logits < label_scores).sum(dim=1) < k).float().mean()


def confusion_transposed(predictions, labels, num_classes):
    # rows and columns swapped: predictions first
    return F.one_hot(predictions, num_classes).T @ F.one_hot(labels, num_classes)


def confusion_size_from_data(predictions, labels, num_classes):
    # sized by the largest label seen instead of num_classes
    size = int(max(predictions.max().item(), labels.max().item())) + 1
    return F.one_hot(labels, size).T @ F.one_hot(predictions, size)


def features_with_head(images):
    network = models.lenet5(weights="DEFAULT").eval()
    with minitorch.no_grad():
        return network(images)


def features_before_relu(images):
    network = models.lenet5(weights="DEFAULT").eval()
    with minitorch.no_grad():
        return network.classifier[:-2](network.features(images))


def features_of_random_network(images):
    network = models.lenet5().eval()  # forgot weights="DEFAULT"
    with minitorch.no_grad():
        return network.classifier[:-1](network.features(images))


def freeze_after_new_head(num_classes):
    network = models.lenet5(weights="DEFAULT")
    network.classifier[-1] = nn.Linear(84, num_classes)
    network.requires_grad_(False)  # freezes the new head too
    return sum(p.numel() for p in network.parameters() if p.requires_grad)


def never_frozen(num_classes):
    network = models.lenet5(weights="DEFAULT")
    network.classifier[-1] = nn.Linear(84, num_classes)
    return sum(p.numel() for p in network.parameters() if p.requires_grad)


def head_weight_only(num_classes):
    return 84 * num_classes  # forgot the bias


@pytest.mark.parametrize(
    "name, wrong",
    [
        ("topk_accuracy", top1_whatever_k),
        ("topk_accuracy", topk_counts_not_fraction),
        ("topk_accuracy", topk_smallest_scores),
        ("confusion_matrix", confusion_transposed),
        ("confusion_matrix", confusion_size_from_data),
        ("lenet5_features", features_with_head),
        ("lenet5_features", features_before_relu),
        ("lenet5_features", features_of_random_network),
        ("freeze_all_but_head", freeze_after_new_head),
        ("freeze_all_but_head", never_frozen),
        ("freeze_all_but_head", head_weight_only),
    ],
)
def test_typical_mistakes_fail(name, wrong, capsys):
    with pytest.raises(AssertionError):
        check(f"ch10.{name}", wrong)
    assert "FAILED" in capsys.readouterr().out
