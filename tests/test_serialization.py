"""minitorch.save / minitorch.load: exact round trips, sharing, map_location, hostile files, the old format.

The format is PyTorch's: files cross both ways (minitorch.save -> torch.load, torch.save ->
minitorch.load) for every dtype, views, parameters, optimizer states and the course's models.
safetensors files are tested in tests/utils/test_safetensors.py.

Devices: the ``fake_cuda`` fixture stands a NumPy-backed ``cuda`` backend with two
"GPUs" in for real ones (as tests/test_device.py does), so loading onto another device is
tested on any machine.

Hostile files: each crafted file carries a payload that would create a marker file if
anything in it were executed; the tests first prove the payload works (by unpickling it on
purpose), then check that ``minitorch.load`` refuses the file and the marker never appears.

The first format (a zip of ``.npy`` files and a JSON index, which the shipped weights use) is
still read: ``old_format_file`` writes one with ``_npz_serialization.save_npz``.
"""

from __future__ import annotations

import io
import json
import math
import os
import pickle
import struct
import subprocess
import warnings
import zipfile
from collections import OrderedDict

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import minitorch
from minitorch import _device, _npz_serialization, nn
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


def plain_values() -> dict:
    """Every kind of non-tensor value a checkpoint holds (and PyTorch's allow-list accepts)."""
    return {
        "none": None, "true": True, "false": False, "int": -(2**70), "float": 0.1, "nan": math.nan, "inf": -math.inf,
        "string": "héllo\n\"quoted\"", "list": [1, [2, [3]]], "tuple": (0.9, 0.999), "empty": ([], (), {}),
        "ordered": OrderedDict([("b", 1), ("a", 2)]), "bytes": b"\x00\xff", "set": {1, 2}, "complex": 1 - 2j,
        0: "integer key", 1.5: "float key", None: "None key", (1, "a"): "tuple key", True: "bool key",
    }


def assert_plain_values_equal(loaded, expected) -> None:
    assert list(loaded) == list(expected)
    for key, value in expected.items():
        got = loaded[key]
        if key == "nan":
            assert math.isnan(got)
        else:
            assert got == value and type(got) is type(value), key


def test_nested_containers_and_plain_values_round_trip():
    tensor = minitorch.arange(3)
    obj = {**plain_values(), "nested": [1, [2, [3, tensor]]], "size": minitorch.Size([2, 3]),
           "dtype": minitorch.float16, "device": minitorch.device("cuda:1")}
    loaded = round_trip(obj)
    assert_plain_values_equal({k: v for k, v in loaded.items() if k in plain_values()}, plain_values())
    assert loaded["nested"][:1] == [1] and loaded["nested"][1][0] == 2 and loaded["nested"][1][1][0] == 3
    assert minitorch.equal(loaded["nested"][1][1][1], tensor)
    assert type(loaded) is dict and type(loaded["ordered"]) is OrderedDict
    assert loaded["dtype"] is minitorch.float16 and type(loaded["size"]) is minitorch.Size
    assert loaded["size"] == (2, 3) and loaded["device"] == minitorch.device("cuda", 1)


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
    with zipfile.ZipFile(path) as archive:  # torch.save's layout, in a folder named after the file
        assert {"model/data.pkl", "model/byteorder", "model/version", "model/data/0"} <= set(archive.namelist())


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


class WriteOnlyPipe(io.RawIOBase):
    """A stream that can only be written forward (a pipe, a socket)."""

    def __init__(self):
        self.chunks = []

    def writable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def write(self, data) -> int:
        self.chunks.append(bytes(data))
        return len(data)


def test_saving_to_a_stream_that_cannot_seek(torch):
    pipe = WriteOnlyPipe()
    minitorch.save(GOOD_CONTENTS, pipe)
    data = b"".join(pipe.chunks)
    assert minitorch.load(io.BytesIO(data))["weight"].tolist() == [[0, 1, 2], [3, 4, 5]]
    assert torch.load(io.BytesIO(data))["weight"].tolist() == [[0, 1, 2], [3, 4, 5]]


def test_a_whole_module_is_pickled_and_needs_weights_only_false():
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    buffer = io.BytesIO()
    minitorch.save(model, buffer)
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError, match=r"(?s)Weights only load failed.*Unsupported global: GLOBAL "
                       r"minitorch\.nn\.modules\.container\.Sequential was not an allowed global by default"):
        minitorch.load(buffer)
    buffer.seek(0)
    loaded = minitorch.load(buffer, weights_only=False)
    assert type(loaded) is nn.Sequential and isinstance(loaded[0].weight, nn.Parameter)
    x = minitorch.randn(5, 3)
    assert minitorch.equal(loaded(x), model(x))


def test_numpy_arrays_are_pickled_by_numpy_and_need_weights_only_false():
    array = np.arange(4, dtype=np.int16)
    buffer = io.BytesIO()
    minitorch.save({"array": array}, buffer)
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Unsupported global: GLOBAL numpy"):
        minitorch.load(buffer)
    buffer.seek(0)
    loaded = minitorch.load(buffer, weights_only=False)["array"]
    assert type(loaded) is np.ndarray and loaded.dtype == np.int16 and loaded.tolist() == [0, 1, 2, 3]


def test_what_pickle_cannot_store_is_refused_on_save():
    with pytest.raises((pickle.PicklingError, AttributeError), match="lambda"):
        minitorch.save({"function": lambda x: x}, io.BytesIO())
    with pytest.raises(ValueError, match="pickle_module must be None"):
        minitorch.save(1, io.BytesIO(), pickle_module=json)
    with pytest.raises(ValueError, match="legacy format"):
        minitorch.save(1, io.BytesIO(), _use_new_zipfile_serialization=False)


