"""minitorch.save / minitorch.load: exact round trips, sharing, map_location, hostile files, PyTorch weights.

Devices: the ``fake_cuda`` fixture stands a NumPy-backed ``cuda`` backend with two
"GPUs" in for real ones (as tests/test_device.py does), so loading onto another device is
tested on any machine.

Hostile files: each crafted file carries a payload that would create a marker file if
anything in it were executed; the tests first prove the payload works (by unpickling it on
purpose), then check that ``minitorch.load`` refuses the file and the marker never appears.
"""

from __future__ import annotations

import io
import json
import math
import os
import pickle
import zipfile
from collections import OrderedDict

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import minitorch
from minitorch import _device, nn
from tests.support import fake_cuda_backend, require_torch

ALL_DTYPES = [minitorch.bool, minitorch.uint8, minitorch.int8, minitorch.int16, minitorch.int32, minitorch.int64,
              minitorch.float16, minitorch.float32, minitorch.float64]


@pytest.fixture
def torch():
    return require_torch()


def round_trip(obj, **load_kwargs):
    buffer = io.BytesIO()
    minitorch.save(obj, buffer)
    buffer.seek(0)
    return minitorch.load(buffer, **load_kwargs)


def special_values(dtype, shape) -> np.ndarray:
    """Values that a lossy format would change: NaN payloads, -0.0, infinities, subnormals, extreme integers."""
    numpy_dtype = dtype.numpy_dtype
    count = int(np.prod(shape))
    rng = np.random.default_rng(0)
    if numpy_dtype.kind == "f":
        info = np.finfo(numpy_dtype)
        bits = np.dtype(f"u{numpy_dtype.itemsize}")
        nan_with_payload = (np.array(np.nan, numpy_dtype).view(bits) | 1).view(numpy_dtype)
        special = np.array([np.nan, -np.inf, np.inf, -0.0, info.tiny / 2, info.max, info.min, info.eps],
                           numpy_dtype)
        values = np.concatenate([special, nan_with_payload.reshape(1), rng.standard_normal(count).astype(numpy_dtype)])
    elif numpy_dtype.kind == "b":
        values = rng.integers(0, 2, count + 2).astype(bool)
    else:
        info = np.iinfo(numpy_dtype)
        values = np.concatenate([np.array([info.min, info.max, 0], numpy_dtype),
                                 rng.integers(info.min, info.max, count, dtype=numpy_dtype, endpoint=True)])
    return values[:count].reshape(shape)


def assert_same_bits(loaded, original) -> None:
    assert type(loaded) is type(original)
    assert loaded.dtype == original.dtype
    assert loaded.shape == original.shape
    assert loaded.requires_grad == original.requires_grad
    assert loaded.device == original.device
    host = lambda t: t._device.backend.to_host(t._data)  # noqa: E731
    assert np.ascontiguousarray(host(loaded)).tobytes() == np.ascontiguousarray(host(original)).tobytes()


# -- exact round trips ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(), (0,), (2, 0, 3), (5,), (3, 4)], ids=str)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_round_trip_is_bit_exact_for_every_dtype_and_shape(dtype, shape):
    tensor = minitorch.from_numpy(special_values(dtype, shape))
    if dtype.is_floating_point:
        tensor.requires_grad_(True)
    assert_same_bits(round_trip(tensor), tensor)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_non_contiguous_tensors_round_trip(dtype):
    base = minitorch.from_numpy(special_values(dtype, (4, 6)))
    views = {"transposed": base.t(), "sliced": base[1:3, ::2], "expanded": base[:1].expand(3, 6),
             "permuted": base.reshape(2, 2, 6).permute(2, 0, 1)}
    loaded = round_trip(views)
    for name, view in views.items():
        np.testing.assert_array_equal(loaded[name].numpy(), view.numpy(), err_msg=name)
        assert loaded[name].shape == view.shape and loaded[name].dtype == dtype


