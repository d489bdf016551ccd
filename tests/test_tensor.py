"""The Tensor itself, checked against PyTorch: creation, dtypes, properties, conversions, repr.

Most checks are table-driven: each entry is a function of ``lib`` run once with
``minitorch`` and once with ``torch``; the results (or the errors) must agree.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

import minitorch
from tests.support import require_torch


@pytest.fixture
def torch():
    return require_torch()


def _normalise(value):
    """A comparable form of a result: tensors become (dtype name, shape, values, requires_grad)."""
    if isinstance(value, minitorch.Tensor) or type(value).__name__ == "Tensor":
        array = value.detach().numpy()
        return ("tensor", str(value.dtype).split(".")[-1], tuple(value.shape), array.tolist(), value.requires_grad)
    if isinstance(value, (tuple, list)) and not hasattr(value, "numel"):
        return type(value).__name__ if not isinstance(value, tuple) else "tuple", [_normalise(v) for v in value]
    if hasattr(value, "is_floating_point") and hasattr(value, "itemsize"):  # a dtype
        return ("dtype", str(value).split(".")[-1])
    if type(value).__name__ == "Size":
        return ("Size", tuple(value))
    return value


def _outcome(build, lib):
    """``("ok", result, warnings)`` or ``("error", type name, message, warnings)``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            outcome = ("ok", _normalise(build(lib)))
        except Exception as error:  # noqa: BLE001 - the type and message are what is compared
            outcome = ("error", type(error).__name__, str(error).replace("minitorch", "torch"))
    # PyTorch's C++ warnings end with where they were raised; the text before that is what must match.
    messages = [str(w.message).split(" (Triggered internally at")[0] for w in caught]
    return outcome + (messages,)


def _check_same(torch, build, message_prefix: int | None = None):
    """Same result, or the same exception type and message (its first ``message_prefix`` characters)."""
    mine, theirs = _outcome(build, minitorch), _outcome(build, torch)
    if message_prefix is not None and mine[0] == theirs[0] == "error":
        mine, theirs = (
            mine[:2] + (mine[2][:message_prefix],) + mine[3:],
            theirs[:2] + (theirs[2][:message_prefix],) + theirs[3:],
        )
    assert mine == theirs, f"\nminitorch: {mine}\ntorch:     {theirs}"


