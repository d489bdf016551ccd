"""``minitorch.distributions``: probability distributions to sample from, score and differentiate through.

    >>> import minitorch
    >>> from minitorch.distributions import Normal, Categorical, kl_divergence
    >>> Normal(0.0, 1.0).log_prob(minitorch.tensor(0.0))         # -log(sqrt(2 pi))
    tensor(-0.9189)
    >>> Categorical(probs=minitorch.tensor([0.25, 0.75])).entropy()
    tensor(0.5623)
    >>> kl_divergence(Normal(0.0, 1.0), Normal(1.0, 1.0))       # (mu_p - mu_q)^2 / 2
    tensor(0.5000)

Every distribution has ``sample``, ``log_prob``, ``mean``, ``variance``, ``entropy``; those with
``has_rsample`` also ``rsample`` (a reparameterised draw that gradients flow through). One file per
family, as in ``torch.distributions``: ``normal.py``, ``bernoulli.py``, ``categorical.py``,
``one_hot_categorical.py``, ``uniform.py``, ``exponential.py``, ``laplace.py``, ``gamma.py``,
``dirichlet.py``, ``beta.py``, ``poisson.py``,
``multivariate_normal.py``, ``independent.py``; ``kl.py`` has the closed-form divergences, and
``constraints.py`` the sets parameters and samples must lie in.
"""

from . import constraints
from .bernoulli import Bernoulli
from .beta import Beta
from .categorical import Categorical
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exponential import Exponential
from .gamma import Gamma
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .poisson import Poisson
from .uniform import Uniform

__all__ = [
    "Bernoulli", "Beta", "Categorical", "Dirichlet", "Distribution", "Exponential", "Gamma", "Independent", "Laplace",
    "MultivariateNormal", "Normal", "OneHotCategorical", "OneHotCategoricalStraightThrough", "Poisson", "Uniform",
    "constraints", "kl_divergence",
    "register_kl",
]
