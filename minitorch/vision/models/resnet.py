"""Small ResNets for small images (He et al., 2016, section 4.2: the CIFAR-10 networks).

A 3x3 convolution with 16 channels, then three stages of ``n`` BasicBlocks with 16, 32 and
64 channels (the 2nd and 3rd stage halve the resolution with stride 2), global average
pooling and a linear classifier: ``6n + 2`` layers with weights, so ``resnet8`` (n = 1),
``resnet20`` (n = 3), ``resnet32`` (n = 5). Where a block changes shape, its shortcut is
a 1x1 convolution with batch norm (the paper's option B).

A BasicBlock computes ``relu(x + bn(conv(relu(bn(conv(x))))))``: the layers learn a
*residual* added to the identity, so a deep stack starts close to the identity and
gradients reach the first layers through the shortcuts.
"""

from __future__ import annotations

from ... import nn
from ._api import Weights, WeightsEnum, _load_pretrained, _overwrite_named_param, register_model
from ._digits import digits_meta, transforms_for

__all__ = ["BasicBlock", "ResNet", "ResNet8_Weights", "resnet8", "resnet20", "resnet32"]


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, in_planes: int, planes: int, stride: int = 1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = None
        if stride != 1 or in_planes != planes:
            self.downsample = nn.Sequential(
                nn.Conv2d(in_planes, planes, kernel_size=1, stride=stride, bias=False), nn.BatchNorm2d(planes)
            )

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)


class ResNet(nn.Module):
    def __init__(self, blocks_per_stage: int, num_classes: int = 10, in_channels: int = 3, widths=(16, 32, 64)):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, widths[0], kernel_size=3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(widths[0])
        self.relu = nn.ReLU(inplace=True)
        stages, in_planes = [], widths[0]
        for index, planes in enumerate(widths):
            blocks = []
            for block in range(blocks_per_stage):
                stride = 2 if index > 0 and block == 0 else 1
                blocks.append(BasicBlock(in_planes, planes, stride))
                in_planes = planes
            stages.append(nn.Sequential(*blocks))
        self.layer1, self.layer2, self.layer3 = stages
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(widths[-1], num_classes)
        # He initialisation for the convolutions, and batch norms that start as the identity (as torchvision does).
        for module in self.modules():
            if isinstance(module, nn.Conv2d):
                nn.init.kaiming_normal_(module.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(module, nn.BatchNorm2d):
                nn.init.constant_(module.weight, 1)
                nn.init.constant_(module.bias, 0)

    def forward(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.layer3(self.layer2(self.layer1(x)))
        return self.fc(self.avgpool(x).flatten(1))


class ResNet8_Weights(WeightsEnum):
    DIGITS_V1 = Weights("resnet8_digits_v1.mt", transforms_for(28), digits_meta("resnet8_digits_v1.mt", 28, 77754))
    DEFAULT = DIGITS_V1


def _resnet(blocks_per_stage: int, weights, progress: bool, kwargs: dict) -> ResNet:
    if weights is not None:
        _overwrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
        _overwrite_named_param(kwargs, "in_channels", 1)
    model = ResNet(blocks_per_stage, **kwargs)
    if weights is not None:
        _load_pretrained(model, weights.value, progress)
    return model


@register_model()
def resnet8(*, weights=None, progress: bool = True, **kwargs) -> ResNet:
    """ResNet-8 (1 block per stage, 78k parameters); ``weights="DEFAULT"``: trained on digits."""
    return _resnet(1, ResNet8_Weights.verify(weights), progress, kwargs)


def _no_weights(name: str, weights):
    if weights is not None:
        raise ValueError(f"Unknown weights {weights!r} for {name}: minitorch ships no pretrained weights for it, "
                         "use weights=None")


@register_model()
def resnet20(*, weights=None, progress: bool = True, **kwargs) -> ResNet:
    """ResNet-20 (3 blocks per stage, 0.27M parameters for 3 channels); no shipped weights."""
    _no_weights("resnet20", weights)
    return _resnet(3, None, progress, kwargs)


@register_model()
def resnet32(*, weights=None, progress: bool = True, **kwargs) -> ResNet:
    """ResNet-32 (5 blocks per stage, 0.46M parameters for 3 channels); no shipped weights."""
    _no_weights("resnet32", weights)
    return _resnet(5, None, progress, kwargs)