def test_cycles_and_shared_containers_are_kept():
    cyclic = [1]
    cyclic.append(cyclic)
    shared = {"a": 1}
    loaded = round_trip({"cyclic": cyclic, "x": shared, "y": shared})
    assert loaded["cyclic"][1] is loaded["cyclic"] and loaded["x"] is loaded["y"]


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


def test_a_bare_malicious_pickle_is_refused_and_never_run(tmp_path):
    marker = tmp_path / "pwned"
    path = tmp_path / "model.pt"
    path.write_bytes(pickle.dumps({"weight": RunsCode(marker)}, protocol=2))
    check_payload_is_live(marker, lambda: pickle.loads(path.read_bytes()))
    for weights_only in (True, False):  # not a zip: neither a checkpoint of today's format nor minitorch's old one
        with pytest.raises(RuntimeError, match=rf"cannot read '{path}': it is a bare pickle.*never unpickles"):
            minitorch.load(path, weights_only=weights_only)
    assert not marker.exists()


def test_an_object_array_inside_an_old_format_archive_is_refused_and_never_run(tmp_path):
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
    for weights_only in (True, False):  # the old format never unpickles, whatever is asked
        with pytest.raises(RuntimeError, match=rf"cannot read '{path}'.*Object arrays cannot be loaded"):
            minitorch.load(path, weights_only=weights_only)
    assert not marker.exists()


def torch_style_archive(data_pkl: bytes, storages: dict | None = None, folder: str = "archive", **records) -> bytes:
    """A zip laid out as torch.save lays it out, holding the given pickle and storage records."""
    entries = {f"{folder}/data.pkl": data_pkl, f"{folder}/byteorder": b"little"}
    entries.update({f"{folder}/data/{key}": data for key, data in (storages or {}).items()})
    entries.update({f"{folder}/{name}": data for name, data in records.items()})
    entries[f"{folder}/version"] = b"3\n"
    return zip_with(entries)


def global_call(module: str, name: str, *args) -> bytes:
    """A protocol-2 pickle that calls ``module.name(*args)`` (string arguments), written instruction by instruction."""
    text = b"".join(b"X" + struct.pack("<I", len(a.encode())) + a.encode() for a in args)
    return b"\x80\x02c" + f"{module}\n{name}\n".encode() + b"(" + text + b"tR."


def stack_global_call(module: str, name: str, argument: str) -> bytes:
    """The same call through protocol 4's STACK_GLOBAL (the module and name taken from the stack)."""
    strings = b"".join(b"\x8c" + bytes([len(t)]) + t.encode() for t in (module, name))
    return b"\x80\x04" + strings + b"\x93\x8c" + bytes([len(argument)]) + argument.encode() + b"\x85R."


def hostile_pickles(marker) -> dict:
    """Pickles that create ``marker`` when unpickled carelessly, and the refusal expected of each."""
    command = f"touch '{marker}'"
    code = f"__import__('os').system({command!r})"
    return {
        "pickled os.system": (pickle.dumps({"weight": RunsCode(marker)}, protocol=2),
                              "Trying to load unsupported GLOBAL posix.system whose module posix is blocked."),
        "os.system": (global_call("os", "system", command),
                      "Trying to load unsupported GLOBAL os.system whose module os is blocked."),
        "eval": (global_call("builtins", "eval", code),
                 "Unsupported global: GLOBAL eval was not an allowed global by default. Please use "
                 "`torch.serialization.add_safe_globals([eval])`"),
        # protocol 2 writes subprocess.call under its Python 2 name, commands.call
        "subprocess": (pickle.dumps(Subprocess(marker), protocol=2), "Unsupported global: GLOBAL commands.call"),
        "STACK_GLOBAL exec": (stack_global_call("builtins", "exec", code), "Unsupported global: GLOBAL exec"),
        "INST": (b"(" + global_call("", "", command)[len(b"\x80\x02c\n\n("):-3] + b"ios\nsystem\n.",
                 "Unsupported operand 105"),
    }


class Subprocess:
    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (subprocess.call, (["touch", self.marker],))


@pytest.mark.parametrize("case", list(hostile_pickles("marker")))
def test_a_checkpoint_that_runs_code_is_refused_like_torch_and_runs_nothing(torch, tmp_path, case):
    marker = tmp_path / "pwned"
    data_pkl, refusal = hostile_pickles(marker)[case]
    check_payload_is_live(marker, lambda: pickle.loads(data_pkl))
    path = tmp_path / "model.pt"
    path.write_bytes(torch_style_archive(data_pkl))
    with pytest.raises(pickle.UnpicklingError) as refused:
        minitorch.load(path)
    assert str(refused.value).startswith("Weights only load failed.") and refusal in str(refused.value)
    assert not marker.exists()
    with pytest.raises(pickle.UnpicklingError) as refused_by_torch, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch warns that protocol 4 is not its own
        torch.load(path)
    if case != "STACK_GLOBAL exec":  # PyTorch's unpickler knows protocol 2 only, and refuses STACK_GLOBAL itself
        assert str(refused.value) == str(refused_by_torch.value)  # PyTorch's words, exactly
    assert not marker.exists()


def test_with_weights_only_false_the_file_runs_as_pytorch_documents(tmp_path):
    marker = tmp_path / "pwned"
    path = tmp_path / "model.pt"
    path.write_bytes(torch_style_archive(pickle.dumps({"weight": RunsCode(marker)}, protocol=2)))
    assert minitorch.load(path, weights_only=False) == {"weight": 0}  # os.system's exit status
    assert marker.exists()  # the user asked for it: "do it only if you got the file from a trusted source"


