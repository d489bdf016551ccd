"""``minitorch.bfloat16`` (through ml_dtypes) against PyTorch: the dtype, conversions, promotion, printing,
arithmetic rounded as PyTorch rounds it (bit for bit where PyTorch's CPU kernels are deterministic), and
bfloat16 tensors in ``torch.save`` and safetensors files, both ways, byte for byte.
"""

from __future__ import annotations

import zipfile

import numpy as np
import pytest

import minitorch
from minitorch.utils import safetensors
from tests.support import require, require_torch


@pytest.fixture(scope="module")
def torch():
    return require_torch()


def bits(tensor) -> list:
    """The raw 16-bit patterns of a bfloat16 tensor of either library, for an exact comparison; every NaN as
    one pattern (its sign and payload are the conversion routine's choice: PyTorch's C++ and ml_dtypes differ)."""
    if isinstance(tensor, minitorch.Tensor):
        patterns = np.asarray(tensor._data).view(np.uint16).ravel()
    else:
        patterns = tensor.detach().view(require_torch().int16).numpy().view(np.uint16).ravel()
    return np.where((patterns & 0x7F80 == 0x7F80) & (patterns & 0x7F != 0), 0x7FC0, patterns).tolist()


def both(torch, make):
    """``make(lib)`` under PyTorch and under minitorch."""
    return make(torch), make(minitorch)


def same_bits(torch, make):
    theirs, ours = both(torch, make)
    assert ours.dtype == minitorch.bfloat16 and theirs.dtype == torch.bfloat16
    assert ours.shape == tuple(theirs.shape)
    assert bits(ours) == bits(theirs)


# -- the dtype ---------------------------------------------------------------------------------------------------
def test_the_dtype_has_pytorchs_attributes(torch):
    ours, theirs = minitorch.bfloat16, torch.bfloat16
    assert (ours.is_floating_point, ours.is_signed, ours.itemsize) == (True, True, 2) == (
        theirs.is_floating_point, theirs.is_signed, theirs.itemsize)
    assert repr(minitorch.finfo(ours)) == repr(torch.finfo(theirs))
    assert minitorch.finfo(ours).eps == torch.finfo(theirs).eps == 2.0**-7
    assert minitorch.tensor([1.0]).bfloat16().type() == "torch.BFloat16Tensor"


@pytest.mark.parametrize("other", ["float16", "float32", "float64", "int64", "int8", "uint8", "bool"])
def test_promotion_follows_pytorch(torch, other):
    assert minitorch.promote_types(minitorch.bfloat16, getattr(minitorch, other)).name == str(
        torch.promote_types(torch.bfloat16, getattr(torch, other))).split(".")[1]
    theirs, ours = both(torch, lambda lib: (lib.ones(2, dtype=lib.bfloat16) + lib.ones(2, dtype=getattr(lib, other))))
    assert ours.dtype.name == str(theirs.dtype).split(".")[1]


def test_conversions_round_to_nearest_even_as_pytorch_does(torch):
    values = [1.1, 2.2, -3.3, 1e-39, 3.4e38, 1e39, float("inf"), float("nan"), 1 + 2**-8, 1 + 3 * 2**-8, 0.0, -0.0]
    same_bits(torch, lambda lib: lib.tensor(values, dtype=lib.bfloat16))
    same_bits(torch, lambda lib: lib.tensor(values).bfloat16())
    same_bits(torch, lambda lib: lib.tensor(values, dtype=lib.float64).to(lib.bfloat16))
    same_bits(torch, lambda lib: lib.arange(-300, 300).bfloat16())
    theirs, ours = both(torch, lambda lib: lib.tensor([1.7, -2.5, 300.0], dtype=lib.bfloat16))
    assert ours.float().tolist() == theirs.float().tolist()
    assert ours.long().tolist() == theirs.long().tolist()
    assert ours.tolist() == theirs.tolist() and ours[0].item() == theirs[0].item()


def test_printing_matches_pytorch(torch):
    for make in (lambda lib: lib.tensor([1.1, 2.2, 3.3], dtype=lib.bfloat16),
                 lambda lib: lib.arange(10.0).bfloat16() * 12345.6,
                 lambda lib: lib.zeros(2, 3, dtype=lib.bfloat16),
                 lambda lib: lib.tensor([1e-5, 1e4], dtype=lib.bfloat16)):
        theirs, ours = both(torch, make)
        assert repr(ours).replace("minitorch.", "torch.") == repr(theirs)


