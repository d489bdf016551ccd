"""Models (``torchvision.models``), some with pretrained weights shipped in the kit.

    >>> from minitorch.vision import models
    >>> model = models.lenet5(weights="DEFAULT")       # trained on digits, hash-checked on load
    >>> preprocess = models.LeNet5_Weights.DEFAULT.transforms()

Shipped weights (see ``MODEL_CARD.md``): ``mlp``, ``lenet5`` and ``resnet8``, trained on
``Digits``. Without weights: ``resnet20``, ``resnet32`` and ``vgg8``.
"""

from ._api import Weights, WeightsEnum, get_model, get_model_builder, get_weight, list_models
from .lenet import LeNet5, LeNet5_Weights, lenet5
from .mlp import MLP, MLP_Weights, mlp
from .resnet import BasicBlock, ResNet, ResNet8_Weights, resnet8, resnet20, resnet32
from .vgg import VGG, vgg8

__all__ = [
    "Weights", "WeightsEnum", "get_model", "get_model_builder", "get_weight", "list_models", "MLP", "MLP_Weights",
    "mlp", "LeNet5", "LeNet5_Weights", "lenet5", "BasicBlock", "ResNet", "ResNet8_Weights", "resnet8", "resnet20",
    "resnet32", "VGG", "vgg8",
]
