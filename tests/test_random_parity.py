"""minitorch's random numbers are PyTorch's: the same seed gives the same bits.

Every call below runs under both libraries (the APIs are the same, so one lambda serves
both: ``lib`` is ``minitorch`` or ``torch``) after the same seed, and the results must be
EXACTLY equal: same dtype, same shape, same bits. The sizes straddle PyTorch's switch from
the scalar normal kernel to the 16-wide one (1, 3, 15 | 16, 17, 100, 1000), both float
dtypes, the default generator and explicit ``Generator`` objects, and calls interleaved on
one stream (Box-Muller's cached second sample carries from one scalar call to the next).
Then the generator state (PyTorch's 5056 bytes, exchangeable both ways), every module's
default initialisation, ``nn.init``, dropout masks, and the data-loading samplers.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from tests.support import require_torch

torch = require_torch()

SIZES = [1, 3, 15, 16, 17, 100, 1000]
FLOATS = ["float32", "float64"]


def as_array(value):
    if isinstance(value, (list, tuple)):
        return [as_array(v) for v in value]
    if hasattr(value, "detach"):
        value = value.detach()
    return value.cpu().numpy() if hasattr(value, "cpu") else np.asarray(value)


def assert_identical(mine, theirs, label=""):
    mine, theirs = as_array(mine), as_array(theirs)
    if isinstance(theirs, list):
        assert len(mine) == len(theirs), label
        for a, b in zip(mine, theirs):
            assert_identical(a, b, label)
        return
    assert mine.dtype == theirs.dtype, f"{label}: dtype {mine.dtype} != {theirs.dtype}"
    assert mine.shape == theirs.shape, f"{label}: shape {mine.shape} != {theirs.shape}"
    equal = (mine == theirs) | (np.isnan(mine) & np.isnan(theirs)) if mine.dtype.kind == "f" else mine == theirs
    assert equal.all(), f"{label}: {np.count_nonzero(~equal)} of {mine.size} values differ, e.g. {mine[~equal][:3]} " \
                        f"vs {theirs[~equal][:3]}"


def run_both(call, seed=0, generator=False):
    """``call(lib, g)`` under minitorch and PyTorch after the same seed (``g``: a fresh seeded Generator or None)."""
    results = []
    for lib in (minitorch, torch):
        lib.manual_seed(seed + 1000)  # the default generator in a known state (and not the explicit one's)
        g = lib.Generator().manual_seed(seed) if generator else None
        if not generator:
            lib.manual_seed(seed)
        results.append(call(lib, g))
    return results


def dtype(lib, name):
    return getattr(lib, name)


def ramp(lib, start, end, count, dtype_name):
    """Evenly spaced values made by NumPy, so both libraries get the same bits (their linspace may round apart)."""
    return lib.tensor(np.linspace(start, end, count).astype(dtype_name))


# -- the table of calls: (name, call(lib, g, n, dtype_name)) ------------------------------------------
FLOAT_CALLS = {
    "rand": lambda lib, g, n, d: lib.rand(n, dtype=dtype(lib, d), generator=g),
    "rand_2d": lambda lib, g, n, d: lib.rand(2, n, dtype=dtype(lib, d), generator=g),
    "randn": lambda lib, g, n, d: lib.randn(n, dtype=dtype(lib, d), generator=g),
    "randn_2d": lambda lib, g, n, d: lib.randn(n, 3, dtype=dtype(lib, d), generator=g),
    "normal_": lambda lib, g, n, d: lib.empty(n, dtype=dtype(lib, d)).normal_(0.3, 2.7, generator=g),
    "normal_noncontiguous": lambda lib, g, n, d: lib.zeros(n, 2, dtype=dtype(lib, d))[:, 0].normal_(-1.0, 0.5,
                                                                                                    generator=g),
    "normal_floats": lambda lib, g, n, d: lib.normal(0.5, 2.0, (n,), generator=g, dtype=dtype(lib, d)),
    "normal_tensors": lambda lib, g, n, d: lib.normal(lib.arange(n, dtype=dtype(lib, d)),
                                                      ramp(lib, 0.1, 3, n, d), generator=g),
    "normal_tensor_mean": lambda lib, g, n, d: lib.normal(lib.arange(n, dtype=dtype(lib, d)), 2.0, generator=g),
    "normal_tensor_std": lambda lib, g, n, d: lib.normal(1.5, ramp(lib, 0.1, 3, n, d),
                                                         generator=g),
    "uniform_": lambda lib, g, n, d: lib.empty(n, dtype=dtype(lib, d)).uniform_(-0.37, 0.81, generator=g),
    "uniform_transposed": lambda lib, g, n, d: lib.empty(3, n, dtype=dtype(lib, d)).t().uniform_(2.0, 5.0,
                                                                                                 generator=g),
    "exponential_": lambda lib, g, n, d: lib.empty(n, dtype=dtype(lib, d)).exponential_(1.7, generator=g),
    "cauchy_": lambda lib, g, n, d: lib.empty(n, dtype=dtype(lib, d)).cauchy_(0.3, 2.5, generator=g),
    "cauchy_transposed": lambda lib, g, n, d: lib.empty(3, n, dtype=dtype(lib, d)).t().cauchy_(generator=g),
    "log_normal_": lambda lib, g, n, d: lib.empty(n, dtype=dtype(lib, d)).log_normal_(0.5, 0.75, generator=g),
    "geometric_": lambda lib, g, n, d: lib.empty(n, dtype=dtype(lib, d)).geometric_(0.35, generator=g),
    "geometric_int64": lambda lib, g, n, d: lib.empty(n, dtype=lib.int64).geometric_(0.05, generator=g),
    "random_": lambda lib, g, n, d: lib.empty(n, dtype=dtype(lib, d)).random_(generator=g),
    "random_to": lambda lib, g, n, d: lib.empty(n, dtype=dtype(lib, d)).random_(17, generator=g),
    "random_from_to": lambda lib, g, n, d: lib.empty(n, dtype=dtype(lib, d)).random_(-5, 9, generator=g),
    "bernoulli_probabilities": lambda lib, g, n, d: lib.bernoulli(ramp(lib, 0, 1, n, d),
                                                                  generator=g),
    "bernoulli_p": lambda lib, g, n, d: lib.bernoulli(lib.zeros(n, dtype=dtype(lib, d)), 0.3, generator=g),
    "bernoulli_": lambda lib, g, n, d: lib.empty(n, dtype=dtype(lib, d)).bernoulli_(0.3, generator=g),
    "bernoulli_tensor_p": lambda lib, g, n, d: lib.empty(n, dtype=dtype(lib, d)).bernoulli_(
        ramp(lib, 0, 1, n, d), generator=g),
    "rand_like": lambda lib, g, n, d: lib.rand_like(lib.zeros(n, dtype=dtype(lib, d))),
    "randn_like": lambda lib, g, n, d: lib.randn_like(lib.zeros(n, dtype=dtype(lib, d))),
    "multinomial": lambda lib, g, n, d: lib.multinomial(ramp(lib, 0.1, 2, n, d), 1, generator=g),
    "multinomial_without_replacement": lambda lib, g, n, d: lib.multinomial(
        ramp(lib, 0.1, 2, n, d), min(n, 5), generator=g),
    "multinomial_with_replacement": lambda lib, g, n, d: lib.multinomial(
        ramp(lib, 0.1, 2, n, d), 7, replacement=True, generator=g),
    "multinomial_rows": lambda lib, g, n, d: lib.multinomial(
        ramp(lib, 0.1, 2, 3 * n, d).reshape(3, n), 4, replacement=True, generator=g),
}
INTEGER_CALLS = {
    "randint": lambda lib, g, n: lib.randint(-5, 17, (n,), generator=g),
    "randint_high": lambda lib, g, n: lib.randint(10, (n,), generator=g),
    "randint_64_bit_range": lambda lib, g, n: lib.randint(0, 2**40, (n,), generator=g),
    "randint_float": lambda lib, g, n: lib.randint(3, 9, (n,), generator=g, dtype=lib.float32),
    "randint_like": lambda lib, g, n: lib.randint_like(lib.zeros(n, dtype=lib.int32), 4, 70),
    "randperm": lambda lib, g, n: lib.randperm(n, generator=g),
    "random_int64": lambda lib, g, n: lib.empty(n, dtype=lib.int64).random_(generator=g),
    "random_int32": lambda lib, g, n: lib.empty(n, dtype=lib.int32).random_(generator=g),
    "random_uint8": lambda lib, g, n: lib.empty(n, dtype=lib.uint8).random_(generator=g),
    "random_bool": lambda lib, g, n: lib.empty(n, dtype=lib.bool).random_(generator=g),
    "random_int_bounds": lambda lib, g, n: lib.empty(n, dtype=lib.int16).random_(-300, 300, generator=g),
}


def generator_cases(names):
    """(name, explicit generator?) pairs: the ``*_like`` functions take no generator in PyTorch."""
    return [pytest.param(name, explicit, id=f"{name}-{'Generator' if explicit else 'default'}")
            for name in sorted(names) for explicit in (False, True) if not (explicit and name.endswith("_like"))]


@pytest.mark.parametrize("dtype_name", FLOATS)
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(("name", "explicit_generator"), generator_cases(FLOAT_CALLS))
def test_floating_calls_match_pytorch(name, explicit_generator, size, dtype_name):
    call = FLOAT_CALLS[name]
    mine, theirs = run_both(lambda lib, g: call(lib, g, size, dtype_name), seed=size, generator=explicit_generator)
    assert_identical(mine, theirs, f"{name}({size}, {dtype_name})")


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(("name", "explicit_generator"), generator_cases(INTEGER_CALLS))
def test_integer_calls_match_pytorch(name, explicit_generator, size):
    call = INTEGER_CALLS[name]
    mine, theirs = run_both(lambda lib, g: call(lib, g, size), seed=size, generator=explicit_generator)
    assert_identical(mine, theirs, f"{name}({size})")


def test_the_famous_numbers():
    """PyTorch's documentation and tutorials print these after ``torch.manual_seed(0)``."""
    minitorch.manual_seed(0)
    assert [round(v, 4) for v in minitorch.randn(3).tolist()] == [1.541, -0.2934, -2.1788]