def test_modules_and_parameters_convert(torch):
    for lib in (torch, minitorch):
        lib.manual_seed(0)
    theirs, ours = both(torch, lambda lib: lib.nn.Linear(3, 2).bfloat16())
    assert ours.weight.dtype == minitorch.bfloat16 and isinstance(ours.weight, minitorch.nn.Parameter)
    assert bits(ours.weight) == bits(theirs.weight) and bits(ours.bias) == bits(theirs.bias)
    x = [[0.5, -1.25, 2.0]]
    out_theirs = theirs(torch.tensor(x, dtype=torch.bfloat16))
    out_ours = ours(minitorch.tensor(x, dtype=minitorch.bfloat16))
    assert bits(out_ours) == bits(out_theirs)
    assert out_ours.grad_fn.name() == out_theirs.grad_fn.name()


# -- arithmetic: computed in float32, rounded once ------------------------------------------------------------
def _library_of(tensor):
    return minitorch if isinstance(tensor, minitorch.Tensor) else require_torch()


def _operands(lib, seed=0):
    rng = np.random.default_rng(seed)
    a = lib.tensor(rng.standard_normal((4, 6)).tolist(), dtype=lib.bfloat16)
    b = lib.tensor(rng.standard_normal((4, 6)).tolist(), dtype=lib.bfloat16)
    return a, b


@pytest.mark.parametrize("name, op", [
    ("add", lambda a, b: a + b), ("sub", lambda a, b: a - b), ("mul", lambda a, b: a * b),
    ("div", lambda a, b: a / b), ("neg", lambda a, b: -a), ("abs", lambda a, b: a.abs()),
    ("maximum", lambda a, b: a.maximum(b)), ("relu", lambda a, b: a.relu()), ("where", lambda a, b: (a > b) * a),
    ("sqrt", lambda a, b: a.abs().sqrt()), ("exp", lambda a, b: a.exp()), ("sum", lambda a, b: a.sum()),
    ("sum dim", lambda a, b: a.sum(1)), ("mean", lambda a, b: a.mean(0)), ("matmul", lambda a, b: a @ b.T),
    ("bmm", lambda a, b: a.reshape(2, 2, 6) @ b.reshape(2, 6, 2)), ("add int", lambda a, b: a + 3),
    ("slice", lambda a, b: a.reshape(-1)[3:9]),
    ("silu", lambda a, b: _library_of(a).nn.functional.silu(a)),
    ("mish", lambda a, b: _library_of(a).nn.functional.mish(a)),
])
def test_elementwise_ops_reductions_and_products_give_pytorchs_bits(torch, name, op):
    same_bits(torch, lambda lib: op(*_operands(lib)))


def test_a_long_sum_accumulates_in_float32_not_bfloat16(torch):
    # 100 sevenths: rounding after every addition (bfloat16 accumulation) ends at 696, PyTorch's float32 one at 708
    same_bits(torch, lambda lib: (lib.arange(100.0).bfloat16() / 7).sum())
    same_bits(torch, lambda lib: (lib.arange(100.0).bfloat16() / 7).mean())


def test_linear_rounds_matmul_plus_bias_once(torch):
    rng = np.random.default_rng(1)
    x, w, b = rng.standard_normal((64, 32)), rng.standard_normal((16, 32)), rng.standard_normal(16)
    same_bits(torch, lambda lib: lib.nn.functional.linear(
        *(lib.tensor(v.tolist(), dtype=lib.bfloat16) for v in (x, w, b))))
    same_bits(torch, lambda lib: lib.nn.functional.linear(
        *(lib.tensor(v.tolist(), dtype=lib.bfloat16) for v in (x, w))))


def test_gradients_are_bfloat16_with_pytorchs_values(torch):
    rng = np.random.default_rng(2)
    x, w = rng.standard_normal((8, 5)), rng.standard_normal((3, 5))
    grads = []
    for lib in (torch, minitorch):
        xs = lib.tensor(x.tolist(), dtype=lib.bfloat16, requires_grad=True)
        ws = lib.tensor(w.tolist(), dtype=lib.bfloat16, requires_grad=True)
        (lib.nn.functional.linear(xs, ws) * 2).sum().backward()
        grads.append((xs.grad, ws.grad))
    (tx, tw), (mx, mw) = grads
    assert mx.dtype == mw.dtype == minitorch.bfloat16
    assert bits(mx) == bits(tx) and bits(mw) == bits(tw)


