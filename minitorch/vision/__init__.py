"""``minitorch.vision``: the kit's torchvision.

* ``transforms``: prepare and augment images (``ToTensor``, ``Normalize``, ``RandomCrop``...).
* ``datasets``: ``Digits`` (bundled with scikit-learn, no download), ``MNIST``,
  ``FashionMNIST``, ``CIFAR10``, ``ImageFolder`` and ``FakeData``.
"""

from . import datasets, transforms

__all__ = ["datasets", "transforms"]
