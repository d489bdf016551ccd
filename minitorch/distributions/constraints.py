"""Constraints: the set a distribution's parameter or sample must lie in (``positive``, ``simplex``...).

A constraint checks values (``check(value)`` gives a boolean tensor) and prints as PyTorch prints it
(``GreaterThan(lower_bound=0.0)``), so a distribution built with a negative scale fails with PyTorch's
message. ``event_dim`` says how many rightmost dimensions one check covers (a simplex is checked per
vector, so its ``event_dim`` is 1).
"""

from __future__ import annotations

from .. import linalg

__all__ = [
    "Constraint", "boolean", "dependent", "dependent_property", "greater_than", "greater_than_eq", "half_open_interval",
    "independent", "integer_interval", "interval", "is_dependent", "less_than", "lower_cholesky", "nonnegative",
    "nonnegative_integer", "one_hot", "positive", "positive_definite", "positive_integer", "real", "real_vector",
    "simplex", "unit_interval",
]


class Constraint:
    """A region of the space of values; ``check`` says, element by element (or event by event), who is in."""

    is_discrete = False
    event_dim = 0

    def check(self, value):
        raise NotImplementedError

    def __repr__(self) -> str:
        return type(self).__name__[1:] + "()"


class _Dependent(Constraint):
    """A constraint that depends on other parameters (it cannot be checked on its own)."""

    def __init__(self, *, is_discrete=False, event_dim=0):
        self.is_discrete, self.event_dim = is_discrete, event_dim

    def __call__(self, *, is_discrete=None, event_dim=None):
        return _Dependent(is_discrete=self.is_discrete if is_discrete is None else is_discrete,
                          event_dim=self.event_dim if event_dim is None else event_dim)

    def check(self, value):
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint) -> bool:
    return isinstance(constraint, _Dependent)


class dependent_property(property, _Dependent):
    """A property of a distribution whose value is a constraint depending on its parameters (``support``)."""

    def __init__(self, fn=None, *, is_discrete=False, event_dim=0):
        property.__init__(self, fn)
        self.is_discrete, self.event_dim = is_discrete, event_dim

    def __call__(self, fn):
        return dependent_property(fn, is_discrete=self.is_discrete, event_dim=self.event_dim)


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value):
        is_boolean = (value == 0) | (value == 1)
        return is_boolean.all(-1) & (value.sum(-1) == 1)


class _IntegerInterval(Constraint):
    is_discrete = True

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self) -> str:
        return f"IntegerInterval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _IntegerGreaterThan(Constraint):
    is_discrete = True

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return (value % 1 == 0) & (value >= self.lower_bound)

    def __repr__(self) -> str:
        return f"IntegerGreaterThan(lower_bound={self.lower_bound})"


class _Real(Constraint):
    def check(self, value):
        return value == value  # False only for NaN


class _GreaterThan(Constraint):
    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return self.lower_bound < value

    def __repr__(self) -> str:
        return f"GreaterThan(lower_bound={self.lower_bound})"


class _GreaterThanEq(_GreaterThan):
    def check(self, value):
        return self.lower_bound <= value

    def __repr__(self) -> str:
        return f"GreaterThanEq(lower_bound={self.lower_bound})"


class _LessThan(Constraint):
    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return value < self.upper_bound

    def __repr__(self) -> str:
        return f"LessThan(upper_bound={self.upper_bound})"


class _Interval(Constraint):
    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        return (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self) -> str:
        return f"Interval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _HalfOpenInterval(_Interval):
    def check(self, value):
        return (self.lower_bound <= value) & (value < self.upper_bound)

    def __repr__(self) -> str:
        return f"HalfOpenInterval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _Simplex(Constraint):
    """Vectors of nonnegative numbers that sum to 1 (within 1e-6)."""

    event_dim = 1

    def check(self, value):
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _LowerCholesky(Constraint):
    event_dim = 2

    def check(self, value):
        lower = (value.tril() == value).flatten(-2).all(-1)
        positive_diagonal = (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)
        return lower & positive_diagonal


class _PositiveDefinite(Constraint):
    event_dim = 2

    def check(self, value):
        symmetric = ((value - value.mT).abs() <= 1e-6).flatten(-2).all(-1)
        return symmetric & (linalg.eigvalsh(value) > 0).all(-1)


class _IndependentConstraint(Constraint):
    """``base`` checked over ``reinterpreted_batch_ndims`` more rightmost dimensions at once."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        self.base_constraint, self.reinterpreted_batch_ndims = base_constraint, reinterpreted_batch_ndims
        self.is_discrete = base_constraint.is_discrete
        self.event_dim = base_constraint.event_dim + reinterpreted_batch_ndims

    def check(self, value):
        result = self.base_constraint.check(value)
        if result.dim() < self.reinterpreted_batch_ndims:
            expected = self.base_constraint.event_dim + self.reinterpreted_batch_ndims
            raise ValueError(f"Expected value.dim() >= {expected} but got {value.dim()}")
        result = result.reshape(result.shape[: result.dim() - self.reinterpreted_batch_ndims] + (-1,))
        return result.all(-1)

    def __repr__(self) -> str:
        return f"IndependentConstraint({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


dependent = _Dependent()
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = _IndependentConstraint(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_cholesky = _LowerCholesky()
positive_definite = _PositiveDefinite()
independent = _IndependentConstraint
