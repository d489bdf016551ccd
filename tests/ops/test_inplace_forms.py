"""The in-place twins of PyTorch's ops (``x.log_()``, ``x.floor_()``, ``x.eq_(y)``, ``x.tril_()``...):
each leaves the same values, the same gradients and one more version as PyTorch, also when written
through a view. A comparison written into a tensor that had a gradient ends its history (zero
gradient), as in PyTorch; so do the logical ops, where PyTorch instead keeps the overwritten
values' history (their gradient flows on as if nothing had been written, which is wrong): for those
minitorch's gradient is checked to be zero.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from minitorch.ops.inplace import IN_PLACE_FORMS
from tests.support import require_torch


@pytest.fixture
def torch():
    return require_torch()


def _unit(lib):  # values inside every domain used here (acos, logit, erfinv, log...)
    return lib.tensor(np.linspace(0.15, 0.85, 12).reshape(3, 4))


def _other(lib):
    return lib.tensor(np.linspace(1.7, -0.9, 12).reshape(3, 4))


def _ints(lib, start):
    return lib.tensor(np.arange(start, start + 12).reshape(3, 4))


# name -> (how to make the target, the arguments). Targets are floats unless the op needs integers.
ARGUMENTS = {
    "copysign": lambda lib: (_other(lib),),
    "arctan2": lambda lib: (_other(lib),), "atan2": lambda lib: (_other(lib),), "clamp_max": lambda lib: (0.5,),
    "clamp_min": lambda lib: (0.5,), "divide": lambda lib: (_other(lib),), "true_divide": lambda lib: (_other(lib),),
    "floor_divide": lambda lib: (0.3,), "fmod": lambda lib: (0.35,), "remainder": lambda lib: (-0.35,),
    "hypot": lambda lib: (_other(lib),), "multiply": lambda lib: (_other(lib),), "subtract": lambda lib: (_other(lib),),
    "xlogy": lambda lib: (_other(lib).abs() + 0.1,), "heaviside": lambda lib: (lib.tensor(0.5, dtype=lib.float64),),
    "eq": lambda lib: (_unit(lib),), "ne": lambda lib: (0.5,), "lt": lambda lib: (_other(lib),),
    "le": lambda lib: (0.5,),
    "gt": lambda lib: (_other(lib),), "ge": lambda lib: (0.45,), "logical_and": lambda lib: (_other(lib) > 0,),
    "logical_or": lambda lib: (_other(lib) > 0,), "logical_xor": lambda lib: (_other(lib) > 0,),
    "bitwise_and": lambda lib: (_ints(lib, 3),), "bitwise_or": lambda lib: (_ints(lib, 3),),
    "bitwise_xor": lambda lib: (_ints(lib, 3),), "cumsum": lambda lib: (1,), "cumprod": lambda lib: (0,),
    "tril": lambda lib: (), "triu": lambda lib: (1,), "logit": lambda lib: (),
    "scatter_add": lambda lib: (1, lib.tensor([[0, 3, 3, 1]] * 3), _other(lib)),
    "index_put": lambda lib: ((lib.tensor([0, 1, 0]), lib.tensor([3, 0, 3])), lib.tensor([0.5, -1.0, 2.0],
                                                                                           dtype=lib.float64), True),
    "scatter_reduce": lambda lib: (1, lib.tensor([[0, 2, 0], [3, 3, 1]]), _other(lib)[:2, :3], "amax"),
    "polygamma": lambda lib: (1,), "nextafter": lambda lib: (_other(lib),), "ldexp": lambda lib: (_ints(lib, 0),),
    "gcd": lambda lib: (_ints(lib, 3),), "lcm": lambda lib: (_ints(lib, 3),), "renorm": lambda lib: (2, 0, 1.0),
}  # fmt: skip
INTEGER_TARGETS = {"bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "gcd", "lcm"}
LOGICAL = {"logical_and", "logical_or", "logical_xor", "logical_not"}
MATRIX_PRODUCTS = {"addmm", "addmv", "addbmm", "baddbmm"}
SHAPE_SPECIFIC = {"scatter_add", "cumsum", "tril", "triu"}  # their arguments fit the whole 3x4 target only
# PyTorch's trigamma and higher polygammas (the derivative of digamma, and polygamma(1) itself) sum a short
# series good to about 1e-10 relative; minitorch's come from SciPy, correct to rounding
RELATIVE_TOLERANCE = {"digamma": 1e-9, "polygamma": 1e-9}
NAMES = [method_name[:-1] for method_name in IN_PLACE_FORMS]  # "log_" is the in-place form of "log"
CASES = [(name, False) for name in NAMES if name not in MATRIX_PRODUCTS] + [
    (name, True) for name in NAMES if name not in MATRIX_PRODUCTS | SHAPE_SPECIFIC
]


# PyTorch 2.13 has no derivative for these in-place forms ("the derivative for 'inplace version of asinh' is not
# implemented"); minitorch's differentiate like the out-of-place functions, whose PyTorch gradient is the reference.
NO_PYTORCH_IN_PLACE_DERIVATIVE = {"asinh", "acosh", "atanh", "arcsinh", "arccosh", "arctanh"}


def _run(lib, name, through_view):
    if name in INTEGER_TARGETS:
        target, leaf = _ints(lib, 1), None
    else:
        leaf = _unit(lib).requires_grad_()
        target = leaf * 1  # a non-leaf: writing into a leaf that requires grad is an error
    arguments = ARGUMENTS.get(name, lambda lib: ())(lib)
    written = target[1:] if through_view else target
    if through_view:
        arguments = tuple(a[1:] if isinstance(a, lib.Tensor) and a.dim() == 2 and a.shape[0] == 3 else a
                          for a in arguments)  # fmt: skip
    version = target._version
    returned = getattr(written, f"{name}_")(*arguments)
    assert returned is written and target._version == version + 1
    if leaf is None:
        return target.detach().numpy(), None
    try:
        (target * lib.tensor(np.linspace(-1, 1, 12).reshape(3, 4))).sum().backward()
    except RuntimeError as error:  # floor_divide and heaviside have no derivative, in either library
        return target.detach().numpy(), type(error)
    return target.detach().numpy(), (leaf.grad + 0).numpy()  # (+ 0: PyTorch may give a ZeroTensor)


@pytest.mark.parametrize("name, through_view", CASES,
                         ids=[f"{name}-{'view' if view else 'direct'}" for name, view in CASES])  # fmt: skip
def test_in_place_form_equals_pytorch(torch, name, through_view):
    ours, our_gradient = _run(minitorch, name, through_view)
    theirs, their_gradient = _run(torch, name, through_view)
    if name in NO_PYTORCH_IN_PLACE_DERIVATIVE:
        leaf = _unit(torch).requires_grad_()
        target = leaf * 1
        part = target[1:] if through_view else target
        result = torch.cat([target[:1], getattr(part, name)()]) if through_view else getattr(part, name)()
        (result * torch.tensor(np.linspace(-1, 1, 12).reshape(3, 4))).sum().backward()
        their_gradient = leaf.grad.numpy()
    rtol = RELATIVE_TOLERANCE.get(name, 1e-12)
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=1e-14)
    assert ours.dtype == theirs.dtype
    if name in LOGICAL:
        assert not np.any(our_gradient[1:] if through_view else our_gradient)  # the written part: no gradient
    elif isinstance(their_gradient, type):
        assert our_gradient is their_gradient
    elif their_gradient is not None:
        np.testing.assert_allclose(our_gradient, their_gradient, rtol=rtol, atol=1e-14)


@pytest.mark.parametrize("name", sorted(MATRIX_PRODUCTS))
def test_matrix_product_forms_equal_pytorch(torch, name):
    shapes = {"addmm": ((3, 5), (3, 4), (4, 5)), "addmv": ((3,), (3, 4), (4,)),
              "addbmm": ((3, 5), (2, 3, 4), (2, 4, 5)), "baddbmm": ((2, 3, 5), (2, 3, 4), (2, 4, 5))}[name]  # fmt: skip

    def run(lib):
        rng = np.random.default_rng(4)
        leaf, first, second = (lib.tensor(rng.standard_normal(shape), requires_grad=True) for shape in shapes)
        target = leaf * 1
        getattr(target, f"{name}_")(first, second, beta=0.5, alpha=2.0)
        target.sum().backward()
        return target.detach().numpy(), leaf.grad.numpy(), first.grad.numpy(), second.grad.numpy()

    for ours, theirs in zip(run(minitorch), run(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_every_in_place_form_exists_in_pytorch(torch):
    assert all(hasattr(torch.Tensor, name) for name in IN_PLACE_FORMS)


@pytest.mark.parametrize("name, arguments", [("unsqueeze_", (0,)), ("unsqueeze_", (-1,)), ("squeeze_", ()),
                                             ("squeeze_", (1,)), ("t_", ()), ("transpose_", (0, 2)),
                                             ("swapdims_", (1, 0)), ("swapaxes_", (0, 1))])
def test_in_place_shape_changes_match_pytorch(torch, name, arguments):
    outcomes = []
    for lib in (minitorch, torch):
        shape = (3, 4) if name == "t_" else (2, 1, 3)
        leaf = lib.tensor(np.linspace(-1, 1, int(np.prod(shape))).reshape(shape), requires_grad=True)
        x = leaf * 1
        version = x._version
        returned = getattr(x, name)(*arguments)
        weights = lib.tensor(np.linspace(0.5, 2.0, x.numel()).reshape(tuple(x.shape)))
        (x * weights).sum().backward()
        plain = lib.zeros(shape)
        getattr(plain, name)(*arguments)
        outcomes.append((returned is x, tuple(x.shape), x._version - version, leaf.grad.numpy().tolist(),
                         tuple(plain.shape)))
    assert outcomes[0] == outcomes[1]