def _interleaved(lib, g):
    """Calls sharing one stream: scalar normals leave a cached sample for the next scalar normal."""
    f64 = lib.float64
    return [
        lib.randn(3, generator=g), lib.rand(5, generator=g), lib.randn(1, dtype=f64, generator=g),
        lib.randn(17, generator=g), lib.randint(0, 100, (4,), generator=g), lib.randn(2, generator=g),
        lib.empty(5, dtype=f64).normal_(2.0, 0.1, generator=g), lib.randperm(9, generator=g),
        lib.rand(3, dtype=f64, generator=g), lib.randn(33, dtype=f64, generator=g), lib.randn(1, generator=g),
        lib.multinomial(lib.tensor([0.2, 0.5, 0.3]), 2, generator=g), lib.randn(1, generator=g),
    ]


@pytest.mark.parametrize("explicit_generator", [False, True], ids=["default", "Generator"])
def test_interleaved_calls_match_pytorch(explicit_generator):
    mine, theirs = run_both(_interleaved, seed=123, generator=explicit_generator)
    assert_identical(mine, theirs, "interleaved")


def test_generators_are_independent_streams():
    minitorch.manual_seed(5)
    torch.manual_seed(5)
    mine_g, theirs_g = minitorch.Generator().manual_seed(9), torch.Generator().manual_seed(9)
    mine = [minitorch.randn(4), minitorch.randn(4, generator=mine_g), minitorch.randn(4),
            minitorch.rand(2, generator=mine_g)]
    theirs = [torch.randn(4), torch.randn(4, generator=theirs_g), torch.randn(4), torch.rand(2, generator=theirs_g)]
    assert_identical(mine, theirs, "two generators")