def test_parameters_and_requires_grad_are_kept():
    trained = nn.Parameter(minitorch.randn(3, 2))
    frozen = nn.Parameter(minitorch.randn(2), requires_grad=False)
    leaf = minitorch.randn(4, requires_grad=True)
    computed = leaf * 2  # a non-leaf: it loads as a leaf that requires grad, as in PyTorch
    loaded = round_trip({"trained": trained, "frozen": frozen, "leaf": leaf, "computed": computed})
    assert isinstance(loaded["trained"], nn.Parameter) and loaded["trained"].requires_grad
    assert isinstance(loaded["frozen"], nn.Parameter) and not loaded["frozen"].requires_grad
    assert type(loaded["leaf"]) is minitorch.Tensor and loaded["leaf"].requires_grad
    assert loaded["computed"].requires_grad and loaded["computed"].is_leaf
    np.testing.assert_array_equal(loaded["computed"].detach().numpy(), computed.detach().numpy())


def test_nested_containers_and_plain_values_round_trip():
    tensor = minitorch.arange(3)
    obj = {
        "none": None, "true": True, "false": False, "int": -(2**70), "float": 0.1, "nan": math.nan, "inf": -math.inf,
        "string": "héllo\n\"quoted\"", "list": [1, [2, [3, tensor]]], "tuple": (0.9, 0.999), "empty": ([], (), {}),
        "ordered": OrderedDict([("b", 1), ("a", 2)]), "size": minitorch.Size([2, 3]), "dtype": minitorch.float16,
        "device": minitorch.device("cuda:1"), "array": np.arange(4, dtype=np.int16),
        0: "integer key", 1.5: "float key", None: "None key", (1, "a"): "tuple key", True: "bool key",
    }
    loaded = round_trip(obj)
    assert list(loaded) == list(obj)
    for key, value in obj.items():
        got = loaded[key]
        if key == "list":
            assert got[:1] == [1] and got[1][0] == 2 and got[1][1][0] == 3
            assert minitorch.equal(got[1][1][1], tensor)
        elif key == "nan":
            assert math.isnan(got)
        elif key == "array":
            assert type(got) is np.ndarray and got.dtype == np.int16
            np.testing.assert_array_equal(got, value)
        else:
            assert got == value and type(got) is type(value), key
    assert type(loaded) is dict and type(loaded["ordered"]) is OrderedDict
    assert loaded["dtype"] is minitorch.float16 and isinstance(loaded["size"], minitorch.Size)


def test_model_state_dict_round_trip_through_a_path(tmp_path):
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
    path = tmp_path / "model.mt"
    minitorch.save(model.state_dict(), path)
    state = minitorch.load(str(path))
    assert type(state) is OrderedDict and list(state) == list(model.state_dict())
    copy = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
    copy.load_state_dict(state)
    x = minitorch.randn(3, 4)
    assert minitorch.equal(copy(x), model(x))
    with np.load(path, allow_pickle=False) as archive:  # the file is a NumPy .npz holding an index and .npy files
        assert "index.json" in archive.files and "data/0" in archive.files


def test_optimizer_state_dict_round_trip_resumes_training():
    def make():
        minitorch.manual_seed(0)
        model = nn.Linear(3, 2)
        return model, minitorch.optim.Adam(model.parameters(), lr=0.1, betas=(0.8, 0.9))

    def step(model, optimizer):
        optimizer.zero_grad()
        model(minitorch.ones(4, 3)).pow(2).sum().backward()
        optimizer.step()

    model, optimizer = make()
    for _ in range(3):
        step(model, optimizer)
    saved = round_trip({"model": model.state_dict(), "optimizer": optimizer.state_dict()})
    assert list(saved["optimizer"]["state"]) == [0, 1]  # integer keys come back as integers
    assert saved["optimizer"]["param_groups"][0]["betas"] == (0.8, 0.9)
    resumed, resumed_optimizer = make()
    resumed.load_state_dict(saved["model"])
    resumed_optimizer.load_state_dict(saved["optimizer"])
    for _ in range(2):
        step(model, optimizer)
        step(resumed, resumed_optimizer)
    for p, q in zip(model.parameters(), resumed.parameters()):
        assert minitorch.equal(p, q)


# -- sharing -------------------------------------------------------------------------------------------------
def test_the_same_tensor_saved_twice_loads_as_one_tensor():
    tensor = minitorch.randn(3)
    loaded = round_trip({"a": tensor, "b": [tensor]})
    assert loaded["a"] is loaded["b"][0]