@pytest.mark.parametrize("name", ["softmax", "sigmoid", "var"])
def test_multi_step_ops_backward_in_float32_from_the_rounded_output(torch, name):
    """PyTorch keeps the bfloat16 output and computes the backward in float32, rounding once."""
    make = {"softmax": lambda x: x.softmax(1), "sigmoid": lambda x: x.sigmoid(), "var": lambda x: x.var(1)}[name]
    grads = []
    for lib in (torch, minitorch):
        x = _operands(lib)[0].requires_grad_()
        y = make(x)
        y.backward(_operands(lib, seed=5)[1].reshape(-1)[: y.numel()].reshape(y.shape))
        grads.append(x.grad)
    theirs, ours = grads
    assert ours.dtype == minitorch.bfloat16
    if name == "softmax":
        assert bits(ours) == bits(theirs)
    else:
        np.testing.assert_allclose(ours.float().tolist(), theirs.float().tolist(), rtol=2**-6, atol=2**-6)


def test_composite_ops_stay_within_a_bfloat16_rounding_of_pytorch(torch):
    """softmax, layer_norm and gelu are one fused float32 kernel in PyTorch, several float32 steps here."""
    for make in (lambda lib: _operands(lib)[0].softmax(1),
                 lambda lib: lib.nn.functional.layer_norm(_operands(lib)[0], (6,)),
                 lambda lib: lib.nn.functional.gelu(_operands(lib)[0])):
        theirs, ours = both(torch, make)
        assert ours.dtype == minitorch.bfloat16
        np.testing.assert_allclose(ours.float().tolist(), theirs.float().tolist(), rtol=2**-6, atol=2**-6)


@pytest.mark.parametrize("size", [3, 15, 16, 17, 40, 1000, 4099])
def test_random_numbers_are_pytorchs(torch, size):
    """Normals: float32's, of whole blocks of 16 from 16 values on; uniforms: float32's rounded, with a value
    rounded up to ``high`` replaced by ``low`` (about 1 in 500 for U[0, 1))."""
    for make in (lambda lib: lib.randn(size, dtype=lib.bfloat16),
                 lambda lib: lib.empty(size, dtype=lib.bfloat16).normal_(0.3, 2.5),
                 lambda lib: lib.rand(size, dtype=lib.bfloat16),
                 lambda lib: lib.empty(size, dtype=lib.bfloat16).uniform_(-3.0, -1.0)):
        for lib in (torch, minitorch):
            lib.manual_seed(size)
        same_bits(torch, make)


def test_layers_made_in_bfloat16_are_initialised_as_pytorchs(torch):
    for lib in (torch, minitorch):
        lib.manual_seed(0)
    theirs, ours = both(torch, lambda lib: lib.nn.Linear(40, 30, dtype=lib.bfloat16))
    assert bits(ours.weight) == bits(theirs.weight) and bits(ours.bias) == bits(theirs.bias)


# -- files ----------------------------------------------------------------------------------------------------
def _state(torch):
    torch.manual_seed(0)
    return {"weight": torch.randn(3, 4).bfloat16(), "bias": torch.randn(4).bfloat16(),
            "special": torch.tensor([float("nan"), float("inf"), -0.0, 1e-40], dtype=torch.bfloat16),
            "float": torch.randn(2)}


def _records(path) -> dict:
    """The archive's records by name without the archive folder, less the random id of each save."""
    with zipfile.ZipFile(path) as archive:
        return {name.split("/", 1)[1]: archive.read(name) for name in archive.namelist()
                if not name.endswith("serialization_id")}


def test_torch_save_files_with_bfloat16_load_and_save_back_identical(torch, tmp_path):
    theirs = _state(torch)
    torch.save(theirs, tmp_path / "checkpoint.pt")
    ours = minitorch.load(tmp_path / "checkpoint.pt")
    assert ours["weight"].dtype == minitorch.bfloat16 and ours["float"].dtype == minitorch.float32
    for name in theirs:
        assert (bits(ours[name]) == bits(theirs[name])) if theirs[name].dtype == torch.bfloat16 else (
            ours[name].tolist() == theirs[name].tolist())
    expected = _records(tmp_path / "checkpoint.pt")
    (tmp_path / "ours").mkdir()
    minitorch.save(ours, tmp_path / "ours" / "checkpoint.pt")
    assert _records(tmp_path / "ours" / "checkpoint.pt") == expected  # pickle and storages byte for byte
    back = torch.load(tmp_path / "ours" / "checkpoint.pt")
    assert all(back[n].dtype == theirs[n].dtype and torch.equal(back[n].view(-1)[:3], theirs[n].view(-1)[:3])
               for n in ("weight", "bias"))
    assert minitorch.load(tmp_path / "checkpoint.pt", mmap=True)["weight"].tolist() == ours["weight"].tolist()