def minimal_tensor_pickle(storage_numel: int, offset: int = 0, size=(6,), stride=(1,), storage_id=None) -> bytes:
    """The pickle of one float32 tensor, as torch.save writes it, with the numbers under the test's control."""
    storage_id = storage_id or ("storage", StorageName("torch", "FloatStorage"), "0", "cpu", storage_numel)
    return RawPickler.dumps(Call(Name("torch._utils", "_rebuild_tensor_v2"),
                                 (Persistent(storage_id), offset, tuple(size), tuple(stride), False, OrderedDict())))


class Name:
    """A global (module.name) written into a test pickle without importing it."""

    def __init__(self, module, name):
        self.module, self.name = module, name


StorageName = Name


class Call:
    def __init__(self, function, args):
        self.function, self.args = function, args


class Persistent:
    def __init__(self, pid):
        self.pid = pid


class RawPickler(pickle._Pickler):
    """Writes test pickles naming arbitrary globals (``Name``), calls (``Call``) and persistent ids."""

    dispatch = pickle._Pickler.dispatch.copy()

    def persistent_id(self, obj):
        return obj.pid if type(obj) is Persistent else None

    def save_name(self, obj):
        self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode())

    def save_call(self, obj):
        self.save(obj.function)
        self.save(obj.args)
        self.write(pickle.REDUCE)

    dispatch[Name] = save_name
    dispatch[Call] = save_call

    @classmethod
    def dumps(cls, obj) -> bytes:
        buffer = io.BytesIO()
        cls(buffer, protocol=2).dump(obj)
        return buffer.getvalue()


SIX_FLOATS = np.arange(6, dtype=np.float32).tobytes()


def test_a_well_formed_hand_written_checkpoint_loads():
    loaded = minitorch.load(io.BytesIO(torch_style_archive(minimal_tensor_pickle(6), {"0": SIX_FLOATS})))
    assert loaded.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