def test_views_load_as_views_of_one_storage():
    base = minitorch.arange(12.0).reshape(3, 4)
    loaded = round_trip({"base": base, "row": base[1], "transposed": base.t(), "column": base[:, 2]})
    loaded["base"][1, 2] = 100.0  # write through one, read through the others
    assert loaded["row"][2].item() == 100.0
    assert loaded["transposed"][2, 1].item() == 100.0
    assert loaded["column"][1].item() == 100.0


def test_tied_weights_stay_tied():
    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Linear(4, 4, bias=False)
            self.decoder = nn.Linear(4, 4, bias=False)
            self.decoder.weight = self.encoder.weight

    state = round_trip(Tied().state_dict(keep_vars=True))
    assert state["encoder.weight"] is state["decoder.weight"]


# -- files and streams ---------------------------------------------------------------------------------------
class NonSeekable(io.RawIOBase):
    """A stream that can only be read forward (a pipe, a socket)."""

    def __init__(self, data: bytes):
        self.inner = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def readinto(self, buffer) -> int:
        chunk = self.inner.read(len(buffer))
        buffer[: len(chunk)] = chunk
        return len(chunk)


def test_paths_and_file_objects(tmp_path):
    tensor = minitorch.randn(2, 3)
    minitorch.save(tensor, tmp_path / "a.mt")  # pathlib.Path
    assert minitorch.equal(minitorch.load(tmp_path / "a.mt"), tensor)
    with open(tmp_path / "b.mt", "wb") as handle:
        minitorch.save(tensor, handle)
    with open(tmp_path / "b.mt", "rb") as handle:
        assert minitorch.equal(minitorch.load(handle), tensor)
    data = (tmp_path / "b.mt").read_bytes()
    assert minitorch.equal(minitorch.load(NonSeekable(data)), tensor)
    assert minitorch.equal(minitorch.load(io.BytesIO(data), weights_only=False), tensor)
    with pytest.raises(FileNotFoundError):
        minitorch.load(tmp_path / "missing.mt")


def test_unsupported_objects_are_refused_on_save():
    with pytest.raises(TypeError, match=r"cannot store the saved object\['model'\], an object of type .*Linear"):
        minitorch.save({"model": nn.Linear(2, 2)}, io.BytesIO())
    with pytest.raises(TypeError, match="dict keys must be"):
        minitorch.save({minitorch.device("cpu"): 1}, io.BytesIO())
    cyclic = [1]
    cyclic.append(cyclic)
    with pytest.raises(ValueError, match="contains itself"):
        minitorch.save(cyclic, io.BytesIO())
    with pytest.raises(ValueError, match="pickle_module must be None"):
        minitorch.save(1, io.BytesIO(), pickle_module=pickle)


# -- map_location --------------------------------------------------------------------------------------------
def saved_on_two_devices() -> bytes:
    buffer = io.BytesIO()
    state = {"on0": minitorch.arange(3.0, device="cuda:0"), "on1": minitorch.ones(2, 2, device="cuda:1"),
             "cpu": minitorch.zeros(2)}
    minitorch.save(state, buffer)
    return buffer.getvalue()


def devices_of(state) -> dict:
    return {key: str(value.device) for key, value in state.items()}


def test_map_location_none_restores_saved_devices(fake_cuda):
    state = minitorch.load(io.BytesIO(saved_on_two_devices()))
    assert devices_of(state) == {"on0": "cuda:0", "on1": "cuda:1", "cpu": "cpu"}
    assert state["on1"].tolist() == [[1.0, 1.0], [1.0, 1.0]]


@pytest.mark.parametrize(
    "map_location, expected",
    [
        ("cpu", {"on0": "cpu", "on1": "cpu", "cpu": "cpu"}),
        (minitorch.device("cuda", 1), {"on0": "cuda:1", "on1": "cuda:1", "cpu": "cuda:1"}),
        ("cuda", {"on0": "cuda:0", "on1": "cuda:0", "cpu": "cuda:0"}),
        ({"cuda:1": "cpu"}, {"on0": "cuda:0", "on1": "cpu", "cpu": "cpu"}),
        ({"cuda:0": "cuda:1", "cpu": "cuda:0"}, {"on0": "cuda:1", "on1": "cuda:1", "cpu": "cuda:0"}),
        (lambda storage, location: storage, {"on0": "cpu", "on1": "cpu", "cpu": "cpu"}),
        (lambda storage, location: storage.to("cuda:1") if location == "cpu" else None,
         {"on0": "cuda:0", "on1": "cuda:1", "cpu": "cuda:1"}),
    ],
    ids=["cpu", "device", "cuda", "dict", "dict2", "callable", "callable-or-None"],
)
def test_map_location_moves_storages(fake_cuda, map_location, expected):
    state = minitorch.load(io.BytesIO(saved_on_two_devices()), map_location=map_location)
    assert devices_of(state) == expected
    assert state["on0"].cpu().tolist() == [0.0, 1.0, 2.0]


