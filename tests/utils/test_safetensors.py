"""minitorch.utils.safetensors: exact round trips, files that cross to safetensors.torch and back, refusals.

The oracle is the ``safetensors`` package's own PyTorch interface (``safetensors.torch``) and
``torch.load``, which reads a path ending in ``.safetensors``.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.utils import safetensors
from tests.support import require, require_torch
from tests.test_serialization import ALL_DTYPES, special_values


@pytest.fixture
def torch():
    return require_torch()


@pytest.fixture
def safetensors_torch():
    require_torch()
    return require("safetensors.torch", "the safetensors package's PyTorch interface is the oracle")


def bits(tensor) -> bytes:
    return np.ascontiguousarray(tensor.detach().numpy()).tobytes()


def some_tensors() -> dict:
    tensors = {dtype.name: minitorch.from_numpy(special_values(dtype, (3, 4))) for dtype in ALL_DTYPES}
    return tensors | {"scalar": minitorch.tensor(2.5), "empty": minitorch.zeros(0, 3),
                      "trained": minitorch.ones(2, requires_grad=True)}


def assert_same(loaded: dict, saved: dict) -> None:
    assert set(loaded) == set(saved)
    for name, tensor in saved.items():
        assert type(loaded[name]) is minitorch.Tensor and loaded[name].dtype is tensor.dtype, name
        assert loaded[name].shape == tensor.shape and bits(loaded[name]) == bits(tensor), name  # 0-d too
        assert not loaded[name].requires_grad


def test_files_and_bytes_round_trip_bit_exact_for_every_dtype(tmp_path):
    tensors = some_tensors()
    safetensors.save_file(tensors, tmp_path / "model.safetensors", metadata={"epoch": "3"})
    assert_same(safetensors.load_file(tmp_path / "model.safetensors"), tensors)
    assert_same(safetensors.load(safetensors.save(tensors)), tensors)
    assert_same(minitorch.load(tmp_path / "model.safetensors"), tensors)  # torch.load reads such paths too
    loaded = safetensors.load_file(str(tmp_path / "model.safetensors"))
    loaded["float32"][0, 0] = 1.0  # loaded tensors are writable, like any other


def test_files_cross_to_safetensors_torch_and_back(safetensors_torch, torch, tmp_path):
    tensors = some_tensors()
    safetensors.save_file(tensors, tmp_path / "ours.safetensors", metadata={"source": "minitorch"})
    theirs = safetensors_torch.load_file(tmp_path / "ours.safetensors")
    for name, tensor in tensors.items():
        assert theirs[name].dtype == getattr(torch, tensor.dtype.name)
        assert theirs[name].numpy().tobytes() == bits(tensor), name
    assert torch.load(tmp_path / "ours.safetensors").keys() == theirs.keys()
    safetensors_torch.save_file(theirs, tmp_path / "theirs.safetensors")
    assert_same(safetensors.load_file(tmp_path / "theirs.safetensors"), tensors)
    with open(tmp_path / "theirs.safetensors", "rb") as file:
        assert_same(safetensors.load(file.read()), tensors)


def test_a_dtype_minitorch_lacks_is_refused_by_name(safetensors_torch, torch, tmp_path):
    safetensors_torch.save_file({"z": torch.ones(2, dtype=torch.complex64)}, tmp_path / "c64.safetensors")
    with pytest.raises(TypeError, match="`z` is of dtype C64, which minitorch does not have"):
        safetensors.load_file(tmp_path / "c64.safetensors")


def test_what_the_format_cannot_hold_is_refused_in_safetensors_words():
    weight = minitorch.randn(3, 4)
    with pytest.raises(ValueError, match=r"non contiguous tensor: `t`.*\.contiguous\(\)"):
        safetensors.save({"t": weight.t()})
    with pytest.raises(RuntimeError, match=r"Some tensors share memory.*\[\{('a', 'b'|'b', 'a')\}\]"):
        safetensors.save({"a": weight, "b": weight[1]})
    assert safetensors.load(safetensors.save({"a": weight[0], "b": weight[1]}))["b"].tolist() == weight[1].tolist()
    with pytest.raises(ValueError, match="Key `x` is invalid, expected torch.Tensor"):
        safetensors.save({"x": np.zeros(2)})
    with pytest.raises(ValueError, match="Expected a dict"):
        safetensors.save([weight])


class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(4, 4, bias=False)
        self.decoder = nn.Linear(4, 4)
        self.decoder.weight = self.encoder.weight


def test_save_model_keeps_one_name_of_tied_weights_and_load_model_restores_them(safetensors_torch, tmp_path):
    model = Tied()
    safetensors.save_model(model, tmp_path / "tied.safetensors")
    stored = safetensors.load_file(tmp_path / "tied.safetensors")
    assert sorted(stored) == ["decoder.bias", "decoder.weight"]  # the alphabetically first name is kept
    with safetensors_torch.safe_open(tmp_path / "tied.safetensors", framework="pt") as file:
        assert file.metadata() == {"encoder.weight": "decoder.weight"}
    fresh = Tied()
    assert safetensors.load_model(fresh, tmp_path / "tied.safetensors") == ([], [])
    assert fresh.encoder.weight is fresh.decoder.weight
    assert minitorch.equal(fresh.decoder.weight, model.decoder.weight)
    assert minitorch.equal(fresh.decoder.bias, model.decoder.bias)
    safetensors.save_file({"decoder.weight": minitorch.ones(4, 4)}, tmp_path / "partial.safetensors")
    with pytest.raises(RuntimeError, match=r'Missing key\(s\) in state_dict: "decoder.bias"'):
        safetensors.load_model(Tied(), tmp_path / "partial.safetensors")
    assert safetensors.load_model(Tied(), tmp_path / "partial.safetensors", strict=False) == (["decoder.bias"], [])


def test_load_file_puts_tensors_on_the_device(fake_cuda, tmp_path):
    safetensors.save_file({"w": minitorch.arange(3.0, device="cuda:1")}, tmp_path / "gpu.safetensors")
    loaded = safetensors.load_file(tmp_path / "gpu.safetensors", device="cuda:1")
    assert loaded["w"].device == minitorch.device("cuda:1") and loaded["w"].cpu().tolist() == [0.0, 1.0, 2.0]
    assert safetensors.load_file(tmp_path / "gpu.safetensors", device=0)["w"].device == minitorch.device("cuda:0")
    assert minitorch.load(tmp_path / "gpu.safetensors", map_location="cuda:0")["w"].device.index == 0
    with pytest.raises(RuntimeError, match="Loading safetensors file with dict map_location is not supported"):
        minitorch.load(tmp_path / "gpu.safetensors", map_location={"cpu": "cuda:0"})


def test_a_file_whose_header_lies_raises_safetensors_error(tmp_path):
    data = bytearray(safetensors.save({"w": minitorch.ones(4)}))
    header = bytes(data[8:]).split(b"}")[0]
    lying = bytes(data).replace(header, header.replace(b"[0,16]", b"[0,9999]"))
    (tmp_path / "lying.safetensors").write_bytes(lying)
    with pytest.raises(Exception, match="(?i)invalid|incomplete|offset|out of bounds") as error:
        safetensors.load_file(tmp_path / "lying.safetensors")
    assert type(error.value).__name__ == "SafetensorError"
