"""A small VGG (Simonyan and Zisserman, 2014): stacks of 3x3 convolutions and max pooling, then a classifier.

``vgg8`` has 5 convolutions (16, 32, 64, 64, 128 channels, pooling after the 1st, 2nd, 4th
and 5th) and 3 linear layers: VGG's design at a size that trains on a laptop. Adaptive
average pooling makes it accept any input of at least 16x16 pixels.
"""

from __future__ import annotations

from ... import nn
from ._api import register_model
from .resnet import _no_weights

__all__ = ["VGG", "vgg8", "make_layers"]

CONFIGS = {"vgg8": [16, "M", 32, "M", 64, 64, "M", 128, "M"]}


def make_layers(config, in_channels: int = 3, batch_norm: bool = False) -> nn.Sequential:
    layers = []
    for entry in config:
        if entry == "M":
            layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
            continue
        layers.append(nn.Conv2d(in_channels, entry, kernel_size=3, padding=1))
        if batch_norm:
            layers.append(nn.BatchNorm2d(entry))
        layers.append(nn.ReLU(inplace=True))
        in_channels = entry
    return nn.Sequential(*layers)


class VGG(nn.Module):
    def __init__(self, features: nn.Sequential, num_classes: int = 10, width: int = 128, dropout: float = 0.5):
        super().__init__()
        self.features = features
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.classifier = nn.Sequential(
            nn.Linear(width, width), nn.ReLU(inplace=True), nn.Dropout(dropout),
            nn.Linear(width, width), nn.ReLU(inplace=True), nn.Dropout(dropout),
            nn.Linear(width, num_classes),
        )

    def forward(self, x):
        return self.classifier(self.avgpool(self.features(x)).flatten(1))


@register_model()
def vgg8(*, weights=None, progress: bool = True, num_classes: int = 10, in_channels: int = 3,
         batch_norm: bool = False, dropout: float = 0.5) -> VGG:
    """The small VGG; no shipped weights."""
    _no_weights("vgg8", weights)
    return VGG(make_layers(CONFIGS["vgg8"], in_channels, batch_norm), num_classes=num_classes, dropout=dropout)