# -- state ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1, 2**32 + 7, 2**64 - 1, -3])
def test_state_bytes_are_pytorchs(seed):
    for lib in (minitorch, torch):
        lib.manual_seed(seed)
    assert_identical(minitorch.get_rng_state(), torch.get_rng_state(), "after manual_seed")
    assert minitorch.initial_seed() == torch.initial_seed()
    for draws in (lambda lib: lib.randn(3), lambda lib: lib.rand(700), lambda lib: lib.randn(1000, dtype=lib.float64),
                  lambda lib: lib.randn(1), lambda lib: lib.rand(624 * 3 - 5)):
        assert_identical(draws(minitorch), draws(torch), "draws")
        assert_identical(minitorch.get_rng_state(), torch.get_rng_state(), "after draws")


def test_new_generator_state_is_pytorchs_default():
    assert_identical(minitorch.Generator().get_state(), torch.Generator().get_state(), "fresh Generator")
    assert minitorch.Generator().initial_seed() == torch.Generator().initial_seed() == 67280421310721


def test_state_round_trip_between_the_libraries():
    torch.manual_seed(4)
    torch.randn(5, dtype=torch.float64)  # leaves a cached normal in the state
    torch.rand(100)
    saved = torch.get_rng_state()
    minitorch.set_rng_state(minitorch.tensor(saved.numpy()))  # PyTorch's bytes restore minitorch
    assert_identical(minitorch.randn(7), torch.randn(7), "after set_rng_state from PyTorch's bytes")
    back = minitorch.get_rng_state()
    torch_generator = torch.Generator()
    torch_generator.set_state(torch.from_numpy(back.numpy()))  # and minitorch's restore PyTorch
    assert_identical(minitorch.randn(20), torch.randn(20, generator=torch_generator), "after the way back")
    # and within minitorch: save, draw, restore, draw again
    state = minitorch.get_rng_state()
    first = minitorch.randn(11).tolist()
    minitorch.set_rng_state(state)
    assert minitorch.randn(11).tolist() == first


