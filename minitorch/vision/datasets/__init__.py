"""Image datasets (``torchvision.datasets``): each yields ``(image, target)`` pairs.

``Digits`` ships with scikit-learn and needs no download; ``MNIST``, ``FashionMNIST`` and
``CIFAR10`` download their canonical files with ``download=True`` (verified, atomic);
``ImageFolder`` reads your own images; ``FakeData`` makes random ones.
"""

from .cifar import CIFAR10
from .digits import Digits
from .fakedata import FakeData
from .folder import DatasetFolder, ImageFolder
from .mnist import MNIST, FashionMNIST
from .vision import VisionDataset

__all__ = ["VisionDataset", "Digits", "MNIST", "FashionMNIST", "CIFAR10", "DatasetFolder", "ImageFolder", "FakeData"]