# -- creation -----------------------------------------------------------------------------------------
CREATION = {
    "python int": lambda lib: lib.tensor(1),
    "python float": lambda lib: lib.tensor(1.5),
    "python bool": lambda lib: lib.tensor(True),
    "mixed int float": lambda lib: lib.tensor([1, 2.0]),
    "mixed bool int": lambda lib: lib.tensor([True, 1]),
    "nested ints": lambda lib: lib.tensor([[1, 2], [3, 4]]),
    "empty list": lambda lib: lib.tensor([]),
    "empty nested": lambda lib: lib.tensor([[]]),
    "float64 requested": lambda lib: lib.tensor([1.1, 0.9], dtype=lib.float64),
    "float to int64 truncates": lambda lib: lib.tensor([1.7, -1.7], dtype=lib.int64),
    "numpy int32": lambda lib: lib.tensor(np.array([1, 2], dtype=np.int32)),
    "numpy int16": lambda lib: lib.tensor(np.array([1, 2], dtype=np.int16)),
    "numpy int8": lambda lib: lib.tensor(np.array([1, -2], dtype=np.int8)),
    "numpy uint8": lambda lib: lib.tensor(np.array([1, 200], dtype=np.uint8)),
    "numpy float64": lambda lib: lib.tensor(np.array([1.5, 2.5])),
    "numpy float16": lambda lib: lib.tensor(np.array([1.5, 2.5], dtype=np.float16)),
    "numpy bool": lambda lib: lib.tensor(np.array([True, False])),
    "numpy 0-d": lambda lib: lib.tensor(np.array(3.0)),
    "numpy float32 scalar": lambda lib: lib.tensor(np.float32(2.5)),
    "numpy float64 scalar": lambda lib: lib.tensor(np.float64(2.5)),
    "numpy int16 scalar": lambda lib: lib.tensor(np.int16(3)),
    "from tensor": lambda lib: lib.tensor(lib.tensor([1, 2], dtype=lib.int32)),
    "requires_grad": lambda lib: lib.tensor([1.0, 2.0], requires_grad=True),
    "string": lambda lib: lib.tensor("a"),
    "zeros varargs": lambda lib: lib.zeros(2, 3),
    "zeros tuple": lambda lib: lib.zeros((2, 3)),
    "zeros list int32": lambda lib: lib.zeros([2, 3], dtype=lib.int32),
    "zeros 0-d": lambda lib: lib.zeros(()),
    "zeros size-0": lambda lib: lib.zeros(0, 3),
    "zeros Size": lambda lib: lib.zeros(lib.ones(2, 3).shape),
    "ones bool": lambda lib: lib.ones(3, dtype=lib.bool),
    "ones float16": lambda lib: lib.ones(2, dtype=lib.float16),
    "ones requires_grad": lambda lib: lib.ones(2, requires_grad=True),
    "full int": lambda lib: lib.full((2,), 3),
    "full float": lambda lib: lib.full((2,), 3.0),
    "full bool": lambda lib: lib.full((2,), True),
    "full float64": lambda lib: lib.full((2, 2), 1.5, dtype=lib.float64),
    "full list size": lambda lib: lib.full([1, 2], 7),
    "empty shape and dtype": lambda lib: (lambda t: (t.shape, t.dtype))(lib.empty(2, 3)),
    "empty int8": lambda lib: (lambda t: (t.shape, t.dtype))(lib.empty((4,), dtype=lib.int8)),
    "zeros_like int": lambda lib: lib.zeros_like(lib.tensor([1, 2])),
    "ones_like dtype": lambda lib: lib.ones_like(lib.tensor([1.0, 2.0]), dtype=lib.float64),
    "full_like int keeps int": lambda lib: lib.full_like(lib.tensor([1, 2]), 7.9),
    "empty_like": lambda lib: (lambda t: (t.shape, t.dtype))(lib.empty_like(lib.ones(2, 2, dtype=lib.float64))),
    "zeros_like requires_grad": lambda lib: lib.zeros_like(lib.ones(2), requires_grad=True),
    "like does not copy requires_grad": lambda lib: lib.ones_like(lib.ones(2, requires_grad=True)),
    "arange int": lambda lib: lib.arange(5),
    "arange start end": lambda lib: lib.arange(1, 4),
    "arange float step": lambda lib: lib.arange(0, 1, 0.25),
    "arange float end": lambda lib: lib.arange(5.0),
    "arange int step": lambda lib: lib.arange(0, 10, 3),
    "arange negative step": lambda lib: lib.arange(10, 0, -3),
    "arange float64": lambda lib: lib.arange(1, 2.5, 0.5, dtype=lib.float64),
    "arange float32 from ints": lambda lib: lib.arange(5, dtype=lib.float32),
    "arange 0.1 count": lambda lib: lib.arange(0, 1, 0.1).shape,
    "arange negative float": lambda lib: lib.arange(-1.0, 1.0, 0.3),
    "arange zero step": lambda lib: lib.arange(0, 5, 0),
    "arange empty": lambda lib: lib.arange(3, 3),
    "linspace": lambda lib: lib.linspace(0, 1, 5),
    "linspace one step": lambda lib: lib.linspace(-1, 1, 1),
    "linspace zero steps": lambda lib: lib.linspace(0, 1, 0),
    "linspace int64": lambda lib: lib.linspace(0, 10, 5, dtype=lib.int64),
    "linspace negative steps": lambda lib: lib.linspace(0, 1, -1),
    "eye": lambda lib: lib.eye(3),
    "eye rectangular": lambda lib: lib.eye(2, 3),
    "eye int64": lambda lib: lib.eye(2, dtype=lib.int64),
    "eye bool": lambda lib: lib.eye(3, dtype=lib.bool),
    "eye float64": lambda lib: lib.eye(2, 1, dtype=lib.float64),
    "from_numpy list": lambda lib: lib.from_numpy([1, 2]),
    "as_tensor list": lambda lib: lib.as_tensor([1.0, 2.0]),
    "as_tensor dtype": lambda lib: lib.as_tensor([1.5, 2.5], dtype=lib.float64),
    "as_tensor numpy int32": lambda lib: lib.as_tensor(np.array([1, 2], dtype=np.int32)),
    "as_tensor tensor dtype": lambda lib: lib.as_tensor(lib.tensor([1, 2]), dtype=lib.float32),
}


