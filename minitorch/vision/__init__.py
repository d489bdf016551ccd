"""``minitorch.vision``: the kit's torchvision. As after ``import torchvision``, every part is loaded:

* ``transforms``: prepare and augment images (``ToTensor``, ``Normalize``, ``RandomCrop``...).
* ``datasets``: ``Digits`` (bundled with scikit-learn, no download), ``MNIST``,
  ``FashionMNIST``, ``CIFAR10``, ``ImageFolder`` and ``FakeData``.
* ``models``: ``mlp``, ``lenet5``, ``resnet8`` (with shipped pretrained weights), ``resnet20``, ``vgg8``...
* ``io``: image files as tensors (``read_image``, ``decode_image``, ``write_png``...).
* ``utils``: ``make_grid`` and ``save_image``.
"""

from . import datasets, io, models, transforms, utils

__all__ = ["datasets", "io", "models", "transforms", "utils"]
