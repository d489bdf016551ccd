"""A multilayer perceptron for small images: flatten, then ``Linear -> ReLU`` layers, then a linear classifier."""

from __future__ import annotations

from ... import nn
from ._api import Weights, WeightsEnum, _load_pretrained, _overwrite_named_param, register_model
from ._digits import digits_meta, transforms_for

__all__ = ["MLP", "MLP_Weights", "mlp"]


class MLP(nn.Module):
    """``Flatten -> [Linear -> ReLU] * len(hidden_sizes) -> Linear``."""

    def __init__(self, in_features: int = 64, hidden_sizes=(128, 64), num_classes: int = 10, dropout: float = 0.0):
        super().__init__()
        layers, width = [nn.Flatten()], in_features
        for size in hidden_sizes:
            layers += [nn.Linear(width, size), nn.ReLU(inplace=True)]
            if dropout:
                layers.append(nn.Dropout(dropout))
            width = size
        layers.append(nn.Linear(width, num_classes))
        self.layers = nn.Sequential(*layers)

    def forward(self, x):
        return self.layers(x)


class MLP_Weights(WeightsEnum):
    DIGITS_V1 = Weights("mlp_digits_v1.mt", transforms_for(8), digits_meta("mlp_digits_v1.mt", 8, 17226))
    DEFAULT = DIGITS_V1


@register_model()
def mlp(*, weights=None, progress: bool = True, **kwargs) -> MLP:
    """An MLP for 8x8 digits (``in_features=64``); ``weights="DEFAULT"`` loads the shipped digit weights."""
    weights = MLP_Weights.verify(weights)
    if weights is not None:
        _overwrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
    model = MLP(**kwargs)
    if weights is not None:
        _load_pretrained(model, weights.value, progress)
    return model