def test_minitorch_bfloat16_saves_are_read_by_torch(torch, tmp_path):
    ours = {"w": minitorch.tensor([[1.1, -2.2], [3e-39, 1e30]], dtype=minitorch.bfloat16)}
    minitorch.save(ours, tmp_path / "m.pt")
    theirs = torch.load(tmp_path / "m.pt")
    assert theirs["w"].dtype == torch.bfloat16 and bits(theirs["w"]) == bits(ours["w"])


def test_safetensors_files_with_bfloat16_both_ways_byte_for_byte(torch, tmp_path):
    safetensors_torch = require("safetensors.torch", "safetensors' own PyTorch interface is the oracle")
    theirs = _state(torch)
    safetensors_torch.save_file(theirs, tmp_path / "theirs.safetensors")
    loaded = safetensors.load_file(tmp_path / "theirs.safetensors")
    assert loaded["weight"].dtype == minitorch.bfloat16 and bits(loaded["special"]) == bits(theirs["special"])
    safetensors.save_file(loaded, tmp_path / "ours.safetensors")
    assert (tmp_path / "ours.safetensors").read_bytes() == (tmp_path / "theirs.safetensors").read_bytes()
    assert safetensors.save(safetensors.load((tmp_path / "theirs.safetensors").read_bytes())) == (
        tmp_path / "theirs.safetensors").read_bytes()
    back = safetensors_torch.load_file(tmp_path / "ours.safetensors")
    assert bits(back["weight"]) == bits(theirs["weight"])


# -- the whole op table in bfloat16 ------------------------------------------------------------------------------
# Where PyTorch's bfloat16 result is not the float32 one rounded, and these differ by more than a rounding:
#   matrix_exp: PyTorch runs its degree-18 Taylor/Pade steps in bfloat16 itself (its own result is far from the
#   exact one; minitorch computes in float32 and rounds once);
#   signbit of a NaN: PyTorch turns a float NaN into bfloat16 0xFFFF (the sign bit set), ml_dtypes into 0x7FC0.
FAR_FROM_PYTORCH = {"matrix_exp", "matrix_exp_method", "linalg_matrix_exp", "signbit"}


def test_every_op_of_the_table_takes_bfloat16_and_gives_pytorchs_dtype_and_values(torch):
    """Each case of the op table with its floating inputs in bfloat16: no error, PyTorch's dtypes, values
    within one bfloat16 rounding (2^-6 relative); the number bit for bit is printed (1407 of 1443 when written)."""
    from tests.ops.test_op_table import PARITY, _make_arrays, _run

    def inputs(lib, arrays, sample):
        tensors = []
        for array, arg in zip(arrays, sample):
            tensor = lib.from_numpy(array.copy())
            if arg.kind == "float":
                tensor = tensor.float().to(lib.bfloat16).requires_grad_(arg.grad)
            tensors.append(tensor)
        return tensors

    def values(tensor):
        tensor = tensor.detach().float() if tensor.is_floating_point() else tensor.detach()
        return np.asarray(tensor.tolist(), dtype=np.float64)

    exact = compared = 0
    failures = []
    for (op, index), case in PARITY:
        if op.name in FAR_FROM_PYTORCH:
            continue
        arrays = _make_arrays(op.samples[index], 200 + index)
        try:
            theirs = _run(op, torch, inputs(torch, arrays, op.samples[index]))
        except Exception:  # noqa: BLE001 - PyTorch refuses bfloat16 for this op: nothing to compare with
            continue
        try:
            ours = _run(op, minitorch, inputs(minitorch, arrays, op.samples[index]))
        except Exception as error:  # noqa: BLE001 - collected, and the test fails naming the case
            failures.append(f"{case}: {type(error).__name__}: {error}")
            continue
        compared += 1
        same = True
        for mine, reference in zip(ours, theirs):
            if mine.dtype.name != str(reference.dtype).split(".")[-1]:
                failures.append(f"{case}: dtype {mine.dtype} vs PyTorch's {reference.dtype}")
                same = False
                break
            a, b = values(mine), values(reference)
            if a.shape != b.shape or not np.allclose(a, b, rtol=2**-6, atol=2**-6, equal_nan=True):
                failures.append(f"{case}: values beyond a bfloat16 rounding")
                same = False
                break
            same = same and np.array_equal(a, b, equal_nan=True)
        exact += same
    print(f"bfloat16 op table: {exact} of {compared} cases bit for bit equal to PyTorch's")
    assert not failures, "\n".join(failures)
    assert compared > 1400