@pytest.mark.parametrize("name", list(CREATION))
def test_creation_matches_torch(torch, name):
    _check_same(torch, CREATION[name])


def test_linspace_values_match_torch_to_rounding(torch):
    # PyTorch fills from both ends (and in vector lanes), so the last bit may differ from NumPy's linspace.
    for start, end, steps, dtype_name in ((0, 10, 4, "float64"), (-1, 1, 25, "float32"), (2.5, -7, 9, "float64")):
        mine = minitorch.linspace(start, end, steps, dtype=getattr(minitorch, dtype_name))
        theirs = torch.linspace(start, end, steps, dtype=getattr(torch, dtype_name))
        assert mine.dtype.itemsize == theirs.dtype.itemsize
        tolerance = 1e-15 if dtype_name == "float64" else 1e-7
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=tolerance, atol=tolerance * 10)


def test_tensor_copies_its_data():
    array = np.array([1.0, 2.0])
    made = minitorch.tensor(array)
    array[0] = 100.0
    assert made.tolist() == [1.0, 2.0]
    source = minitorch.tensor([1.0, 2.0])
    with pytest.warns(UserWarning, match="To copy construct from a tensor, it is recommended to use"):
        copy = minitorch.tensor(source)
    source.numpy()[0] = 50.0
    assert copy.tolist() == [1.0, 2.0]


def test_from_numpy_and_as_tensor_share_memory(torch):
    for lib in (minitorch, torch):
        array = np.array([1.0, 2.0, 3.0])
        shared = lib.from_numpy(array)
        also_shared = lib.as_tensor(array)
        converted = lib.as_tensor(array, dtype=lib.float32)  # another dtype: a copy
        array[0] = 42.0
        assert shared.tolist()[0] == 42.0
        assert also_shared.tolist()[0] == 42.0
        assert converted.tolist()[0] == 1.0
        shared.numpy()[1] = -1.0  # and back: writing the tensor's memory changes the array
        assert array[1] == -1.0
        assert also_shared.dtype == lib.float64


def test_from_numpy_non_contiguous_array_keeps_strides():
    array = np.arange(12.0).reshape(3, 4)[:, ::2]
    shared = minitorch.from_numpy(array)
    assert shared.shape == (3, 2)
    assert shared.tolist() == array.tolist()
    array[0, 0] = -5.0
    assert shared.tolist()[0][0] == -5.0


def test_as_tensor_of_tensor_returns_it_unchanged(torch):
    for lib in (minitorch, torch):
        source = lib.tensor([1.0, 2.0])
        assert lib.as_tensor(source) is source
        assert lib.as_tensor(source, dtype=lib.float32) is source


# -- random numbers -----------------------------------------------------------------------------------
RANDOM = {
    "rand": lambda lib: lib.rand(2, 3),
    "rand tuple float64": lambda lib: lib.rand((4,), dtype=lib.float64),
    "randn": lambda lib: lib.randn(3, 1),
    "randn float64": lambda lib: lib.randn(2, dtype=lib.float64),
    "randint high size": lambda lib: lib.randint(5, (2, 2)),
    "randint low high": lambda lib: lib.randint(3, 7, (10,)),
    "randint dtype": lambda lib: lib.randint(0, 4, (3,), dtype=lib.int32),
    "randperm": lambda lib: lib.randperm(6),
    "randperm float": lambda lib: lib.randperm(4, dtype=lib.float32),
    "rand_like": lambda lib: lib.rand_like(lib.zeros(2, 2, dtype=lib.float64)),
    "randn_like": lambda lib: lib.randn_like(lib.zeros(3)),
    "rand requires_grad": lambda lib: lib.rand(2, requires_grad=True),
}


def _shape_and_dtype(tensor):
    return tuple(tensor.shape), str(tensor.dtype).split(".")[-1], tensor.requires_grad


