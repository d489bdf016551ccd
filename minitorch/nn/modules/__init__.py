"""The layers (``nn.Linear``, ``nn.ReLU``...) and the containers, one family per file."""

from .activation import (
    CELU,
    ELU,
    GELU,
    GLU,
    SELU,
    Hardshrink,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    LeakyReLU,
    LogSigmoid,
    LogSoftmax,
    Mish,
    PReLU,
    ReLU,
    ReLU6,
    RReLU,
    Sigmoid,
    SiLU,
    Softmax,
    Softmax2d,
    Softmin,
    Softplus,
    Softshrink,
    Softsign,
    Tanh,
    Tanhshrink,
    Threshold,
)
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .flatten import Flatten, Unflatten
from .linear import Bilinear, Identity, Linear
from .module import Module

__all__ = [
    "Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict", "Identity", "Linear",
    "Bilinear", "Flatten", "Unflatten", "Threshold", "ReLU", "RReLU", "Hardtanh", "ReLU6", "Sigmoid", "Hardsigmoid",
    "Tanh", "SiLU", "Mish", "Hardswish", "ELU", "CELU", "SELU", "GLU", "GELU", "Hardshrink", "LeakyReLU",
    "LogSigmoid", "Softplus", "Softshrink", "PReLU", "Softsign", "Tanhshrink", "Softmin", "Softmax", "Softmax2d",
    "LogSoftmax",
]

# == convolution, pooling, padding, upsampling, fold, pixel/channel shuffle (conv helper's section) ==

# == normalization, dropout, embedding, losses (normalization helper's section) ==
from .dropout import AlphaDropout, Dropout, Dropout1d, Dropout2d, Dropout3d, FeatureAlphaDropout  # noqa: E402
from .normalization import GroupNorm, LayerNorm, LocalResponseNorm  # noqa: E402
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d  # noqa: E402
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d  # noqa: E402

__all__ += [
    "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout", "LayerNorm", "GroupNorm",
    "LocalResponseNorm", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d",
    "InstanceNorm3d",
]

# == recurrent, transformer (sequence helper's section) ==

# == DataParallel (parallel helper's section) ==