def test_generator_get_and_set_state():
    g = minitorch.Generator().manual_seed(3)
    g_torch = torch.Generator().manual_seed(3)
    minitorch.randn(3, generator=g)
    torch.randn(3, generator=g_torch)
    state = g.get_state()
    assert_identical(state, g_torch.get_state(), "Generator.get_state")
    after = minitorch.randn(5, generator=g)
    g.set_state(state)
    assert_identical(minitorch.randn(5, generator=g), after, "Generator.set_state")
    assert_identical(after, torch.randn(5, generator=g_torch), "Generator stream")


def test_bad_states_are_refused():
    with pytest.raises(RuntimeError, match="Expected a CPUGeneratorImplState of size 5056"):
        minitorch.set_rng_state(minitorch.zeros(10, dtype=minitorch.uint8))
    with pytest.raises(TypeError):
        minitorch.set_rng_state(minitorch.zeros(5056))


def test_seed_reseeds_nondeterministically_and_reports_the_seed():
    first = minitorch.seed()
    assert minitorch.initial_seed() == first
    values = minitorch.rand(4)
    minitorch.manual_seed(first)
    assert_identical(minitorch.rand(4), values, "manual_seed(seed())")
    torch.manual_seed(first)
    assert_identical(values, torch.rand(4), "seed() as PyTorch would use it")
    assert minitorch.seed() != first  # 64 bits of entropy: a repeat is (practically) impossible


# -- nn.init and module initialisation ---------------------------------------------------------------
INIT_SHAPES = [(3, 5), (40, 17), (64, 32, 3, 3)]
INITS = {
    "uniform_": lambda lib, t: lib.nn.init.uniform_(t, -0.2, 0.7),
    "normal_": lambda lib, t: lib.nn.init.normal_(t, 0.1, 0.3),
    "xavier_uniform_": lambda lib, t: lib.nn.init.xavier_uniform_(t, gain=1.3),
    "xavier_normal_": lambda lib, t: lib.nn.init.xavier_normal_(t),
    "kaiming_uniform_": lambda lib, t: lib.nn.init.kaiming_uniform_(t, a=5**0.5),
    "kaiming_normal_": lambda lib, t: lib.nn.init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu"),
    "trunc_normal_": lambda lib, t: lib.nn.init.trunc_normal_(t, std=0.02),
    "trunc_normal_narrow": lambda lib, t: lib.nn.init.trunc_normal_(t, 0.0, 1.0, 1.0, 3.0),
    "sparse_": lambda lib, t: lib.nn.init.sparse_(t.reshape(t.shape[0], -1), 0.3),
}


@pytest.mark.parametrize("shape", INIT_SHAPES, ids=str)
@pytest.mark.parametrize("name", sorted(INITS))
def test_init_matches_pytorch(name, shape):
    mine, theirs = run_both(lambda lib, g: INITS[name](lib, lib.empty(*shape)), seed=len(shape))
    assert_identical(mine, theirs, name)