@pytest.mark.parametrize("name", list(RANDOM))
def test_random_shapes_and_dtypes_match_torch(torch, name):
    mine, theirs = RANDOM[name](minitorch), RANDOM[name](torch)
    assert _shape_and_dtype(mine) == _shape_and_dtype(theirs)


def test_random_value_ranges():
    minitorch.manual_seed(0)
    uniform = minitorch.rand(10_000, dtype=minitorch.float64).numpy()
    assert uniform.min() >= 0.0 and uniform.max() < 1.0
    assert abs(uniform.mean() - 0.5) < 0.02
    normal = minitorch.randn(10_000, dtype=minitorch.float64).numpy()
    assert abs(normal.mean()) < 0.05 and abs(normal.std() - 1.0) < 0.05
    integers = minitorch.randint(3, 7, (10_000,)).numpy()
    assert set(integers.tolist()) == {3, 4, 5, 6}
    assert sorted(minitorch.randperm(50).tolist()) == list(range(50))


def test_manual_seed_makes_runs_repeat():
    minitorch.manual_seed(1234)
    first = [
        minitorch.rand(3).tolist(),
        minitorch.randn(2).tolist(),
        minitorch.randint(100, (4,)).tolist(),
        minitorch.randperm(8).tolist(),
    ]
    minitorch.manual_seed(1234)
    second = [
        minitorch.rand(3).tolist(),
        minitorch.randn(2).tolist(),
        minitorch.randint(100, (4,)).tolist(),
        minitorch.randperm(8).tolist(),
    ]
    assert first == second
    minitorch.manual_seed(4321)
    assert minitorch.rand(3).tolist() != first[0]


def test_generator_has_its_own_stream(torch):
    generator = minitorch.Generator().manual_seed(7)
    first = minitorch.rand(4, generator=generator).tolist()
    minitorch.manual_seed(0)
    minitorch.rand(10)  # drawing from the default generator does not disturb ``generator``
    generator.manual_seed(7)
    assert minitorch.rand(4, generator=generator).tolist() == first
    assert minitorch.Generator().manual_seed(7).initial_seed() == 7
    assert isinstance(minitorch.Generator().manual_seed(7), minitorch.Generator)
    assert isinstance(torch.Generator().manual_seed(7), torch.Generator)  # both return the generator


def test_generator_state_round_trip():
    generator = minitorch.Generator().manual_seed(3)
    state = generator.get_state()
    first = minitorch.randn(5, generator=generator).tolist()
    generator.set_state(state)
    assert minitorch.randn(5, generator=generator).tolist() == first
    minitorch.manual_seed(11)
    saved = minitorch.get_rng_state()
    expected = minitorch.rand(3).tolist()
    minitorch.set_rng_state(saved)
    assert minitorch.rand(3).tolist() == expected


def test_random_errors_match_torch(torch):
    _check_same(torch, lambda lib: lib.randint(5, 2, (2,)))