def test_loading_onto_missing_cuda_fails_like_torch(fake_cuda):
    data = saved_on_two_devices()
    _device.register_backend("cuda", fake_cuda_backend(1))
    with pytest.raises(RuntimeError, match=r"on CUDA device 1 but torch.cuda.device_count\(\) is 1"):
        minitorch.load(io.BytesIO(data))
    _device.register_backend("cuda", fake_cuda_backend(0))
    with pytest.raises(RuntimeError, match=r"torch.cuda.is_available\(\) is False.*map_location=torch.device\('cpu'\)"):
        minitorch.load(io.BytesIO(data))
    assert devices_of(minitorch.load(io.BytesIO(data), map_location="cpu")) == {"on0": "cpu", "on1": "cpu",
                                                                                  "cpu": "cpu"}


def test_views_stay_views_on_the_target_device(fake_cuda):
    base = minitorch.arange(6.0).reshape(2, 3)
    loaded = round_trip([base, base.t()], map_location="cuda:1")
    loaded[0][0, 1] = 7.0
    assert loaded[1].device == minitorch.device("cuda:1") and loaded[1][1, 0].item() == 7.0


# -- hostile and broken files --------------------------------------------------------------------------------
class RunsCode:
    """Unpickling this runs a shell command: the classic malicious checkpoint."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (os.system, (f"touch '{self.marker}'",))


def check_payload_is_live(marker, unsafe_load) -> None:
    """The crafted file really runs code when loaded carelessly (so refusing it is meaningful)."""
    unsafe_load()
    assert marker.exists()
    marker.unlink()


def zip_with(entries: dict) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_a_malicious_pickle_is_refused_and_never_run(tmp_path):
    marker = tmp_path / "pwned"
    path = tmp_path / "model.pt"
    path.write_bytes(pickle.dumps({"weight": RunsCode(marker)}))
    check_payload_is_live(marker, lambda: pickle.loads(path.read_bytes()))
    for weights_only in (True, False):
        with pytest.raises(RuntimeError, match=rf"cannot read '{path}': it is a pickle.*never unpickles"):
            minitorch.load(path, weights_only=weights_only)
    assert not marker.exists()


def test_an_object_array_inside_the_archive_is_refused_and_never_run(tmp_path):
    marker = tmp_path / "pwned"
    payload = io.BytesIO()
    np.save(payload, np.array([RunsCode(marker)], dtype=object), allow_pickle=True)
    index = {"format": "minitorch.save", "version": 1,
             "storages": [{"file": "data/0.npy", "dtype": "float32", "size": 1, "device": "cpu"}],
             "tensors": [{"class": "Tensor", "storage": 0, "dtype": "float32", "shape": [1], "offset": 0,
                          "strides": [1], "requires_grad": False}],
             "object": {"kind": "tensor", "index": 0}}
    path = tmp_path / "evil.mt"
    path.write_bytes(zip_with({"index.json": json.dumps(index), "data/0.npy": payload.getvalue()}))
    check_payload_is_live(marker, lambda: np.load(path, allow_pickle=True)["data/0"])
    with pytest.raises(RuntimeError, match=rf"cannot read '{path}'.*Object arrays cannot be loaded"):
        minitorch.load(path)
    assert not marker.exists()


def test_a_torch_save_style_archive_is_refused_and_never_run(tmp_path):
    marker = tmp_path / "pwned"
    path = tmp_path / "torch_model.pt"
    path.write_bytes(zip_with({"archive/data.pkl": pickle.dumps(RunsCode(marker)), "archive/version": "3\n"}))
    with pytest.raises(RuntimeError, match=rf"cannot read '{path}': it was written by torch.save"):
        minitorch.load(path)
    assert not marker.exists()


def test_a_real_torch_save_file_is_refused_with_advice(torch, tmp_path):
    path = tmp_path / "real_torch.pt"
    torch.save(torch.nn.Linear(2, 2).state_dict(), path)
    with pytest.raises(RuntimeError, match="written by torch.save.*through NumPy arrays"):
        minitorch.load(path)


def good_file() -> bytes:
    buffer = io.BytesIO()
    minitorch.save({"weight": minitorch.arange(6.0).reshape(2, 3), "step": 3}, buffer)
    return buffer.getvalue()


def with_index(change) -> bytes:
    """A copy of ``good_file()`` whose index.json was edited by ``change(index)``."""
    with zipfile.ZipFile(io.BytesIO(good_file())) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    index = json.loads(entries["index.json"])
    change(index)
    entries["index.json"] = json.dumps(index)
    return zip_with(entries)


def set_in(path, value):
    def change(index):
        target = index
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


BROKEN_FILES = {
    "empty": (lambda: b"", "the file is empty"),
    "not a zip": (lambda: b"hello, this is text", "not a zip archive"),
    "npy": (lambda: _npy_bytes(), "single NumPy .npy array"),
    "truncated": (lambda: good_file()[: len(good_file()) // 2], "damaged"),
    "no index": (lambda: zip_with({"weights.npy": b""}), "no index.json"),
    "index not json": (lambda: zip_with({"index.json": b"{not json"}), "damaged"),
    "wrong format": (lambda: with_index(set_in(["format"], "other")), "does not name the format"),
    "future version": (lambda: with_index(set_in(["version"], 99)), "format version 99"),
    "view out of bounds": (lambda: with_index(set_in(["tensors", 0, "offset"], 4)), "reaches outside its storage"),
    "offset past end": (lambda: with_index(set_in(["tensors", 0, "offset"], 7)), "outside its storage"),
    "negative stride": (lambda: with_index(set_in(["tensors", 0, "strides"], [-3, 1])), "reaches outside"),
    "huge shape": (lambda: with_index(set_in(["tensors", 0, "shape"], [2, 10**9])), "reaches outside"),
    "huge broadcast": (lambda: with_index(set_in(["tensors", 0, "strides"], [0, 10**30])), "too large"),
    "bad dtype": (lambda: with_index(set_in(["storages", 0, "dtype"], "object")), "unknown dtype"),
    "dtype mismatch": (lambda: with_index(set_in(["storages", 0, "dtype"], "int32")), "holds float32"),
    "missing file": (lambda: with_index(set_in(["storages", 0, "file"], "data/9.npy")), "is missing"),
    "missing tensor": (lambda: with_index(set_in(["object", "items", 0, 1, "index"], 5)), "missing tensor 5"),
    "unknown kind": (lambda: with_index(set_in(["object", "kind"], "module")), "unknown node kind 'module'"),
}


def _npy_bytes() -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.zeros(3))
    return buffer.getvalue()


@pytest.mark.parametrize("case", list(BROKEN_FILES))
def test_broken_files_raise_a_clear_error_naming_the_file(tmp_path, case):
    make, reason = BROKEN_FILES[case]
    path = tmp_path / "broken.mt"
    path.write_bytes(make())
    with pytest.raises(RuntimeError) as info:
        minitorch.load(path)
    message = str(info.value)
    assert message.startswith(f"minitorch.load cannot read '{path}': ")
    assert reason in message
    with pytest.raises(RuntimeError, match="cannot read '<BytesIO>'"):  # file objects are named as well as possible
        minitorch.load(io.BytesIO(make()))


# -- weights from PyTorch ------------------------------------------------------------------------------------
def torch_to_minitorch_through_a_file(torch_model, model, tmp_path):
    """The documented route: PyTorch state dict -> NumPy -> minitorch.save -> minitorch.load -> load_state_dict."""
    state = {k: minitorch.from_numpy(v.detach().cpu().numpy()) for k, v in torch_model.state_dict().items()}
    minitorch.save(state, tmp_path / "weights.mt")
    model.load_state_dict(minitorch.load(tmp_path / "weights.mt"))


def assert_same_outputs(torch, torch_model, model, array, tolerance=1e-12):
    torch_model.eval()
    model.eval()
    with torch.no_grad():
        expected = torch_model(torch.from_numpy(array))
    got = model(minitorch.from_numpy(array))
    if isinstance(expected, tuple):  # an RNN: (output, states)
        expected, got = expected[0], got[0]
    np.testing.assert_allclose(got.detach().numpy(), expected.numpy(), rtol=tolerance, atol=tolerance)


def test_pytorch_mlp_weights_load_and_give_the_same_outputs(torch, tmp_path):
    torch.manual_seed(0)
    theirs = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Linear(16, 8), torch.nn.Tanh(),
                                 torch.nn.Linear(8, 3)).double()
    ours = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 8), nn.Tanh(), nn.Linear(8, 3)).double()
    torch_to_minitorch_through_a_file(theirs, ours, tmp_path)
    assert_same_outputs(torch, theirs, ours, np.random.default_rng(0).standard_normal((5, 6)))
    # and back: minitorch -> PyTorch through NumPy
    ours[0].weight.data = ours[0].weight.data * 2
    theirs.load_state_dict({k: torch.from_numpy(v.numpy()) for k, v in ours.state_dict().items()})
    assert_same_outputs(torch, theirs, ours, np.random.default_rng(1).standard_normal((5, 6)))


def build_cnn(lib):
    nn_ = lib.nn
    return nn_.Sequential(
        nn_.Conv2d(2, 4, 3, padding=1), nn_.ReLU(), nn_.MaxPool2d(2), nn_.Conv2d(4, 6, 3), nn_.ReLU(), nn_.Flatten(),
        nn_.Linear(6 * 2 * 2, 5),
    ).double()


def build_lstm(lib):
    class Model(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = lib.nn.LSTM(3, 5, num_layers=2, batch_first=True, bidirectional=True)
            self.head = lib.nn.Linear(10, 2)

        def forward(self, x):
            output, (hidden, cell) = self.lstm(x)
            return self.head(output[:, -1]) + hidden.sum(0).sum(1, keepdim=True) + cell.mean()

    return Model().double()


def build_transformer_encoder(lib):
    layer = lib.nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True)
    return lib.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False).double()


ARCHITECTURES = {
    "cnn": (build_cnn, (3, 2, 8, 8)),
    "lstm": (build_lstm, (4, 6, 3)),
    "transformer_encoder": (build_transformer_encoder, (3, 5, 8)),
}


@pytest.mark.parametrize("name", list(ARCHITECTURES))
def test_pytorch_weights_load_into_the_same_architecture(torch, tmp_path, name):
    build, input_shape = ARCHITECTURES[name]
    torch.manual_seed(0)
    theirs, ours = build(torch), build(minitorch)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    torch_to_minitorch_through_a_file(theirs, ours, tmp_path)
    assert_same_outputs(torch, theirs, ours, np.random.default_rng(0).standard_normal(input_shape), tolerance=1e-10)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_corrupted_bytes_load_correctly_or_raise_runtime_error(data):
    original = good_file()
    damaged = bytearray(original)
    for _ in range(data.draw(st.integers(1, 4), label="flips")):
        position = data.draw(st.integers(0, len(damaged) - 1), label="position")
        damaged[position] = data.draw(st.integers(0, 255), label="byte")
    cut = data.draw(st.integers(0, len(damaged)), label="length")
    try:
        loaded = minitorch.load(io.BytesIO(bytes(damaged[:cut])))
    except RuntimeError as error:
        assert str(error).startswith("minitorch.load cannot read '<BytesIO>': ")
    else:  # the damage missed everything that matters (zip comments, unused header fields)
        assert loaded["step"] == 3 and loaded["weight"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


def test_big_endian_storages_are_read_in_native_order():
    with zipfile.ZipFile(io.BytesIO(good_file())) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    swapped = io.BytesIO()
    np.save(swapped, np.arange(6.0, dtype=">f4"))
    entries["data/0.npy"] = swapped.getvalue()
    loaded = minitorch.load(io.BytesIO(zip_with(entries)))
    assert loaded["weight"].dtype == minitorch.float32 and loaded["weight"].tolist() == [[0, 1, 2], [3, 4, 5]]


def test_map_location_must_only_move_storages():
    data = good_file()
    with pytest.raises(RuntimeError, match="a storage of 1 float32 elements for one of 6 float32"):
        minitorch.load(io.BytesIO(data), map_location=lambda storage, location: storage[:1])
    with pytest.raises(TypeError, match="map_location should be a string"):
        minitorch.load(io.BytesIO(data), map_location=3)