def test_assert_close_uses_pytorchs_bfloat16_tolerances(torch):
    """rtol 1.6e-2 (two bfloat16 roundings), atol 1e-5, with PyTorch's message when beyond them."""
    messages = []
    for lib in (torch, minitorch):
        a = lib.tensor([1.0, 2.0], dtype=lib.bfloat16)
        lib.testing.assert_close(a, a * 1.004)  # one step of 2^-7 apart: close
        with pytest.raises(AssertionError) as info:
            lib.testing.assert_close(a, a * 1.03)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_a_list_of_tensors_keeps_their_dtype_promoted_with_the_numbers(torch):
    """``tensor([t1, t2])`` promotes the elements' dtypes (a number counts as it would alone)."""
    cases = [
        lambda lib: [lib.tensor(1.1, dtype=lib.bfloat16), lib.tensor(2.2, dtype=lib.bfloat16)],
        lambda lib: [lib.tensor(1.5, dtype=lib.bfloat16), 2.5],
        lambda lib: [lib.tensor(1.5, dtype=lib.float16), lib.tensor(1.0, dtype=lib.float64)],
        lambda lib: [lib.tensor(1.5, dtype=lib.float16), lib.tensor(2)],
        lambda lib: [[lib.tensor(1, dtype=lib.int32), 2], [3, lib.tensor(4, dtype=lib.uint8)]],
        lambda lib: [lib.tensor(1, dtype=lib.uint8), lib.tensor(-1, dtype=lib.int8)],
    ]
    for make in cases:
        theirs, ours = (lib.tensor(make(lib)) for lib in (torch, minitorch))
        assert ours.dtype.name == str(theirs.dtype).split(".")[1]
        assert ours.tolist() == theirs.tolist()


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("start, end, steps", [(0, 1, 7), (-3.3, 7.1, 1000), (2, -5, 33), (0, 1, 1), (0, 1, 2)])
def test_linspace_in_16_bit_floats_rounds_each_step_as_pytorch(torch, dtype, start, end, steps):
    theirs, ours = both(torch, lambda lib: lib.linspace(start, end, steps, dtype=getattr(lib, dtype)))
    assert ours.dtype.name == dtype and ours.tolist() == theirs.tolist()