# -- dtypes -------------------------------------------------------------------------------------------
CONVERSIONS = {
    "int to float": lambda lib: lib.tensor([1, 2]).float(),
    "float to long truncates": lambda lib: lib.tensor([1.7, -1.7]).long(),
    "float to int": lambda lib: lib.tensor([1.7, -1.7]).int(),
    "float to bool": lambda lib: lib.tensor([0.0, 2.0]).bool(),
    "float to double": lambda lib: lib.tensor([1.5]).double(),
    "float to half": lambda lib: lib.tensor([1.5]).half(),
    "int to uint8 wraps": lambda lib: lib.tensor([300, -1]).to(lib.uint8),
    "to float64": lambda lib: lib.tensor([1, 2]).to(lib.float64),
    "to dtype keyword": lambda lib: lib.tensor([1, 2]).to(dtype=lib.float16),
    "to other tensor": lambda lib: lib.tensor([1, 2]).to(lib.zeros(1, dtype=lib.float64)),
    "type name float": lambda lib: lib.tensor([1.5]).type(),
    "type name long": lambda lib: lib.tensor([1]).type(),
    "type name bool": lambda lib: lib.tensor([True]).type(),
    "type name double": lambda lib: lib.tensor([1.0], dtype=lib.float64).type(),
    "type to dtype": lambda lib: lib.tensor([1.5]).type(lib.int32),
    "type to string": lambda lib: lib.tensor([1.5]).type("torch.DoubleTensor"),
    "type_as": lambda lib: lib.tensor([1.5]).type_as(lib.tensor([1])),
    "conversion keeps grad": lambda lib: lib.tensor([1.5], requires_grad=True).double(),
    "float to int drops grad": lambda lib: lib.tensor([1.5], requires_grad=True).long(),
    "is_floating_point": lambda lib: (lib.tensor([1.0]).is_floating_point(), lib.tensor([1]).is_floating_point()),
    "dtype attributes": lambda lib: (lib.float64.is_floating_point, lib.int32.is_floating_point, lib.float16.itemsize),
    "element_size": lambda lib: (lib.tensor([1]).element_size(), lib.tensor([1.0]).element_size()),
    "dtype aliases": lambda lib: (
        lib.float is lib.float32,
        lib.double is lib.float64,
        lib.long is lib.int64,
        lib.int is lib.int32,
        lib.half is lib.float16,
        lib.short is lib.int16,
    ),
}


@pytest.mark.parametrize("name", list(CONVERSIONS))
def test_dtype_conversions_match_torch(torch, name):
    _check_same(torch, CONVERSIONS[name])


def test_conversion_to_same_dtype_returns_self(torch):
    for lib in (minitorch, torch):
        x = lib.tensor([1.0, 2.0])
        assert x.float() is x
        assert x.to(lib.float32) is x
        assert x.to("cpu") is x
        assert x.to(lib.float32, copy=True) is not x


def test_conversion_is_differentiable(torch):
    def build(lib):
        x = lib.tensor([1.5, -2.0], requires_grad=True)
        y = x.double() * x.double()
        y.sum().backward()
        return x.grad, y.grad_fn.next_functions[0][0].name()

    _check_same(torch, build)


def test_default_dtype(torch):
    for lib in (minitorch, torch):
        assert lib.get_default_dtype() is lib.float32
        lib.set_default_dtype(lib.float64)
        try:
            assert lib.get_default_dtype() is lib.float64
            assert lib.tensor([1.5]).dtype is lib.float64
            assert lib.zeros(2).dtype is lib.float64
            assert lib.arange(2.0).dtype is lib.float64
            assert lib.rand(2).dtype is lib.float64
            assert lib.full((1,), 2.0).dtype is lib.float64
            assert lib.tensor([1]).dtype is lib.int64
            assert repr(lib.tensor([1.5])) == "tensor([1.5000])"
            assert repr(lib.tensor([1.5], dtype=lib.float32)).endswith("dtype=" + lib.__name__ + ".float32)")
        finally:
            lib.set_default_dtype(lib.float32)
        assert lib.tensor([1.5]).dtype is lib.float32


def test_set_default_dtype_rejects_integers(torch):
    _check_same(torch, lambda lib: lib.set_default_dtype(lib.int64), message_prefix=59)
    assert minitorch.get_default_dtype() is minitorch.float32


