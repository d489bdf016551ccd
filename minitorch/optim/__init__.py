"""Optimizers and learning-rate schedulers (``torch.optim``).

    >>> import minitorch
    >>> weight = minitorch.tensor([3.0], requires_grad=True)
    >>> optimizer = minitorch.optim.SGD([weight], lr=0.25)
    >>> for _ in range(3):
    ...     optimizer.zero_grad()
    ...     loss = (weight * weight).sum()
    ...     loss.backward()
    ...     optimizer.step()
    >>> weight
    tensor([0.3750], requires_grad=True)

Each optimizer lives in its own file, as in PyTorch; ``optimizer.py`` holds the base class
(parameter groups, state, ``state_dict``), ``lr_scheduler.py`` the schedulers.
"""

from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD
from .sparse_adam import SparseAdam

__all__ = [
    "ASGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "LBFGS", "NAdam", "Optimizer", "RAdam", "RMSprop",
    "Rprop", "SGD", "SparseAdam", "lr_scheduler",
]