@pytest.mark.parametrize("shape", INIT_SHAPES, ids=str)
def test_orthogonal_draws_pytorchs_normals(shape):
    """``orthogonal_`` takes a QR decomposition of PyTorch's normals: LAPACK's last bits may differ (MKL vs
    OpenBLAS), so the matrices agree to float32 rounding, and the stream afterwards is in step exactly."""
    mine, theirs = run_both(lambda lib, g: [lib.nn.init.orthogonal_(lib.empty(*shape)), lib.rand(3)], seed=1)
    np.testing.assert_allclose(as_array(mine[0]), as_array(theirs[0]), rtol=0, atol=1e-6)
    assert_identical(mine[1], theirs[1], "the stream after orthogonal_")


MODULES = {
    "Linear": lambda nn: nn.Linear(20, 30),
    "Bilinear": lambda nn: nn.Bilinear(5, 6, 7),
    "Conv1d": lambda nn: nn.Conv1d(4, 6, 5),
    "Conv2d": lambda nn: nn.Conv2d(3, 8, 3),
    "Conv3d": lambda nn: nn.Conv3d(2, 3, 2),
    "ConvTranspose2d": lambda nn: nn.ConvTranspose2d(4, 6, 3),
    "Embedding": lambda nn: nn.Embedding(50, 16),
    "RNN": lambda nn: nn.RNN(10, 20, num_layers=2),
    "LSTM": lambda nn: nn.LSTM(10, 20, bidirectional=True),
    "GRU": lambda nn: nn.GRU(10, 20),
    "MultiheadAttention": lambda nn: nn.MultiheadAttention(16, 4),
    "TransformerEncoderLayer": lambda nn: nn.TransformerEncoderLayer(16, 4, 32),
    "Transformer": lambda nn: nn.Transformer(d_model=16, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                                             dim_feedforward=32),
    "Sequential": lambda nn: nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(),
                                           nn.Linear(4 * 26 * 26, 10), nn.LayerNorm(10)),
}


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", sorted(MODULES))
def test_default_initialisation_matches_pytorch(name):
    mine, theirs = run_both(lambda lib, g: MODULES[name](lib.nn), seed=0)
    mine_parameters, their_parameters = dict(mine.named_parameters()), dict(theirs.named_parameters())
    assert list(mine_parameters) == list(their_parameters)
    for key in their_parameters:
        assert_identical(mine_parameters[key], their_parameters[key], f"{name}.{key}")
    assert_identical(minitorch.rand(2), torch.rand(2), "the stream after construction")


# -- dropout ---------------------------------------------------------------------------------------------
DROPOUTS = {
    "dropout": (lambda F, x: F.dropout(x, 0.2), (1000,)),
    "dropout_p_half": (lambda F, x: F.dropout(x, 0.5), (7, 33)),
    "dropout1d": (lambda F, x: F.dropout1d(x, 0.3), (4, 6, 7)),
    "dropout2d": (lambda F, x: F.dropout2d(x, 0.5), (4, 8, 5, 5)),
    "dropout3d": (lambda F, x: F.dropout3d(x, 0.5), (2, 4, 3, 5, 2)),
    "alpha_dropout": (lambda F, x: F.alpha_dropout(x, 0.3, True), (4, 6, 7)),
    "feature_alpha_dropout": (lambda F, x: F.feature_alpha_dropout(x, 0.3, True), (4, 6, 7)),
}


@pytest.mark.parametrize("dtype_name", FLOATS)
@pytest.mark.parametrize("name", sorted(DROPOUTS))
def test_dropout_masks_match_pytorch(name, dtype_name):
    function, shape = DROPOUTS[name]
    data = np.random.default_rng(0).standard_normal(shape).astype(dtype_name)
    mine, theirs = run_both(lambda lib, g: [function(lib.nn.functional, lib.tensor(data)), lib.rand(2)], seed=2)
    assert_identical(mine, theirs, name)


def test_dropout_module_in_a_training_step():
    def step(lib):
        model = lib.nn.Sequential(lib.nn.Linear(8, 16), lib.nn.ReLU(), lib.nn.Dropout(0.25), lib.nn.Linear(16, 1))
        x = lib.randn(5, 8)
        return [model(x), model(x)]

    mine, theirs = run_both(lambda lib, g: step(lib), seed=8)
    np.testing.assert_allclose(as_array(mine), as_array(theirs), rtol=1e-6, atol=1e-7)  # matmuls may round apart
    assert_identical(minitorch.rand(2), torch.rand(2), "the stream after two dropout passes")