# -- properties ---------------------------------------------------------------------------------------
PROPERTIES = {
    "shape": lambda lib: lib.zeros(4, 2).shape,
    "shape slice": lambda lib: lib.zeros(4, 2, 3).shape[1:],
    "shape equals tuple": lambda lib: lib.zeros(4, 2).shape == (4, 2),
    "size()": lambda lib: lib.zeros(4, 2).size(),
    "size(dim)": lambda lib: (lib.zeros(4, 2).size(1), lib.zeros(4, 2).size(-1)),
    "size bad dim": lambda lib: lib.zeros(4, 2).size(2),
    "Size numel": lambda lib: lib.zeros(4, 2, 3).shape.numel(),
    "dim": lambda lib: (lib.zeros(4, 2).dim(), lib.tensor(1.0).dim(), lib.zeros(4, 2).ndimension()),
    "ndim": lambda lib: lib.zeros(4, 2, 1).ndim,
    "numel": lambda lib: (lib.zeros(4, 2).numel(), lib.tensor(3).numel(), lib.zeros(0, 5).numel()),
    "dtype": lambda lib: lib.zeros(2, dtype=lib.int8).dtype,
    "T 2-d": lambda lib: lib.tensor([[1, 2], [3, 4]]).T,
    "T 1-d": lambda lib: lib.tensor([1, 2]).T,
    "mT": lambda lib: lib.tensor([[[1, 2, 3], [4, 5, 6]]]).mT,
    "is_leaf": lambda lib: (
        lib.zeros(2).is_leaf,
        lib.zeros(2, requires_grad=True).is_leaf,
        (lib.zeros(2, requires_grad=True) * 2).is_leaf,
        (lib.zeros(2) * 2).is_leaf,
    ),
    "item float": lambda lib: lib.tensor(2.5).item(),
    "item int": lambda lib: lib.tensor([7]).item(),
    "item bool": lambda lib: lib.tensor([True]).item(),
    "item float32 precision": lambda lib: lib.tensor(0.1).item(),
    "item many": lambda lib: lib.tensor([1, 2]).item(),
    "item of requires_grad": lambda lib: lib.tensor(1.5, requires_grad=True).item(),
    "tolist": lambda lib: lib.tensor([[1, 2], [3, 4]]).tolist(),
    "tolist float": lambda lib: lib.tensor([[1.5, 2]]).tolist(),
    "tolist 0-d": lambda lib: lib.tensor(3).tolist(),
    "tolist requires_grad": lambda lib: lib.tensor([1.5], requires_grad=True).tolist(),
    "len": lambda lib: len(lib.zeros(4, 2)),
    "len 0-d": lambda lib: len(lib.tensor(1)),
    "iter 0-d": lambda lib: iter(lib.tensor(1)),
    "bool one": lambda lib: (bool(lib.tensor([1])), bool(lib.tensor(0.0)), bool(lib.tensor([[True]]))),
    "bool many": lambda lib: bool(lib.tensor([1, 2])),
    "bool empty": lambda lib: bool(lib.tensor([])),
    "int and float of tensor": lambda lib: (int(lib.tensor(2.7)), float(lib.tensor(3)), int(lib.tensor([5]))),
    "numpy requires_grad": lambda lib: lib.tensor([1.0], requires_grad=True).numpy(),
    "numpy of non-leaf": lambda lib: (lib.tensor([1.0], requires_grad=True) * 2).numpy(),
    "numpy detached": lambda lib: lib.tensor([1.0], requires_grad=True).detach().numpy().tolist(),
    "numpy dtype": lambda lib: str(lib.tensor([1, 2], dtype=lib.int32).numpy().dtype),
    "stride": lambda lib: (lib.zeros(2, 3, 4).stride(), lib.zeros(2, 3, 4).stride(1)),
    "is_contiguous": lambda lib: (lib.zeros(2, 3).is_contiguous(), lib.zeros(2, 3).T.is_contiguous()),
    "device": lambda lib: str(lib.zeros(1).device),
    "is_cuda": lambda lib: (lib.zeros(1).is_cuda, lib.zeros(1).is_cpu, lib.zeros(1).get_device()),
    "nbytes": lambda lib: (lib.zeros(3, dtype=lib.float64).nbytes, lib.zeros(3).itemsize),
    "format 0-d": lambda lib: f"{lib.tensor(2.5):.2f}",
    "index": lambda lib: [10, 20, 30][lib.tensor(1)],
    "is_tensor": lambda lib: (lib.is_tensor(lib.zeros(1)), lib.is_tensor([1]), lib.numel(lib.zeros(2, 3))),
}


@pytest.mark.parametrize("name", list(PROPERTIES))
def test_properties_match_torch(torch, name):
    _check_same(torch, PROPERTIES[name])


def test_iteration_gives_rows(torch):
    _check_same(torch, lambda lib: [row for row in lib.tensor([[1, 2], [3, 4]])])
    _check_same(torch, lambda lib: list(lib.tensor([1.5, 2.5])))