HOSTILE_ARCHIVES = {
    "storage larger than its record": (
        lambda: torch_style_archive(minimal_tensor_pickle(10), {"0": SIX_FLOATS}),
        "storage '0' should hold 10 float32 elements (40 bytes), but its record 'archive/data/0' has 24 bytes"),
    "storage of 2**40 elements": (
        lambda: torch_style_archive(minimal_tensor_pickle(2**40), {"0": SIX_FLOATS}), "should hold 1099511627776"),
    "storage smaller than its record": (
        lambda: torch_style_archive(minimal_tensor_pickle(2), {"0": SIX_FLOATS}), "should hold 2 float32"),
    "negative storage size": (
        lambda: torch_style_archive(minimal_tensor_pickle(-1), {"0": SIX_FLOATS}), "invalid size -1"),
    "view past the end": (
        lambda: torch_style_archive(minimal_tensor_pickle(6, offset=4, size=(3,)), {"0": SIX_FLOATS}),
        "view (offset 4, size (3,), stride (1,)) reaches outside its storage '0' of 6 elements"),
    "huge stride": (
        lambda: torch_style_archive(minimal_tensor_pickle(6, size=(2, 2), stride=(2**61, 1)), {"0": SIX_FLOATS}),
        "reaches outside"),
    "negative size": (
        lambda: torch_style_archive(minimal_tensor_pickle(6, size=(-1,)), {"0": SIX_FLOATS}), "invalid view"),
    "missing storage record": (
        lambda: torch_style_archive(minimal_tensor_pickle(6)), "its record 'archive/data/0' is missing"),
    "storage type that is no storage": (
        lambda: torch_style_archive(minimal_tensor_pickle(6, storage_id=("storage", "float", "0", "cpu", 6)),
                                    {"0": SIX_FLOATS}), "a storage's type must be a torch storage class"),
    "persistent id that is no storage": (
        lambda: torch_style_archive(minimal_tensor_pickle(6, storage_id=("module", "os", "0", "cpu", 6))),
        "Only persistent_load of storage is allowed"),
    "unknown storage location": (
        lambda: torch_style_archive(minimal_tensor_pickle(6, storage_id=(
            "storage", StorageName("torch", "FloatStorage"), "0", "nowhere:0", 6)), {"0": SIX_FLOATS}),
        "storage '0' was saved from an unknown device 'nowhere:0'"),
    "allowed function, bad arguments": (
        lambda: torch_style_archive(RawPickler.dumps(Call(Name("torch", "device"), ("nowhere",)))),
        "device('nowhere',) failed: RuntimeError"),
    "unknown byte order": (
        lambda: torch_style_archive(minimal_tensor_pickle(6), {"0": SIX_FLOATS}, byteorder=b"middle"),
        "Unknown endianness type: middle"),
    "TorchScript archive": (
        lambda: torch_style_archive(minimal_tensor_pickle(6), {"0": SIX_FLOATS}, **{"constants.pkl": b""}),
        "TorchScript archive"),
    "zip without data.pkl": (lambda: zip_with({"weights.npy": b""}), "neither torch.save nor minitorch.save"),
    "truncated": (lambda: good_file()[: len(good_file()) // 2], "damaged"),
    "truncated pickle": (
        lambda: torch_style_archive(minimal_tensor_pickle(6)[:-9], {"0": SIX_FLOATS}), "damaged"),
    "bytearray(10**12)": (
        lambda: torch_style_archive(RawPickler.dumps(Call(Name("builtins", "bytearray"), (10**12,)))),
        "bytearray is allowed only from text or bytes"),
    "BUILD on a dtype": (
        lambda: torch_style_archive(RawPickler.dumps(Build(Name("torch", "float32"), (None, {"name": "float64"})))),
        "Can only build Tensor, Parameter, OrderedDict"),
    "BUILD on a device": (
        lambda: torch_style_archive(RawPickler.dumps(Build(Call(Name("torch", "device"), ("cpu",)),
                                                           (None, {"type": "cuda"})))), "Can only build"),
    "APPEND to a tensor": (
        lambda: torch_style_archive(minimal_tensor_pickle(6)[:-1] + b"K\x01a.", {"0": SIX_FLOATS}),
        "Can only append to lists"),
    "complex64": (
        lambda: torch_style_archive(minimal_tensor_pickle(6, storage_id=(
            "storage", StorageName("torch", "ComplexFloatStorage"), "0", "cpu", 6)), {"0": SIX_FLOATS}),
        "torch.ComplexFloatStorage, whose dtype minitorch does not have"),
}


class Build:
    def __init__(self, target, state):
        self.target, self.state = target, state


def _save_build(pickler, obj):
    pickler.save(obj.target)
    pickler.save(obj.state)
    pickler.write(pickle.BUILD)


RawPickler.dispatch[Build] = _save_build


@pytest.mark.parametrize("case", list(HOSTILE_ARCHIVES))
def test_hostile_and_broken_checkpoints_raise_a_clear_error_and_run_nothing(tmp_path, case):
    make, reason = HOSTILE_ARCHIVES[case]
    path = tmp_path / "hostile.pt"
    path.write_bytes(make())
    with pytest.raises((RuntimeError, pickle.UnpicklingError)) as info:
        minitorch.load(path)
    message = str(info.value)
    assert reason in message
    if isinstance(info.value, RuntimeError):
        assert message.startswith(f"minitorch.load cannot read '{path}': ")
    assert minitorch.float32.name == "float32" and minitorch.device("cpu").type == "cpu"


def test_a_zip_bomb_is_refused_before_it_expands(tmp_path):
    path = tmp_path / "bomb.pt"
    path.write_bytes(zip_bomb(minimal_tensor_pickle(2**24), 64 << 20))
    assert path.stat().st_size < 200_000
    with pytest.raises(RuntimeError, match=r"'archive/data/0' would expand from \d+ to 67108864 bytes: a zip bomb"):
        minitorch.load(path)


def zip_bomb(data_pkl: bytes, expanded_bytes: int) -> bytes:
    """A torch.save-like archive whose storage record is ``expanded_bytes`` zeros, deflated to a few kilobytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("archive/data.pkl", data_pkl)
        info = zipfile.ZipInfo("archive/data/0")
        info.compress_type = zipfile.ZIP_DEFLATED
        with archive.open(info, "w", force_zip64=True) as member:
            chunk = bytes(1 << 20)
            for _ in range(expanded_bytes >> 20):
                member.write(chunk)
    return buffer.getvalue()


GOOD_CONTENTS = {"weight": minitorch.arange(6.0).reshape(2, 3), "step": 3}


def good_file() -> bytes:
    buffer = io.BytesIO()
    minitorch.save(GOOD_CONTENTS, buffer)
    return buffer.getvalue()


def old_format_file() -> bytes:
    """The same contents in minitorch's first format (a zip of .npy files and a JSON index)."""
    buffer = io.BytesIO()
    _npz_serialization.save_npz(GOOD_CONTENTS, buffer)
    return buffer.getvalue()


def test_the_old_format_is_still_read():
    data = old_format_file()
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert "index.json" in archive.namelist()
    loaded = minitorch.load(io.BytesIO(data))
    assert loaded["step"] == 3 and minitorch.equal(loaded["weight"], GOOD_CONTENTS["weight"])


def with_index(change) -> bytes:
    """A copy of ``old_format_file()`` whose index.json was edited by ``change(index)``."""
    with zipfile.ZipFile(io.BytesIO(old_format_file())) as archive:
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
    "truncated": (lambda: old_format_file()[: len(old_format_file()) // 2], "damaged"),
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
def torch_to_minitorch_through_a_file(torch, torch_model, model, tmp_path):
    """torch.save(state_dict) -> minitorch.load -> load_state_dict."""
    torch.save(torch_model.state_dict(), tmp_path / "weights.pt")
    model.load_state_dict(minitorch.load(tmp_path / "weights.pt"))


def minitorch_to_torch_through_a_file(torch, model, torch_model, tmp_path):
    """minitorch.save(state_dict) -> torch.load (weights_only) -> load_state_dict."""
    minitorch.save(model.state_dict(), tmp_path / "weights.pt")
    torch_model.load_state_dict(torch.load(tmp_path / "weights.pt"))


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
    torch_to_minitorch_through_a_file(torch, theirs, ours, tmp_path)
    assert_same_outputs(torch, theirs, ours, np.random.default_rng(0).standard_normal((5, 6)))
    # and back: minitorch -> PyTorch
    ours[0].weight.data = ours[0].weight.data * 2
    minitorch_to_torch_through_a_file(torch, ours, theirs, tmp_path)
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
    torch_to_minitorch_through_a_file(torch, theirs, ours, tmp_path)
    assert_same_outputs(torch, theirs, ours, np.random.default_rng(0).standard_normal(input_shape), tolerance=1e-10)
    again = build(torch)
    minitorch_to_torch_through_a_file(torch, ours, again, tmp_path)
    for key, value in theirs.state_dict().items():
        assert torch.equal(again.state_dict()[key], value), key


@pytest.mark.parametrize("make", [good_file, old_format_file], ids=["torch format", "old format"])
@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_corrupted_bytes_load_correctly_or_raise_a_clear_error(make, data):
    original = make()
    damaged = bytearray(original)
    for _ in range(data.draw(st.integers(1, 4), label="flips")):
        position = data.draw(st.integers(0, len(damaged) - 1), label="position")
        damaged[position] = data.draw(st.integers(0, 255), label="byte")
    cut = data.draw(st.integers(0, len(damaged)), label="length")
    try:
        loaded = minitorch.load(io.BytesIO(bytes(damaged[:cut])))
    except RuntimeError as error:
        assert str(error).startswith("minitorch.load cannot read '<BytesIO>': ")
    except pickle.UnpicklingError as error:  # a damaged name in the pickle is refused as any unknown name is
        assert str(error).startswith("Weights only load failed.")
    else:  # the damage missed everything that matters (padding, zip comments, unused header fields)
        assert loaded["step"] == 3 and loaded["weight"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_a_damaged_pickle_with_a_valid_checksum_loads_correctly_or_raises_a_clear_error(data):
    """The zip's checksums catch random damage; this damages data.pkl behind them, to exercise the unpickler."""
    with zipfile.ZipFile(io.BytesIO(good_file())) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    pickled = bytearray(entries["archive/data.pkl"])
    for _ in range(data.draw(st.integers(1, 4), label="flips")):
        position = data.draw(st.integers(0, len(pickled) - 1), label="position")
        pickled[position] = data.draw(st.integers(0, 255), label="byte")
    cut = data.draw(st.integers(0, len(pickled)), label="length")
    entries["archive/data.pkl"] = bytes(pickled[:cut])
    try:
        loaded = minitorch.load(io.BytesIO(zip_with(entries)))
    except RuntimeError as error:
        assert str(error).startswith("minitorch.load cannot read '<BytesIO>': ")
    except pickle.UnpicklingError as error:
        assert str(error).startswith("Weights only load failed.")
    else:  # still a valid pickle: whatever it holds was built from allowed names only
        assert isinstance(loaded, (dict, list, tuple, int, float, str, bytes, type(None), minitorch.Tensor))
    assert minitorch.float32.name == "float32"


def test_big_endian_storages_are_read_in_native_order():
    with zipfile.ZipFile(io.BytesIO(old_format_file())) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    swapped = io.BytesIO()
    np.save(swapped, np.arange(6.0, dtype=">f4"))
    entries["data/0.npy"] = swapped.getvalue()
    loaded = minitorch.load(io.BytesIO(zip_with(entries)))
    assert loaded["weight"].dtype == minitorch.float32 and loaded["weight"].tolist() == [[0, 1, 2], [3, 4, 5]]
    # PyTorch's format records the byte order of its storages in "byteorder"
    big = torch_style_archive(minimal_tensor_pickle(6), {"0": np.arange(6, dtype=">f4").tobytes()}, byteorder=b"big")
    assert minitorch.load(io.BytesIO(big)).tolist() == [0, 1, 2, 3, 4, 5]


def test_map_location_must_only_move_storages():
    data = good_file()
    with pytest.raises(RuntimeError, match="a storage of 1 float32 elements for one of 6 float32"):
        minitorch.load(io.BytesIO(data), map_location=lambda storage, location: storage[:1])
    with pytest.raises(TypeError, match="map_location should be a string"):
        minitorch.load(io.BytesIO(data), map_location=3)


# -- crossing between minitorch and PyTorch --------------------------------------------------------------------
TORCH_DTYPE_NAMES = {dtype: dtype.name for dtype in ALL_DTYPES}


def torch_bits(tensor) -> bytes:
    return tensor.detach().contiguous().numpy().tobytes()


@pytest.mark.parametrize("shape", [(), (0,), (2, 0, 3), (5,), (3, 4)], ids=str)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_torch_load_reads_minitorch_save_bit_exact(torch, tmp_path, dtype, shape):
    tensor = minitorch.from_numpy(special_values(dtype, shape))
    if dtype.is_floating_point:
        tensor.requires_grad_(True)
    minitorch.save({"tensor": tensor}, tmp_path / "from_minitorch.pt")
    loaded = torch.load(tmp_path / "from_minitorch.pt")["tensor"]  # PyTorch's default: weights_only=True
    assert loaded.dtype == getattr(torch, dtype.name) and tuple(loaded.shape) == shape
    assert loaded.requires_grad == dtype.is_floating_point and loaded.is_leaf
    assert torch_bits(loaded) == np.ascontiguousarray(tensor.detach().numpy()).tobytes()


@pytest.mark.parametrize("shape", [(), (0,), (2, 0, 3), (5,), (3, 4)], ids=str)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_minitorch_load_reads_torch_save_bit_exact(torch, tmp_path, dtype, shape):
    original = torch.from_numpy(special_values(dtype, shape).copy())
    if dtype.is_floating_point:
        original.requires_grad_(True)
    torch.save({"tensor": original}, tmp_path / "from_torch.pt")
    loaded = minitorch.load(tmp_path / "from_torch.pt")["tensor"]
    assert type(loaded) is minitorch.Tensor and loaded.dtype is dtype and loaded.shape == shape
    assert loaded.requires_grad == dtype.is_floating_point and loaded.is_leaf
    assert np.ascontiguousarray(loaded.detach().numpy()).tobytes() == torch_bits(original)


def storage_of(torch_tensor) -> int:
    return torch_tensor.untyped_storage().data_ptr()


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_views_cross_to_torch_as_views_of_one_storage(torch, tmp_path, dtype):
    base = minitorch.from_numpy(special_values(dtype, (4, 6)))
    views = {"base": base, "transposed": base.t(), "sliced": base[1:3, ::2], "expanded": base[:1].expand(3, 6),
             "permuted": base.reshape(2, 2, 6).permute(2, 0, 1), "row": base[2]}
    minitorch.save(views, tmp_path / "views.pt")
    loaded = torch.load(tmp_path / "views.pt")
    for name, view in views.items():
        np.testing.assert_array_equal(loaded[name].numpy(), view.numpy(), err_msg=name)
        assert storage_of(loaded[name]) == storage_of(loaded["base"]), name  # one storage, as saved
    assert loaded["transposed"].stride() == (1, 6) and loaded["row"].storage_offset() == 12
    assert loaded["expanded"].stride() == (0, 1)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_views_cross_from_torch_as_views_of_one_storage(torch, tmp_path, dtype):
    base = torch.from_numpy(special_values(dtype, (4, 6)).copy())
    views = {"base": base, "transposed": base.t(), "sliced": base[1:3, ::2], "expanded": base[:1].expand(3, 6),
             "narrowed": base.narrow(1, 2, 3), "row": base[2], "diagonal": base.diagonal()}
    torch.save(views, tmp_path / "views.pt")
    loaded = minitorch.load(tmp_path / "views.pt")
    for name, view in views.items():
        np.testing.assert_array_equal(loaded[name].numpy(), view.numpy(), err_msg=name)
    if dtype.is_floating_point or dtype is not minitorch.bool:
        loaded["base"][2, 3] = 1  # written through the base, seen through every view of that element
        assert loaded["row"][3].item() == 1 and loaded["transposed"][3, 2].item() == 1
        assert loaded["narrowed"][2, 1].item() == 1 and loaded["sliced"][1, 0].item() == loaded["base"][2, 0].item()


def test_plain_values_cross_both_ways(torch, tmp_path):
    minitorch.save({**plain_values(), "size": minitorch.Size([2, 3]), "dtype": minitorch.float16,
                    "device": minitorch.device("cuda", 1)}, tmp_path / "from_minitorch.pt")
    loaded = torch.load(tmp_path / "from_minitorch.pt")
    assert_plain_values_equal({k: v for k, v in loaded.items() if k in plain_values()}, plain_values())
    assert type(loaded["size"]) is torch.Size and loaded["size"] == (2, 3)
    assert loaded["dtype"] is torch.float16 and loaded["device"] == torch.device("cuda", 1)
    torch.save(loaded, tmp_path / "from_torch.pt")
    back = minitorch.load(tmp_path / "from_torch.pt")
    assert_plain_values_equal({k: v for k, v in back.items() if k in plain_values()}, plain_values())
    assert type(back["size"]) is minitorch.Size and back["dtype"] is minitorch.float16
    assert back["device"] is minitorch.device("cuda:1")


def test_parameters_cross_both_ways(torch, tmp_path):
    ours = {"trained": nn.Parameter(minitorch.randn(3, 2)), "frozen": nn.Parameter(minitorch.randn(2),
                                                                                   requires_grad=False)}
    minitorch.save(ours, tmp_path / "from_minitorch.pt")
    theirs = torch.load(tmp_path / "from_minitorch.pt")
    assert type(theirs["trained"]) is torch.nn.Parameter and theirs["trained"].requires_grad
    assert type(theirs["frozen"]) is torch.nn.Parameter and not theirs["frozen"].requires_grad
    torch.save(theirs, tmp_path / "from_torch.pt")
    back = minitorch.load(tmp_path / "from_torch.pt")
    for name in ours:
        assert type(back[name]) is nn.Parameter and back[name].requires_grad == ours[name].requires_grad
        assert minitorch.equal(back[name], ours[name])


def test_python_attributes_of_torch_tensors(torch, tmp_path):
    parameter = torch.nn.Parameter(torch.ones(2))
    parameter.note = "frozen"  # pickled by _rebuild_parameter_with_state
    torch.save({"p": parameter}, tmp_path / "parameter.pt")
    loaded = minitorch.load(tmp_path / "parameter.pt")["p"]
    assert type(loaded) is nn.Parameter and loaded.note == "frozen" and loaded.tolist() == [1.0, 1.0]
    tensor = torch.ones(3)
    tensor.tag = 7  # pickled by _rebuild_from_type_v2 with its state
    torch.save({"t": tensor}, tmp_path / "tensor.pt")
    loaded = minitorch.load(tmp_path / "tensor.pt")["t"]  # a minitorch tensor holds attributes too, as PyTorch's
    assert loaded.tag == 7 and loaded.tolist() == [1.0, 1.0, 1.0] and torch.load(tmp_path / "tensor.pt")["t"].tag == 7


OPTIMIZERS = {
    "Adam": ({"lr": 0.1, "betas": (0.8, 0.9)}, 3),
    "AdamW": ({"lr": 0.05, "weight_decay": 0.1, "amsgrad": True}, 3),
    "SGD": ({"lr": 0.1, "momentum": 0.9, "nesterov": True}, 3),
    "RMSprop": ({"lr": 0.01, "momentum": 0.5, "centered": True}, 3),
}


def train_steps(lib, model, optimizer, steps: int, array) -> None:
    for _ in range(steps):
        optimizer.zero_grad()
        model(lib.from_numpy(array)).pow(2).sum().backward()
        optimizer.step()


@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_optimizer_states_cross_both_ways_and_training_resumes(torch, tmp_path, name):
    settings_, steps = OPTIMIZERS[name]
    array = np.random.default_rng(0).standard_normal((4, 3))
    minitorch.manual_seed(0)
    ours = nn.Linear(3, 2).double()
    our_optimizer = getattr(minitorch.optim, name)(ours.parameters(), **settings_)
    train_steps(minitorch, ours, our_optimizer, steps, array)
    # minitorch -> PyTorch: both continue from the same state and stay together
    minitorch.save({"model": ours.state_dict(), "optimizer": our_optimizer.state_dict()}, tmp_path / "ours.pt")
    checkpoint = torch.load(tmp_path / "ours.pt")
    theirs = torch.nn.Linear(3, 2).double()
    theirs.load_state_dict(checkpoint["model"])
    their_optimizer = getattr(torch.optim, name)(theirs.parameters(), **settings_)
    their_optimizer.load_state_dict(checkpoint["optimizer"])
    train_steps(minitorch, ours, our_optimizer, steps, array)
    train_steps(torch, theirs, their_optimizer, steps, array)
    for key, value in theirs.state_dict().items():
        np.testing.assert_allclose(ours.state_dict()[key].detach().numpy(), value.numpy(), rtol=1e-12, atol=1e-14)
    # PyTorch -> minitorch
    torch.save({"model": theirs.state_dict(), "optimizer": their_optimizer.state_dict()}, tmp_path / "theirs.pt")
    checkpoint = minitorch.load(tmp_path / "theirs.pt")
    resumed = nn.Linear(3, 2).double()
    resumed.load_state_dict(checkpoint["model"])
    resumed_optimizer = getattr(minitorch.optim, name)(resumed.parameters(), **settings_)
    resumed_optimizer.load_state_dict(checkpoint["optimizer"])
    train_steps(minitorch, resumed, resumed_optimizer, steps, array)
    train_steps(torch, theirs, their_optimizer, steps, array)
    for key, value in theirs.state_dict().items():
        np.testing.assert_allclose(resumed.state_dict()[key].detach().numpy(), value.numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", ["lenet5", "resnet8", "mlp"])
def test_the_shipped_pretrained_weights_cross_to_torch_and_back(torch, tmp_path, name):
    from minitorch.vision import models

    builder = getattr(models, name)
    pretrained = builder(weights="DEFAULT")  # the shipped file, in the old format, hash-checked
    entry = {"lenet5": models.LeNet5_Weights, "resnet8": models.ResNet8_Weights, "mlp": models.MLP_Weights}[name]
    state = entry.DEFAULT.get_state_dict()
    minitorch.save(state, tmp_path / "pretrained.pt")
    theirs = torch.load(tmp_path / "pretrained.pt")
    assert list(theirs) == list(state)
    for key, value in state.items():
        assert torch_bits(theirs[key]) == np.ascontiguousarray(value.numpy()).tobytes(), key
    torch.save(theirs, tmp_path / "back.pt")
    model = builder(**({"in_channels": 1} if name == "resnet8" else {}))
    model.load_state_dict(minitorch.load(tmp_path / "back.pt"))
    model.eval()
    size = entry.DEFAULT.meta["image_size"]
    x = minitorch.randn(2, 1, size, size)
    with minitorch.no_grad():
        assert minitorch.equal(model(x), pretrained(x))


@pytest.mark.parametrize("name", ["resnet20", "vgg8"])
def test_vision_model_state_dicts_cross_both_ways(torch, tmp_path, name):
    from minitorch.vision import models

    minitorch.manual_seed(0)
    model = models.get_model(name)
    minitorch.save(model.state_dict(), tmp_path / "model.pt")
    theirs = torch.load(tmp_path / "model.pt")
    torch.save(theirs, tmp_path / "back.pt")
    back = minitorch.load(tmp_path / "back.pt")
    for key, value in model.state_dict().items():
        assert torch_bits(theirs[key]) == np.ascontiguousarray(value.numpy()).tobytes(), key
        assert back[key].dtype == value.dtype and minitorch.equal(back[key], value), key


def test_a_whole_pytorch_module_loads_as_minitorch_module_with_weights_only_false(torch, tmp_path):
    torch.manual_seed(0)
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2)).double()
    torch.save(theirs, tmp_path / "module.pt")
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL torch.nn.modules.container.Sequential was not an allowed"):
        minitorch.load(tmp_path / "module.pt")
    ours = minitorch.load(tmp_path / "module.pt", weights_only=False)  # minitorch mirrors PyTorch's module paths
    assert type(ours) is nn.Sequential and type(ours[0]) is nn.Linear and isinstance(ours[0].weight, nn.Parameter)
    assert_same_outputs(torch, theirs, ours, np.random.default_rng(0).standard_normal((5, 3)))


def test_the_archive_is_laid_out_as_torch_save_lays_it_out(torch, tmp_path):
    state = {"weight": minitorch.arange(6.0).reshape(2, 3), "mask": minitorch.ones(5, dtype=minitorch.bool)}
    (tmp_path / "ours").mkdir()
    (tmp_path / "theirs").mkdir()
    minitorch.save(state, tmp_path / "ours" / "model.pt")
    torch.save({k: torch.from_numpy(v.numpy()) for k, v in state.items()}, tmp_path / "theirs" / "model.pt")
    with zipfile.ZipFile(tmp_path / "ours" / "model.pt") as ours, \
            zipfile.ZipFile(tmp_path / "theirs" / "model.pt") as theirs:
        assert ours.namelist() == theirs.namelist()  # the same records, in the same order
        for info in ours.infolist():
            assert info.compress_type == zipfile.ZIP_STORED
            if info.filename != "model/.data/serialization_id":
                assert ours.read(info) == theirs.read(info.filename), info.filename  # same pickle, same bytes
            with open(tmp_path / "ours" / "model.pt", "rb") as file:  # every record's data starts at a multiple of 64
                file.seek(info.header_offset + 26)
                name_length, extra_length = struct.unpack("<HH", file.read(4))
            assert (info.header_offset + 30 + name_length + extra_length) % 64 == 0
    again = io.BytesIO()
    minitorch.save(state, again)
    first = io.BytesIO()
    minitorch.save(state, first)
    assert again.getvalue() == first.getvalue()  # the same weights give the same bytes (and hash)


def test_storages_saved_on_a_gpu_load_in_torch_with_map_location(torch, fake_cuda, tmp_path):
    minitorch.save({"on1": minitorch.arange(3.0, device="cuda:1")}, tmp_path / "gpu.pt")
    with pytest.raises(RuntimeError):  # as from a real GPU: PyTorch on this machine has none
        torch.load(tmp_path / "gpu.pt")
    assert torch.load(tmp_path / "gpu.pt", map_location="cpu")["on1"].tolist() == [0.0, 1.0, 2.0]
    assert devices_of(minitorch.load(tmp_path / "gpu.pt")) == {"on1": "cuda:1"}


class Settings:
    """A user's class, pickled into a checkpoint (a training configuration)."""

    def __init__(self, lr):
        self.lr = lr

    def __eq__(self, other):
        return type(other) is Settings and other.lr == self.lr


def test_safe_globals_allow_a_trusted_class_and_never_os(tmp_path):
    minitorch.save({"settings": Settings(0.1), "weight": minitorch.ones(2)}, tmp_path / "checkpoint.pt")
    with pytest.raises(pickle.UnpicklingError, match=r"GLOBAL tests\.test_serialization\.Settings was not an allowed"):
        minitorch.load(tmp_path / "checkpoint.pt")
    with minitorch.serialization.safe_globals([Settings]):
        assert minitorch.load(tmp_path / "checkpoint.pt")["settings"] == Settings(0.1)
    assert Settings not in minitorch.serialization.get_safe_globals()
    minitorch.serialization.add_safe_globals([Settings, os.system])
    try:
        assert minitorch.load(tmp_path / "checkpoint.pt")["settings"] == Settings(0.1)
        marker = tmp_path / "pwned"
        path = tmp_path / "evil.pt"
        path.write_bytes(torch_style_archive(pickle.dumps(RunsCode(marker), protocol=2)))
        with pytest.raises(pickle.UnpicklingError, match="whose module posix is blocked"):
            minitorch.load(path)  # os, sys, posix and nt stay blocked, whatever is added
        assert not marker.exists()
    finally:
        minitorch.serialization.clear_safe_globals()
    assert minitorch.serialization.get_safe_globals() == []


def test_pytorchs_legacy_format_is_refused_with_advice(torch, tmp_path):
    torch.save({"w": torch.ones(2)}, tmp_path / "legacy.pt", _use_new_zipfile_serialization=False)
    with pytest.raises(RuntimeError, match=r"it is a bare pickle.*legacy format \(before PyTorch 1\.6.*re-save"):
        minitorch.load(tmp_path / "legacy.pt")


# -- mmap=True and direct reads ---------------------------------------------------------------------------------
def _saved_by_torch(torch, path):
    generator = np.random.default_rng(3)
    state = {"w": torch.from_numpy(generator.standard_normal((64, 33)).astype(np.float32)),
             "b": torch.arange(7, dtype=torch.int64), "h": torch.ones(5, dtype=torch.float16),
             "view": torch.arange(30.0).reshape(5, 6)[1:, ::2]}
    torch.save(state, path)
    return state


def test_mmap_loads_the_same_values_as_torch_and_as_reading(torch, tmp_path):
    path = tmp_path / "state.pt"
    theirs = _saved_by_torch(torch, path)
    mapped, read = minitorch.load(path, mmap=True), minitorch.load(path)
    for key, value in theirs.items():
        for ours in (mapped[key], read[key]):
            np.testing.assert_array_equal(ours.numpy(), value.numpy())
            assert ours.shape == tuple(value.shape) and ours.stride() == value.stride()
    assert _file_mapping(mapped["w"]) is not None and _file_mapping(read["w"]) is None


def _file_mapping(tensor):
    """The ``np.memmap`` a tensor's memory comes from (following views' bases), or None."""
    array = tensor._data
    while array is not None:
        if isinstance(array, np.memmap):
            return array
        array = getattr(array, "base", None)
    return None


def test_mmap_private_writes_stay_in_memory_and_shared_writes_reach_the_file(torch, tmp_path):
    import mmap

    path = tmp_path / "state.pt"
    _saved_by_torch(torch, path)
    assert minitorch.serialization.get_default_mmap_options() == mmap.MAP_PRIVATE == \
        torch.serialization.get_default_mmap_options()
    private = minitorch.load(path, mmap=True)
    private["w"][0, 0] = 123.0
    assert float(minitorch.load(path)["w"][0, 0]) != 123.0
    with minitorch.serialization.set_default_mmap_options(mmap.MAP_SHARED):
        shared = minitorch.load(path, mmap=True)
        shared["w"][0, 0] = 123.0
        _file_mapping(shared["w"]).flush()
    assert minitorch.serialization.get_default_mmap_options() == mmap.MAP_PRIVATE
    del shared
    assert float(torch.load(path)["w"][0, 0]) == 123.0


def test_mmap_refusals_in_pytorchs_words(torch, tmp_path):
    buffer = io.BytesIO()
    minitorch.save({"a": minitorch.ones(2)}, buffer)
    messages = []
    for lib in (torch, minitorch):
        with pytest.raises(ValueError) as caught:
            lib.load(io.BytesIO(buffer.getvalue()), mmap=True)
        with pytest.raises(ValueError) as flags:
            lib.serialization.set_default_mmap_options(12345)
        messages.append((str(caught.value), str(flags.value)))
    assert messages[0] == messages[1]


def test_a_record_whose_local_header_disagrees_is_refused(tmp_path):
    path = tmp_path / "state.pt"
    minitorch.save({"w": minitorch.arange(1000.0)}, path)
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = next(i for i in archive.infolist() if "/data/" in i.filename)
    name_start = info.header_offset + 30
    data[name_start:name_start + 1] = b"X"  # the local header names another record than the directory
    damaged = tmp_path / "damaged.pt"
    damaged.write_bytes(bytes(data))
    with pytest.raises(RuntimeError, match="damaged.pt.*local header"):
        minitorch.load(damaged)
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(path.read_bytes()[: info.header_offset + 30 + len(info.filename) + 100])
    with pytest.raises(RuntimeError, match="truncated.pt"):
        minitorch.load(truncated)
