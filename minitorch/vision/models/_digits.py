"""What the shipped weights were trained on: scikit-learn's digits (``minitorch.vision.datasets.Digits``)."""

from __future__ import annotations

from functools import partial

from .. import transforms as T
from ._api import _MANIFEST

DIGIT_CATEGORIES = [str(digit) for digit in range(10)]
MEAN, STD = (0.5,), (0.5,)


def digits_transforms(image_size: int):
    """The preprocessing of the shipped digit models: a PIL digit of ``image_size`` -> a normalised tensor."""
    return T.Compose([T.Resize([image_size, image_size]), T.ToTensor(), T.Normalize(MEAN, STD)])


def digits_meta(filename: str, image_size: int, num_params: int) -> dict:
    """The weights' facts: fixed ones here, measured ones (accuracy, epochs...) from the manifest."""
    recorded = _MANIFEST.get(filename, {})
    return {
        "categories": DIGIT_CATEGORIES,
        "num_params": num_params,
        "dataset": f"minitorch.vision.datasets.Digits(image_size={image_size}) (scikit-learn's 8x8 digits)",
        "image_size": image_size,
        "recipe": "python -m minitorch.vision.models.train (see MODEL_CARD.md)",
        **{key: value for key, value in recorded.items() if key != "sha256"},
    }


def transforms_for(image_size: int):
    return partial(digits_transforms, image_size)
