"""``out=`` and the tensor-argument check of the public functions (minitorch/_arguments.py), against PyTorch."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch import _arguments
from tests.support import require_torch


@pytest.fixture
def torch():
    return require_torch()


def _outcome(build, lib):
    """``("ok", values, dtype, shape, warning texts)`` or ``("error", type name, message)``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = build(lib)
        except Exception as error:  # noqa: BLE001 - the error itself is what is compared
            return ("error", type(error).__name__, str(error).split(" (Triggered internally")[0])
    texts = [str(w.message).split(" (Triggered internally")[0] for w in caught]
    results = result if isinstance(result, tuple) else (result,)
    # values rounded to 5 decimals: float32 kernels may differ in the last bit
    values = [np.round(r.detach().numpy().astype(np.float64), 5).tolist() for r in results]
    return ("ok", [(v, str(r.dtype).split(".")[-1], tuple(r.shape)) for v, r in zip(values, results)], texts)


def _a(lib):
    return lib.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]])


OUT_CASES = {
    "add": lambda lib: lib.add(_a(lib), 1.0, out=lib.empty(2, 3)),
    "add-aliasing-input": lambda lib: (lambda a: (lib.add(a, a, out=a), a)[1])(_a(lib)),
    "add-resize-empty": lambda lib: lib.add(_a(lib), 1.0, out=lib.empty(0)),
    "add-resize-warns": lambda lib: lib.add(_a(lib), 1.0, out=lib.empty(4)),
    "add-into-double": lambda lib: lib.add(_a(lib), 1.0, out=lib.empty(2, 3, dtype=lib.float64)),
    "add-into-long": lambda lib: lib.add(_a(lib), 1.0, out=lib.empty(2, 3, dtype=lib.long)),
    "eq-into-float": lambda lib: lib.eq(_a(lib), 1.0, out=lib.empty(2, 3)),
    "matmul": lambda lib: lib.matmul(_a(lib), _a(lib).T, out=lib.empty(2, 2)),
    "cat": lambda lib: lib.cat([_a(lib), _a(lib)], dim=1, out=lib.empty(0)),
    "stack": lambda lib: lib.stack([_a(lib), _a(lib)], out=lib.empty(2, 2, 3)),
    "sum-dim": lambda lib: lib.sum(_a(lib), 1, out=lib.empty(2, dtype=lib.float64)),
    "mean-into-long": lambda lib: lib.mean(_a(lib), 1, out=lib.empty(2, dtype=lib.long)),
    "max-dim-tuple": lambda lib: tuple(lib.max(_a(lib), 1, out=(lib.empty(0), lib.empty(0, dtype=lib.long)))),
    "sort-tuple": lambda lib: tuple(lib.sort(_a(lib), out=(lib.empty(2, 3), lib.empty(2, 3, dtype=lib.long)))),
    "zeros-takes-dtype": lambda lib: lib.zeros(2, 3, out=lib.empty(0, dtype=lib.long)),
    "arange": lambda lib: lib.arange(5, out=lib.empty(5)),
    "where": lambda lib: lib.where(_a(lib) > 0, _a(lib), lib.zeros(2, 3), out=lib.empty(2, 3)),
    "clamp": lambda lib: lib.clamp(_a(lib), min=0.0, out=lib.empty(2, 3)),
    "exp": lambda lib: lib.exp(_a(lib), out=lib.empty(2, 3)),
    "expanded-out": lambda lib: lib.add(_a(lib), 1.0, out=lib.empty(1, 3).expand(2, 3)),
    "needs-grad": lambda lib: lib.add(_a(lib).requires_grad_(), 1.0, out=lib.empty(2, 3)),
    "out-needs-grad": lambda lib: lib.mul(_a(lib), 2.0, out=lib.zeros(2, 3, requires_grad=True)),
    "needs-grad-in-list": lambda lib: lib.cat([_a(lib).requires_grad_(), _a(lib)], out=lib.empty(0)),
    "no-grad-mode": lambda lib: _under_no_grad(lib),
    "out-none": lambda lib: lib.add(_a(lib), 1.0, out=None),
}


def _under_no_grad(lib):
    with lib.no_grad():
        return lib.add(_a(lib).requires_grad_(), 1.0, out=lib.empty(2, 3))


@pytest.mark.parametrize("case", sorted(OUT_CASES))
def test_out_matches_pytorch(torch, case):
    build = OUT_CASES[case]
    assert _outcome(build, minitorch) == _outcome(build, torch)