def test_numpy_shares_memory(torch):
    for lib in (minitorch, torch):
        x = lib.tensor([1.0, 2.0, 3.0])
        array = x.numpy()
        array[0] = 10.0
        assert x.tolist() == [10.0, 2.0, 3.0]
        assert np.shares_memory(array, x.numpy())


@pytest.mark.filterwarnings("ignore:__array__ implementation doesn.t accept a copy keyword:DeprecationWarning")
def test_array_protocol(torch):
    for lib in (minitorch, torch):
        x = lib.tensor([[1, 2], [3, 4]], dtype=lib.int32)
        as_array = np.asarray(x)
        assert as_array.dtype == np.int32 and as_array.tolist() == [[1, 2], [3, 4]]
        assert np.asarray(x, dtype=np.float64).dtype == np.float64
        assert np.array(x).tolist() == [[1, 2], [3, 4]]
        as_array[0, 0] = 9  # np.asarray shares memory
        assert x.tolist()[0][0] == 9
    with pytest.raises(RuntimeError, match="Can't call numpy\\(\\) on Tensor that requires grad"):
        np.asarray(minitorch.tensor([1.0], requires_grad=True))


def test_numpy_error_message_is_torchs(torch):
    def build(lib):
        lib.tensor([1.0], requires_grad=True).numpy()

    mine, theirs = _outcome(build, minitorch), _outcome(build, torch)
    assert mine == theirs
    assert mine[2] == "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."


def test_numpy_force_detaches():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    assert x.numpy(force=True).tolist() == [1.0, 2.0]


def test_data_and_grad_assignment(torch):
    def build(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        data = x.data
        x.grad = lib.tensor([0.5, 0.5])
        return data.requires_grad, data.is_leaf, x.grad

    _check_same(torch, build)
    for bad in (
        lambda lib: setattr(lib.tensor([1.0], requires_grad=True), "grad", lib.tensor([1.0, 2.0])),
        lambda lib: setattr(lib.tensor([1.0], requires_grad=True), "grad", lib.tensor([1.0], dtype=lib.float64)),
    ):
        _check_same(torch, bad, message_prefix=43)


# -- repr -----------------------------------------------------------------------------------------------
REPRS = {
    "ints": lambda lib: lib.tensor([1, -20, 300]),
    "int matrix": lambda lib: lib.tensor([[1, 2], [3, 40]]),
    "whole floats": lambda lib: lib.tensor([6.0, 20.0, 42.0]),
    "floats 4 decimals": lambda lib: lib.tensor([1.5, -2.25, 10.0]),
    "float 0-d": lambda lib: lib.tensor(3.5),
    "int 0-d": lambda lib: lib.tensor(3),
    "negative zero": lambda lib: lib.tensor([-1.0, 0.0]),
    "scientific small": lambda lib: lib.tensor([1e-5, 1.0, 1000.0]),
    "scientific large": lambda lib: lib.tensor([1e10, 2.0]),
    "scientific whole range": lambda lib: lib.tensor([2.0, 1e9]),
    "tiny value": lambda lib: lib.tensor([0.00001234]),
    "nan and inf": lambda lib: lib.tensor([float("nan"), 1.0, float("inf")]),
    "bool": lambda lib: lib.tensor([True, False]),
    "bool matrix": lambda lib: lib.tensor([[True, False], [False, True]]),
    "requires_grad": lambda lib: lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True),
    "grad_fn": lambda lib: lib.tensor([1.0, 2.0], requires_grad=True) * 2,
    "sum grad_fn": lambda lib: lib.tensor([1.0, 2.0, 3.0], requires_grad=True).sum(),
    "float64": lambda lib: lib.tensor([1.0, 2.0], dtype=lib.float64),
    "float64 requires_grad": lambda lib: lib.ones(2, 3, dtype=lib.float64, requires_grad=True),
    "float16": lambda lib: lib.tensor([0.1, 0.2], dtype=lib.float16),
    "int32": lambda lib: lib.tensor([1, 2], dtype=lib.int32),
    "int8": lambda lib: lib.tensor([-5, 3], dtype=lib.int8),
    "uint8": lambda lib: lib.arange(10, dtype=lib.uint8),
    "2-d aligned": lambda lib: lib.tensor([[1.5, -2.0, 3.25], [4.0, 5.5, -6.75]]),
    "2-d wrapping": lambda lib: lib.arange(30.0).reshape(3, 10) / 7,
    "3-d": lambda lib: lib.arange(24.0).reshape(2, 3, 4),
    "empty": lambda lib: lib.zeros(0),
    "empty 2-d": lambda lib: lib.zeros(2, 0),
    "empty float64": lambda lib: lib.zeros(0, 3, dtype=lib.float64),
    "summarised": lambda lib: lib.arange(2000.0),
    "summarised 2-d": lambda lib: lib.arange(2000.0).reshape(40, 50),
    "summarised ints": lambda lib: lib.arange(3000).reshape(10, 300),
    "summarised 3-d": lambda lib: lib.arange(5000.0).reshape(10, 10, 50) / 3,
    "just over threshold": lambda lib: lib.arange(1001.0),
    "long float vector": lambda lib: lib.arange(25.0) / 12 - 1,
}