@pytest.mark.parametrize("dtype_name", FLOATS)
def test_rrelu_slopes_match_pytorch(dtype_name):
    data = np.random.default_rng(1).standard_normal((40, 9)).astype(dtype_name)
    mine, theirs = run_both(lambda lib, g: [lib.nn.functional.rrelu(lib.tensor(data), training=True), lib.rand(2)])
    assert_identical(mine, theirs, "rrelu")


# -- data loading ----------------------------------------------------------------------------------------
def _loader_orders(lib, g):
    from importlib import import_module

    data = import_module(f"{lib.__name__}.utils.data")
    dataset = data.TensorDataset(lib.arange(23))
    loader = data.DataLoader(dataset, batch_size=5, shuffle=True, generator=g)
    epochs = [[batch[0].tolist() for batch in loader] for _ in range(3)]
    base_seed = iter(loader)._base_seed  # what workers would add their id to
    return epochs, base_seed


@pytest.mark.parametrize("explicit_generator", [False, True], ids=["default", "Generator"])
def test_dataloader_shuffles_in_pytorchs_order(explicit_generator):
    (mine, mine_seed), (theirs, their_seed) = run_both(_loader_orders, seed=7, generator=explicit_generator)
    assert mine == theirs
    assert mine_seed == their_seed
    assert_identical(minitorch.rand(3), torch.rand(3), "the default stream afterwards")


def _samplers(lib, g):
    from importlib import import_module

    data = import_module(f"{lib.__name__}.utils.data")
    distributed = import_module(f"{lib.__name__}.utils.data.distributed")
    orders = {
        "random_replacement": list(data.RandomSampler(range(50), replacement=True, num_samples=70, generator=g)),
        "random_more_than_n": list(data.RandomSampler(range(6), num_samples=15, generator=g)),
        "subset": list(data.SubsetRandomSampler([3, 9, 27, 81, 243], generator=g)),
        "weighted": list(data.WeightedRandomSampler([0.1, 0.5, 2.0, 1.0], 30, generator=g)),
        "weighted_without_replacement": list(data.WeightedRandomSampler([0.1, 0.5, 2.0, 1.0], 3, replacement=False,
                                                                        generator=g)),
        "random_split": [list(part.indices) for part in data.random_split(range(30), [10, 20], generator=g)],
    }
    for epoch in range(3):
        for rank in range(3):
            sampler = distributed.DistributedSampler(range(25), num_replicas=3, rank=rank, seed=5)
            sampler.set_epoch(epoch)
            orders[f"distributed_{epoch}_{rank}"] = list(sampler)
    return orders


def test_samplers_match_pytorch():
    mine, theirs = run_both(_samplers, seed=3, generator=True)
    assert mine == theirs