def test_out_returns_the_tensor_it_wrote():
    out = minitorch.empty(2, 3)
    assert minitorch.add(_a(minitorch), 1.0, out=out) is out
    version = out._version
    minitorch.mul(_a(minitorch), 2.0, out=out)
    assert out._version == version + 1  # an out= write is an in-place write
    values, indices = minitorch.empty(0), minitorch.empty(0, dtype=minitorch.long)
    result = minitorch.max(_a(minitorch), 1, out=(values, indices))
    assert result.values is values and result.indices is indices


def test_takes_out_is_pytorchs_list(torch):
    """Every name in TAKES_OUT takes ``out=`` in PyTorch's stubs, and every such name minitorch has is in it."""
    from tests.api_signatures import torch_functions

    signatures = torch_functions()
    pytorch_out = {
        name for name, overloads in signatures.items() if any("out" in overload.keyword_only for overload in overloads)
    }
    pytorch_out |= {"norm", "tensordot"}  # Python functions of torch/functional.py, not in the stubs
    minitorch_names = {name for name in dir(minitorch) if inspect.isfunction(getattr(minitorch, name))}
    assert set(_arguments.TAKES_OUT) <= pytorch_out
    assert sorted((pytorch_out & minitorch_names) - set(_arguments.TAKES_OUT)) == []
    for name in _arguments.TAKES_OUT:
        assert "out" in inspect.signature(getattr(minitorch, name)).parameters, name


def _public_functions(namespace):
    for name in sorted(dir(namespace)):
        value = getattr(namespace, name)
        if not name.startswith("_") and inspect.isfunction(value):
            yield name, value


# PyTorch names the C++ function it forwards to; minitorch names the function the learner called.
INTERNAL_NAMES = {"unique": "_unique2", "logsigmoid": "log_sigmoid"}


@pytest.mark.parametrize("namespace", ["torch", "torch.nn.functional"])
def test_non_tensor_input_is_pytorchs_type_error(torch, namespace):
    """Where PyTorch says "f(): argument 'input' (position 1) must be Tensor, not list", minitorch says the same."""
    import torch.nn.functional as torch_functional

    theirs, ours = (torch, minitorch) if namespace == "torch" else (torch_functional, F)
    checked = []
    for name, function in _public_functions(ours):
        reference = getattr(theirs, name, None)
        if reference is None or name.startswith(("set_", "manual_seed", "use_")):
            continue  # a setter given a list would change global state (set_printoptions, use_deterministic_algorithms)
        for bad in ([1.0, 2.0], None, np.ones(2)):
            try:
                reference(bad)
            except TypeError as error:
                expected = str(error)
            except Exception:  # noqa: BLE001 - only PyTorch's argument-parser TypeError is compared
                continue
            else:
                continue
            if "must be Tensor, not" not in expected or "argument 'input'" not in expected:
                continue
            expected = expected.replace(f"{INTERNAL_NAMES.get(name, name)}()", f"{name}()")
            with pytest.raises(TypeError) as caught:
                function(bad)
            assert str(caught.value) == expected, name
            checked.append(name)
    assert len(set(checked)) > (150 if namespace == "torch" else 20)


ALIAS_CASES = {
    "sum-axis-keepdims": lambda lib: lib.sum(_a(lib), axis=0, keepdims=True),
    "method-sum-axis": lambda lib: _a(lib).sum(axis=1),
    "method-mean-keepdims": lambda lib: _a(lib).mean(axis=0, keepdims=True),
    "cat-axis": lambda lib: lib.cat([_a(lib), _a(lib)], axis=1),
    "max-axis": lambda lib: tuple(_a(lib).max(axis=1)),
    "add-x-x2": lambda lib: lib.add(x=_a(lib), x2=_a(lib)),
    "softmax-axis": lambda lib: lib.softmax(_a(lib), axis=1),
    "both-names": lambda lib: lib.sum(_a(lib), dim=0, axis=0),
    "functional-has-no-alias": lambda lib: lib.nn.functional.softmax(_a(lib), axis=1),
}


@pytest.mark.parametrize("case", sorted(ALIAS_CASES))
def test_numpy_argument_names_as_pytorch_accepts_them(torch, case):
    build = ALIAS_CASES[case]
    ours, theirs = _outcome(build, minitorch), _outcome(build, torch)
    if ours[0] == "error":  # the wording of a keyword error comes from Python itself; the type must agree
        assert ours[:2] == theirs[:2]
    else:
        assert ours == theirs