@pytest.mark.parametrize("name", list(REPRS))
def test_repr_matches_torch(torch, name):
    mine = repr(REPRS[name](minitorch)).replace("minitorch", "torch")
    theirs = repr(REPRS[name](torch))
    assert mine == theirs, f"\nminitorch:\n{mine}\ntorch:\n{theirs}"


def test_str_is_repr():
    x = minitorch.tensor([1.0, 2.0])
    assert str(x) == repr(x)


def test_size_and_device_repr(torch):
    assert repr(minitorch.zeros(2, 3).shape) == "minitorch.Size([2, 3])"
    assert repr(torch.zeros(2, 3).shape) == "torch.Size([2, 3])"
    assert repr(minitorch.zeros(1).device) == repr(torch.zeros(1).device) == "device(type='cpu')"
    assert repr(minitorch.float64) == "minitorch.float64"


def test_every_constructor_sets_every_field():
    """``Tensor._make`` is the one place the fields are set: a tensor made by ``Tensor(...)``, by an op, as a
    ``Parameter`` or by ``deepcopy`` has each of them (only a view's two fields are set where views are made)."""
    import copy

    made = [minitorch.Tensor._make(np.ones(3, dtype=np.float32)), minitorch.Tensor([1.0, 2.0]),
            minitorch.ones(2) * 2, minitorch.nn.Parameter(minitorch.ones(2)),
            copy.deepcopy(minitorch.nn.Parameter(minitorch.ones(2)))]
    for tensor in made:
        for name in minitorch.Tensor.__slots__:
            if name not in ("__weakref__", "__dict__", "_base_history", "_view_made_without_grad"):
                assert hasattr(tensor, name), (type(tensor).__name__, name)
    assert type(made[3]) is type(made[4]) is minitorch.nn.Parameter and made[4].requires_grad
    assert made[2].grad_fn is None and made[2]._version_counter is not made[0]._version_counter


def test_comparing_with_what_is_no_tensor_or_number_is_pythons_business():
    """``tensor == None`` is False (PyTorch returns NotImplemented, so Python compares identities), a list too;
    an ordering with None is Python's TypeError."""
    torch = require_torch()
    for lib in (minitorch, torch):
        t = lib.tensor([1.0, 2.0])
        assert (t == None) is False and (t != None) is True and (None == t) is False  # noqa: E711
        assert (t == [1.0, 2.0]) is False
        with pytest.raises(TypeError, match="'<' not supported between instances of 'Tensor' and 'NoneType'"):
            _ = t < None
    assert (minitorch.tensor([1.0, 2.0]) == 1.0).tolist() == [True, False]


def test_a_learner_may_hang_attributes_on_a_tensor_as_on_pytorchs():
    """fastai's "from the foundations" stores gradients by hand in ``x.g``; deepcopy keeps them, ops do not."""
    torch = require_torch()
    for lib in (minitorch, torch):
        x = lib.ones(2, requires_grad=True)
        x.g = lib.zeros(2)
        x.note = "weights"
        assert x.note == "weights" and x.g.tolist() == [0.0, 0.0]
        assert copy.deepcopy(x).note == "weights"
        assert not hasattr(x * 2, "note")
