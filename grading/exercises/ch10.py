"""Chapter 10 (pretrained models and transfer learning): top-k accuracy, a confusion matrix, the pretrained
LeNet-5's penultimate features, and freezing all but a new head.

Expected values are computed by the references below (NumPy for the metrics; the shipped LeNet-5 weights
through ``minitorch.vision.models`` for the rest), never written down; the public cases are inputs only.
"""

from functools import lru_cache

import numpy as np

import minitorch
from grading.registry import exercise, randn
from minitorch.vision import datasets, models


def _topk_accuracy(logits, labels, k):
    """With NumPy, independently of minitorch: is the label among the k columns with the largest scores?"""
    scores, targets = logits.numpy(), labels.numpy()
    best = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    return minitorch.tensor(np.float32((best == targets[:, None]).any(axis=1).mean()))


def _labels(count, classes, seed):
    return np.random.default_rng(seed).integers(0, classes, count).astype(np.int64)


exercise(
    "ch10.topk_accuracy",
    function="topk_accuracy",
    reference=_topk_accuracy,
    public=[
        (randn(8, 5, seed=1000), _labels(8, 5, 1001), 1),
        (randn(20, 10, seed=1002), _labels(20, 10, 1003), 3),
        (randn(6, 4, seed=1004), _labels(6, 4, 1005), 4),
    ],
    labels=[
        "k = 1: plain accuracy",
        "k = 3 of 10 classes",
        "k = 4 of 4 classes: every label is in the top k",
    ],
    hints=[
        "A prediction counts as correct when the true label is among the k classes with the largest scores; the "
        "accuracy is the fraction of rows where that holds.",
        "Row i is correct when fewer than k classes score strictly higher than the label's own score, logits[i, "
        "labels[i]]; accuracy = (number of correct rows) / N, a float32 0-d tensor.",
        "Pick each row's label score (gather, or indexing with a range of rows), compare it with the whole row by "
        "broadcasting, count per row, then average the booleans as floats. (topk gives the same answer when scores "
        "have no ties.)",
    ],
)


def _confusion_matrix(predictions, labels, num_classes):
    """With NumPy: count each (true label, predicted label) pair."""
    matrix = np.zeros((num_classes, num_classes), dtype=np.int64)
    np.add.at(matrix, (labels.numpy(), predictions.numpy()), 1)
    return minitorch.from_numpy(matrix)


exercise(
    "ch10.confusion_matrix",
    function="confusion_matrix",
    reference=_confusion_matrix,
    public=[
        (np.array([0, 2, 2, 1, 0], dtype=np.int64), np.array([0, 1, 2, 1, 2], dtype=np.int64), 3),
        (_labels(50, 10, 1010), _labels(50, 10, 1011), 10),
        (np.array([1, 1], dtype=np.int64), np.array([1, 1], dtype=np.int64), 4),
    ],
    labels=[
        "5 samples, 3 classes",
        "50 samples, 10 classes",
        "2 samples, 4 classes: classes that never occur keep rows and columns of 0",
    ],
    hints=[
        "A confusion matrix counts, for every pair (true class, predicted class), how many samples fall in it: row = "
        "true label, column = prediction.",
        "M[a, b] = number of samples i with labels[i] = a and predictions[i] = b; the matrix is (C, C), int64, and "
        "its entries sum to N.",
        "One-hot vectors turn counting pairs into a matrix product; another way is a flat index a · C + b counted "
        "with bincount and reshaped. No loop over the samples is needed.",
    ],
)


@lru_cache(maxsize=1)
def _pretrained_lenet5():
    return models.lenet5(weights="DEFAULT").eval()


def _lenet5_features(images):
    model = _pretrained_lenet5()
    with minitorch.no_grad():
        return model.classifier[:-1](model.features(images))


@lru_cache(maxsize=1)
def _digit_images() -> np.ndarray:
    """Six test digits at 28x28, prepared as the shipped weights expect ((x / 255 - 0.5) / 0.5)."""
    pictures = datasets.Digits(train=False, image_size=28)
    images = pictures.data[:6].numpy().astype(np.float32) / 255.0
    return ((images - 0.5) / 0.5)[:, None]


exercise(
    "ch10.lenet5_features",
    function="lenet5_features",
    reference=_lenet5_features,
    public=[(_digit_images(),), (randn(3, 1, 28, 28, seed=1020),)],
    rtol=1e-4,
    atol=1e-5,
    labels=[
        "six test digits",
        "random images",
    ],
    hints=[
        "The penultimate features are what the pretrained network computes just before its last layer: run the whole "
        "network except its final Linear.",
        "features = classifier without its last layer, applied to the output of the convolutional part: 84 numbers "
        "per image, in evaluation mode and without recording a graph.",
        "models.lenet5(weights='DEFAULT') loads the shipped weights; a Sequential can be sliced like a list; eval() "
        "and minitorch.no_grad() make it inference.",
    ],
)


def _freeze_all_but_head(num_classes):
    model = models.lenet5(weights="DEFAULT")
    model.requires_grad_(False)
    model.classifier[-1] = minitorch.nn.Linear(model.classifier[-1].in_features, num_classes)
    return sum(parameter.numel() for parameter in model.parameters() if parameter.requires_grad)


exercise(
    "ch10.freeze_all_but_head",
    function="freeze_all_but_head",
    reference=_freeze_all_but_head,
    public=[(2,), (10,), (7,)],
    output_type="any",
    labels=[
        "2 classes",
        "10 classes",
        "7 classes",
    ],
    hints=[
        "Transfer learning: keep the pretrained layers fixed and train only a new head for the new classes. Freezing "
        "is turning off requires_grad on the parameters you keep.",
        "trainable = the number of entries of the parameters with requires_grad True; after the swap that is the new "
        "head's, in_features · num_classes + num_classes.",
        "Order matters: freeze the whole model first, then put a new Linear in the place of the last layer of the "
        "classifier (new parameters require grad). Count with numel() over the parameters that require grad.",
    ],
)
