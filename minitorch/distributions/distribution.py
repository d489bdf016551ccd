"""``Distribution``: what every probability distribution offers.

A distribution has a ``batch_shape`` (independent distributions side by side, one per parameter
entry) and an ``event_shape`` (the shape of one draw: ``()`` for a number, ``(k,)`` for a vector).
``sample(sample_shape)`` draws tensors of shape ``sample_shape + batch_shape + event_shape``;
``rsample`` draws them *reparameterised* (``loc + scale * eps``), so gradients flow back into the
parameters; ``log_prob(value)`` scores a value. ``mean``, ``variance``, ``stddev``, ``entropy()``
summarise it.

Arguments are checked by default (as in PyTorch, unless Python runs with ``-O``): a parameter outside
its constraint (a negative ``scale``) or a value outside the support raises ``ValueError`` naming both.
"""

from __future__ import annotations

import warnings

from .._tensor import Size, Tensor
from ..autograd.grad_mode import no_grad
from . import constraints
from .utils import lazy_property

__all__ = ["Distribution"]


class Distribution:
    """The base class: ``Distribution(batch_shape=(), event_shape=(), validate_args=None)``."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn argument checks on or off for every distribution made afterwards (on by default)."""
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args: bool | None = None) -> None:
        self._batch_shape, self._event_shape = Size(batch_shape), Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(
                    f"{self.__class__} does not define `arg_constraints`. Please set `arg_constraints = {{}}` or "
                    "initialize the distribution with `validate_args=False` to turn off validation.",
                    stacklevel=2,
                )
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue
                if param not in self.__dict__ and isinstance(getattr(type(self), param), lazy_property):
                    continue  # made from another parameter on first use: nothing to check yet
                value = getattr(self, param)
                if not bool(constraint.check(value).all()):
                    raise ValueError(
                        f"Expected parameter {param} ({type(value).__name__} of shape {tuple(value.shape)}) of "
                        f"distribution {self!r} to satisfy the constraint {constraint!r}, but found invalid "
                        f"values:\n{value}"
                    )

    @property
    def batch_shape(self) -> Size:
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        return self._event_shape

    @property
    def arg_constraints(self) -> dict:
        """The constraint each tensor parameter must satisfy (``{"scale": constraints.positive}``)."""
        raise NotImplementedError

    @property
    def support(self):
        raise NotImplementedError

    @property
    def mean(self) -> Tensor:
        raise NotImplementedError

    @property
    def mode(self) -> Tensor:
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self) -> Tensor:
        raise NotImplementedError

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    def expand(self, batch_shape, _instance=None):
        raise NotImplementedError

    def sample(self, sample_shape=()) -> Tensor:
        """A draw of shape ``sample_shape + batch_shape + event_shape``, outside the graph."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()) -> Tensor:
        raise NotImplementedError

    def sample_n(self, n: int) -> Tensor:
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.", FutureWarning, stacklevel=2)
        return self.sample(Size((n,)))

    def log_prob(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def cdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def icdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> Tensor:
        raise NotImplementedError

    def entropy(self) -> Tensor:
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        return self.entropy().exp()

    def _extended_shape(self, sample_shape=()) -> Size:
        return Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value: Tensor) -> None:
        """``value`` must fit the event shape, broadcast with the batch shape and lie in the support."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_start = value.dim() - len(self._event_shape)
        if value.size()[event_start:] != self._event_shape:
            raise ValueError(
                f"The right-most size of value must match event_shape: {value.size()} vs {self._event_shape}."
            )
        expected = Size(tuple(self._batch_shape) + tuple(self._event_shape))
        for actual_size, expected_size in zip(reversed(value.size()), reversed(expected)):
            if actual_size != 1 and expected_size != 1 and actual_size != expected_size:
                raise ValueError(
                    f"Value is not broadcastable with batch_shape+event_shape: {value.size()} vs {expected}."
                )
        support = self.support
        if not bool(support.check(value).all()):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be within the "
                f"support ({support!r}) of the distribution {self!r}, but found invalid values:\n{value}"
            )

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom __init__ method must "
                "also define a custom .expand() method."
            )
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self) -> str:
        try:
            names = [name for name in self.arg_constraints if name in self.__dict__]
        except NotImplementedError:
            names = []
        shown = ", ".join(
            f"{name}: {self.__dict__[name] if self.__dict__[name].numel() == 1 else self.__dict__[name].size()}"
            for name in names
        )
        return f"{type(self).__name__}({shown})"