# -- bad arguments: PyTorch's exception and words -------------------------------------------------------
ERRORS = {
    "uniform_from_above_to": lambda lib: lib.empty(3).uniform_(1, 0),
    "uniform_integer": lambda lib: lib.zeros(3, dtype=lib.int64).uniform_(),
    "rand_integer": lambda lib: lib.rand(3, dtype=lib.int64),
    "normal_negative_std": lambda lib: lib.empty(3).normal_(0, -1),
    "normal_integer": lambda lib: lib.zeros(3, dtype=lib.int32).normal_(),
    "randn_integer": lambda lib: lib.randn(3, dtype=lib.int64),
    "bernoulli_p_above_1": lambda lib: lib.empty(3).bernoulli_(1.5),
    "exponential_negative_rate": lambda lib: lib.empty(3).exponential_(-1.0),
    "exponential_integer": lambda lib: lib.zeros(3, dtype=lib.int64).exponential_(),
    "cauchy_zero_sigma": lambda lib: lib.empty(3).cauchy_(0.0, 0.0),
    "cauchy_integer": lambda lib: lib.zeros(3, dtype=lib.int64).cauchy_(),
    "log_normal_negative_std": lambda lib: lib.empty(3).log_normal_(0.0, -1.0),
    "log_normal_integer": lambda lib: lib.zeros(3, dtype=lib.int64).log_normal_(),
    "geometric_p_one": lambda lib: lib.empty(3).geometric_(1.0),
    "geometric_p_zero": lambda lib: lib.empty(3).geometric_(0),
    "geometric_bool": lambda lib: lib.zeros(3, dtype=lib.bool).geometric_(0.5),
    "cauchy_leaf_requiring_grad": lambda lib: lib.zeros(3, requires_grad=True).cauchy_(),
    "randint_empty_range": lambda lib: lib.randint(5, 5, (2,)),
    "randperm_negative": lambda lib: lib.randperm(-1),
    "multinomial_too_many": lambda lib: lib.multinomial(lib.tensor([0.5, 0.5]), 3),
    "multinomial_negative": lambda lib: lib.multinomial(lib.tensor([-0.5, 0.5]), 1),
    "poisson_negative_rate": lambda lib: lib.poisson(lib.tensor([1.0, -1.0])),
    "poisson_nan_rate": lambda lib: lib.poisson(lib.tensor([float("nan")])),
    "poisson_integer": lambda lib: lib.poisson(lib.tensor([1, 2])),
    "binomial_integer_count": lambda lib: lib.binomial(lib.tensor([3]), lib.tensor([0.5])),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_in_pytorchs_words(name):
    raised = []
    for lib in (torch, minitorch):
        with pytest.raises(Exception) as caught:
            ERRORS[name](lib)
        raised.append((type(caught.value).__name__, str(caught.value).splitlines()[0]))
    assert raised[1] == raised[0]


# -- where the numbers are not PyTorch's, and that nothing else differs ------------------------------------
# PyTorch draws these by rejection, element after element (a varying number of words per element), which no
# vectorised transform repeats: minitorch/_random.py says so, and they are the only functions taking a
# ``generator=`` that this file does not compare bit for bit.
NOT_PYTORCHS_NUMBERS = {"poisson", "binomial"}
COMPARED_ELSEWHERE = {"rrelu_": "test_rrelu_slopes_match_pytorch"}


def _functions_taking_a_generator():
    import inspect

    names = set()
    for owner, prefix in ((minitorch, ""), (minitorch.Tensor, "Tensor.")):
        for name in dir(owner):
            function = getattr(owner, name)
            try:
                parameters = inspect.signature(function).parameters if callable(function) else {}
            except (TypeError, ValueError):
                continue
            if "generator" in parameters:
                names.add(prefix + name)
    return names


def test_every_function_taking_a_generator_is_compared_or_listed_as_not_pytorchs():
    compared = set(FLOAT_CALLS) | set(INTEGER_CALLS)
    uncovered = []
    for name in sorted(_functions_taking_a_generator()):
        bare = name.removeprefix("Tensor.")
        if bare in NOT_PYTORCHS_NUMBERS or bare in COMPARED_ELSEWHERE:
            continue
        if not any(key == bare or key.startswith(bare + "_") for key in compared):
            uncovered.append(name)
    assert not uncovered, f"random functions neither compared with PyTorch nor listed as not PyTorch's: {uncovered}"
    documented = minitorch._random.__doc__
    assert all(f"``{name}``" in documented for name in NOT_PYTORCHS_NUMBERS), documented


@pytest.mark.parametrize("name", sorted(NOT_PYTORCHS_NUMBERS))
def test_draws_that_are_not_pytorchs_repeat_after_a_seed_and_have_its_dtypes_and_moments(name):
    def draw(lib, dtype_name):
        rates = lib.full((20000,), 4.0, dtype=getattr(lib, dtype_name))
        return lib.poisson(rates) if name == "poisson" else lib.binomial(rates * 2, lib.full_like(rates, 0.25))

    for dtype_name in FLOATS:
        minitorch.manual_seed(7)
        first = draw(minitorch, dtype_name)
        minitorch.manual_seed(7)
        again = draw(minitorch, dtype_name)
        theirs = draw(torch, dtype_name)
        assert_identical(first, again, f"{name} after the same seed")
        assert str(first.dtype) == str(theirs.dtype).replace("torch", "minitorch")
        assert first.shape == tuple(theirs.shape)
        values, reference = first.numpy(), theirs.numpy()
        assert np.all(values == np.round(values)) and values.min() >= 0
        # Both samples estimate the same mean and variance (4 and 4 for Poisson(4); 2 and 1.5 for Binomial(8, 1/4)).
        assert abs(values.mean() - reference.mean()) < 0.1 and abs(values.var() - reference.var()) < 0.3