# -- a Python number beside a bfloat16 or float16 tensor: PyTorch's opmath rules ----------------------------------
SCALAR_CASES = {
    "x * 0.1": lambda lib, x, y: x * 0.1, "0.1 * x": lambda lib, x, y: 0.1 * x, "x / 0.3": lambda lib, x, y: x / 0.3,
    "1.7 / x": lambda lib, x, y: 1.7 / x, "x + 1.7": lambda lib, x, y: x + 1.7, "x - 1.7": lambda lib, x, y: x - 1.7,
    "1.7 - x": lambda lib, x, y: 1.7 - x, "x // 0.3": lambda lib, x, y: x // 0.3,
    "add alpha": lambda lib, x, y: lib.add(x, y, alpha=0.3), "sub alpha": lambda lib, x, y: lib.sub(x, y, alpha=0.3),
    "add number alpha": lambda lib, x, y: lib.add(x, 1.7, alpha=0.3),
    "add_ alpha under no_grad (an optimizer step)": lambda lib, x, y: x.detach().clone().add_(y, alpha=-0.01),
    "addcmul": lambda lib, x, y: lib.addcmul(x, y, x, value=0.3),
    "addcdiv": lambda lib, x, y: lib.addcdiv(x, y, x, value=0.3),
    "leaky_relu": lambda lib, x, y: lib.nn.functional.leaky_relu(x, 0.1),
    "softplus": lambda lib, x, y: lib.nn.functional.softplus(x, beta=0.7),
    "log_softmax": lambda lib, x, y: x.reshape(400, 10).log_softmax(1),
    "x * a 0-d float32 tensor": lambda lib, x, y: x * lib.tensor(0.1),
    # one-input ops PyTorch computes in float32 and rounds once (or, for x ** 3, in the tensor's dtype step by step)
    "sigmoid": lambda lib, x, y: x.sigmoid(), "rsqrt": lambda lib, x, y: x.abs().rsqrt(),
    "rad2deg": lambda lib, x, y: x.rad2deg(), "deg2rad": lambda lib, x, y: x.deg2rad(),
    "round(decimals=1)": lambda lib, x, y: x.round(decimals=1), "x ** 3": lambda lib, x, y: x**3,
    "x ** -2": lambda lib, x, y: x ** -2, "cumprod": lambda lib, x, y: (x.abs() + 0.5).reshape(40, 100).cumprod(1),
    "renorm": lambda lib, x, y: x.reshape(40, 100).renorm(2, 0, 1.0),
    "scatter_add": lambda lib, x, y: lib.zeros(40, dtype=x.dtype).scatter_add(0, lib.arange(4000) % 40, x),
    "logit (in the tensor's dtype, step by step)": lambda lib, x, y: x.sigmoid().logit(eps=0.1),
    "addmm": lambda lib, x, y: lib.addmm(x[:400].reshape(20, 20), x[400:800].reshape(20, 20),
                                          y[:400].reshape(20, 20), beta=0.3, alpha=0.7),
    "baddbmm": lambda lib, x, y: lib.baddbmm(x[:1600].reshape(4, 20, 20), x[1600:3200].reshape(4, 20, 20),
                                              y[:1600].reshape(4, 20, 20), beta=0.3, alpha=0.7),
    "addbmm (one product at a time)": lambda lib, x, y: lib.addbmm(x[:400].reshape(20, 20), x[1600:3200].reshape(
        4, 20, 20), y[:1600].reshape(4, 20, 20), beta=0.3, alpha=0.7),
    # losses summed in float32 (a 16-bit running sum of 4000 terms stops growing), nll_loss in PyTorch's cascade
    "mse_loss": lambda lib, x, y: lib.nn.functional.mse_loss(x, y),
    "l1_loss (sum)": lambda lib, x, y: lib.nn.functional.l1_loss(x, y, reduction="sum"),
    "binary_cross_entropy_with_logits": lambda lib, x, y: lib.nn.functional.binary_cross_entropy_with_logits(
        x, y.sigmoid()),
    "nll_loss": lambda lib, x, y: lib.nn.functional.nll_loss(x.reshape(400, 10).log_softmax(1),
                                                             (lib.arange(400) * 7) % 10),
}


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", list(SCALAR_CASES))
def test_a_number_with_a_16_bit_tensor_rounds_once_as_pytorch(torch, dtype, name):
    """The number is kept in float32 or rounded to the tensor's dtype first, kernel by kernel, as PyTorch does; the
    result is rounded once (4000 values: a second rounding shows in hundreds of them). 4000 is a multiple of
    PyTorch's vector length: the last ``n % 16`` (or 32) elements of a row take its scalar loop, which for a few
    kernels (``add`` with ``alpha``, ``rsqrt``) rounds twice where its vector loop rounds once; minitorch follows
    the vector loop."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(4000) * 3, rng.standard_normal(4000) * 3
    results = []
    for lib in (torch, minitorch):
        x, y = (lib.tensor(v.tolist()).to(getattr(lib, dtype)) for v in (a, b))
        results.append(SCALAR_CASES[name](lib, x, y))
    theirs, ours = results
    assert ours.dtype.name == dtype
    assert ours.float().tolist() == theirs.float().tolist()


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("rows", [37, 300])
def test_cross_entropy_in_16_bits_is_pytorchs(torch, dtype, reduction, rows):
    """Forward: ``log_softmax`` with its rounded buffers, then ``nll_loss``'s cascade of 16-bit partial sums;
    backward: ``nll_loss``'s (``-grad / N`` rounded) then ``log_softmax``'s, from the rounded log-softmax."""
    rng = np.random.default_rng(rows)
    logits, labels, upstream = rng.standard_normal((rows, 10)) * 3, rng.integers(0, 10, rows), np.ones(rows)
    results = []
    for lib in (torch, minitorch):
        x = lib.tensor(logits.tolist()).to(getattr(lib, dtype)).requires_grad_()
        loss = lib.nn.functional.cross_entropy(x, lib.tensor(labels.tolist()), reduction=reduction)
        loss.backward(lib.tensor(upstream.tolist()).to(x.dtype) if reduction == "none" else None)
        results.append((loss, x.grad))
    (loss_theirs, theirs), (loss_ours, ours) = results
    assert ours.dtype.name == loss_ours.dtype.name == dtype
    assert loss_ours.float().tolist() == loss_theirs.float().tolist()
    assert ours.float().tolist() == theirs.float().tolist()
