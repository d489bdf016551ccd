"""Image transforms (``torchvision.transforms``): the classes here, the operations in ``functional``.

    >>> from minitorch.vision import transforms
    >>> import minitorch.vision.transforms.functional as F
"""

from . import functional
from .transforms import *  # noqa: F401,F403  (every transform, as torchvision.transforms exports them)
from .transforms import __all__ as _transform_names

__all__ = ["functional", *_transform_names]
