"""LeNet-5 (LeCun et al., 1998), in the form most courses use: ReLU and max pooling, 28x28 inputs.

    1x28x28 -conv5x5,pad2-> 6x28x28 -pool-> 6x14x14 -conv5x5-> 16x10x10 -pool-> 16x5x5
    -> flatten 400 -> 120 -> 84 -> num_classes        (61,706 parameters for 10 classes)
"""

from __future__ import annotations

from ... import nn
from ._api import Weights, WeightsEnum, _load_pretrained, _overwrite_named_param, register_model
from ._digits import digits_meta, transforms_for

__all__ = ["LeNet5", "LeNet5_Weights", "lenet5"]


class LeNet5(nn.Module):
    def __init__(self, num_classes: int = 10, in_channels: int = 1):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(in_channels, 6, kernel_size=5, padding=2), nn.ReLU(inplace=True), nn.MaxPool2d(2),
            nn.Conv2d(6, 16, kernel_size=5), nn.ReLU(inplace=True), nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Linear(16 * 5 * 5, 120), nn.ReLU(inplace=True), nn.Linear(120, 84), nn.ReLU(inplace=True),
            nn.Linear(84, num_classes),
        )

    def forward(self, x):
        return self.classifier(self.features(x))


class LeNet5_Weights(WeightsEnum):
    DIGITS_V1 = Weights("lenet5_digits_v1.mt", transforms_for(28), digits_meta("lenet5_digits_v1.mt", 28, 61706))
    DEFAULT = DIGITS_V1


@register_model()
def lenet5(*, weights=None, progress: bool = True, **kwargs) -> LeNet5:
    """LeNet-5; ``weights="DEFAULT"`` loads the shipped weights trained on digits at 28x28."""
    weights = LeNet5_Weights.verify(weights)
    if weights is not None:
        _overwrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
        _overwrite_named_param(kwargs, "in_channels", 1)
    model = LeNet5(**kwargs)
    if weights is not None:
        _load_pretrained(model, weights.value, progress)
    return model
