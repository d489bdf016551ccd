"""Models, the shipped pretrained weights (hash-checked), and transfer learning as in PyTorch."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.nn import functional as F
from minitorch.vision import datasets, models
from minitorch.vision.models import _api, train


@pytest.mark.parametrize("name, kwargs, input_shape, parameters", [
    ("mlp", {}, (2, 1, 8, 8), 17226),
    ("lenet5", {}, (2, 1, 28, 28), 61706),  # LeCun's 61,706
    ("resnet8", {"in_channels": 1}, (2, 1, 28, 28), 77754),
    ("resnet20", {}, (2, 3, 32, 32), 272474),  # the CIFAR ResNet-20 of He et al. (0.27M)
    ("resnet32", {}, (2, 3, 32, 32), 466906),
    ("vgg8", {"num_classes": 5}, (2, 3, 32, 32), 168037),
])
def test_architectures_build_and_run(name, kwargs, input_shape, parameters):
    model = models.get_model(name, **kwargs)
    output = model(minitorch.randn(*input_shape))
    assert output.shape == (input_shape[0], kwargs.get("num_classes", 10))
    assert sum(p.numel() for p in model.parameters()) == parameters
    assert name in models.list_models()


def _test_accuracy(model, weights) -> float:
    test = datasets.Digits(train=False, image_size=weights.meta["image_size"], transform=weights.transforms())
    images = minitorch.stack([test[i][0] for i in range(len(test))])
    with minitorch.no_grad():
        predictions = model(images).argmax(1)
    return float((predictions == test.targets).float().mean().item())


@pytest.mark.parametrize("builder, weights", [
    (models.lenet5, models.LeNet5_Weights.DIGITS_V1),
    (models.resnet8, models.ResNet8_Weights.DIGITS_V1),
    (models.mlp, models.MLP_Weights.DIGITS_V1),
])
def test_shipped_weights_load_and_reach_their_recorded_accuracy(builder, weights):
    model = builder(weights="DEFAULT")
    assert not model.training  # pretrained models come in eval mode
    accuracy = _test_accuracy(model, weights)
    assert accuracy == pytest.approx(weights.meta["test_accuracy"], abs=1e-4)
    if builder is not models.mlp:
        assert accuracy > 0.97  # the bar for LeNet-5 and the small ResNet
    assert weights.meta["num_params"] == sum(p.numel() for p in model.parameters())


def test_shipped_weights_are_small_and_all_hashed():
    manifest = json.loads(open(_api.MANIFEST, encoding="utf-8").read())
    sizes = [(_api.WEIGHTS_DIR + "/" + name, entry) for name, entry in manifest.items()]
    assert sum(entry["file_bytes"] for _, entry in sizes) < 5_000_000
    for path, entry in sizes:
        assert _api._sha256(path) == entry["sha256"]
    with open(_api.WEIGHTS_DIR + "/lenet5_digits_v1.mt", "rb") as file:
        assert file.read(2) == b"PK"  # minitorch.save's zip, not a pickle


def test_a_weights_file_whose_hash_does_not_match_is_refused(tmp_path, monkeypatch):
    shutil.copy(models.LeNet5_Weights.DIGITS_V1.path, tmp_path / "lenet5_digits_v1.mt")
    corrupted = bytearray((tmp_path / "lenet5_digits_v1.mt").read_bytes())
    corrupted[len(corrupted) // 2] ^= 0xFF
    (tmp_path / "lenet5_digits_v1.mt").write_bytes(bytes(corrupted))
    monkeypatch.setattr(_api, "WEIGHTS_DIR", str(tmp_path))
    with pytest.raises(RuntimeError, match=r"lenet5_digits_v1.mt does not match its recorded hash \(expected sha256"):
        models.lenet5(weights="DEFAULT")
    (tmp_path / "lenet5_digits_v1.mt").unlink()
    with pytest.raises(FileNotFoundError, match="lenet5_digits_v1.mt is missing"):
        models.lenet5(weights="DEFAULT")


def test_weights_arguments_are_checked():
    with pytest.raises(ValueError, match=r"Unknown weights name 'IMAGENET1K_V1' for LeNet5_Weights: valid names are "
                                         r"'DIGITS_V1', 'DEFAULT'"):
        models.lenet5(weights="IMAGENET1K_V1")
    with pytest.raises(TypeError, match="weights should be a LeNet5_Weights member"):
        models.lenet5(weights=models.ResNet8_Weights.DIGITS_V1)
    with pytest.raises(ValueError, match="minitorch ships no pretrained weights for it"):
        models.resnet20(weights="DEFAULT")
    with pytest.raises(ValueError, match="The parameter 'num_classes' expected value 10 but got 5 instead."):
        models.lenet5(weights="DEFAULT", num_classes=5)
    with pytest.raises(ValueError, match="Unknown model 'resnet1000'"):
        models.get_model("resnet1000")
    assert models.get_weight("ResNet8_Weights.DIGITS_V1") is models.ResNet8_Weights.DIGITS_V1
    assert models.LeNet5_Weights.verify("LeNet5_Weights.DIGITS_V1") is models.LeNet5_Weights.DEFAULT
    assert repr(models.LeNet5_Weights.DEFAULT) == "LeNet5_Weights.DIGITS_V1"


@pytest.mark.parametrize("name, expected", [
    ("MLP_Weights.DIGITS_V1", "MLP_Weights.DIGITS_V1"),
    ("LeNet5_Weights.DIGITS_V1", "LeNet5_Weights.DIGITS_V1"),
    ("ResNet8_Weights.DEFAULT", "ResNet8_Weights.DIGITS_V1"),
])
def test_get_weight_finds_every_shipped_enum(name, expected):
    # ``mlp`` (like ``lenet5``) is also a builder function bound in the package over its module's
    # name: get_weight must look in the module, not in the function.
    assert repr(models.get_weight(name)) == expected


def test_get_weight_names_an_unknown_enum():
    with pytest.raises(ValueError, match="Unknown weights enum 'Nope_Weights' in 'Nope_Weights.V1'"):
        models.get_weight("Nope_Weights.V1")


# -- transfer learning ------------------------------------------------------------------------------
def _split(classes, train: bool):
    data = datasets.Digits(train=train, image_size=28)
    keep = np.isin(data.targets.numpy(), classes)
    images = (data.data.numpy()[keep][:, None].astype(np.float32) / 255 - 0.5) / 0.5
    labels = data.targets.numpy()[keep] - min(classes)
    return minitorch.from_numpy(images), minitorch.from_numpy(labels)


def _fit(model, parameters, images, labels, steps: int, lr: float, seed: int = 0):
    generator = np.random.default_rng(seed)
    optimizer = minitorch.optim.SGD(parameters, lr=lr, momentum=0.9)
    for _ in range(steps):
        batch = minitorch.from_numpy(generator.choice(len(labels), size=64, replace=False))
        optimizer.zero_grad()
        F.cross_entropy(model(images[batch]), labels[batch]).backward()
        optimizer.step()


def _accuracy(model, images, labels) -> float:
    model.eval()
    with minitorch.no_grad():
        return float((model(images).argmax(1) == labels).float().mean().item())


def _new_head(model, num_classes: int):
    """PyTorch's recipe: freeze every parameter, then replace the last layer (new layers train by default)."""
    for parameter in model.parameters():
        parameter.requires_grad_(False)
    model.classifier[-1] = nn.Linear(84, num_classes)
    return model


def test_pretrained_features_beat_random_features_on_held_out_classes():
    # Pretrain on the digits 0-4 only; the held-out task is telling 5-9 apart.
    minitorch.manual_seed(0)
    source_images, source_labels = _split([0, 1, 2, 3, 4], train=True)
    pretrained = models.LeNet5(num_classes=5)
    _fit(pretrained, pretrained.parameters(), source_images, source_labels, steps=40, lr=0.05)
    pretrained.zero_grad()  # drop the pretraining gradients (set to None)
    target_images, target_labels = _split([5, 6, 7, 8, 9], train=True)
    test_images, test_labels = _split([5, 6, 7, 8, 9], train=False)

    results = {}
    for name, model in (("pretrained", pretrained), ("random", models.LeNet5(num_classes=5))):
        minitorch.manual_seed(1)  # the same new head for both
        model = _new_head(model, 5)
        trainable = [p for p in model.parameters() if p.requires_grad]
        assert [tuple(p.shape) for p in trainable] == [(5, 84), (5,)]
        frozen_before = model.features[0].weight.detach().numpy().copy()
        model.train()
        _fit(model, trainable, target_images, target_labels, steps=20, lr=0.05, seed=2)
        assert model.features[0].weight.grad is None  # frozen layers get no gradient
        np.testing.assert_array_equal(model.features[0].weight.detach().numpy(), frozen_before)
        results[name] = _accuracy(model, test_images, test_labels)
    assert results["pretrained"] > results["random"] + 0.15, results
    assert results["pretrained"] > 0.5, results  # chance is 0.2


def test_shipped_lenet_as_a_frozen_feature_extractor_with_a_new_head():
    model = _new_head(models.lenet5(weights="DEFAULT"), 10)
    images, labels = _split(list(range(10)), train=True)
    test_images, test_labels = _split(list(range(10)), train=False)
    minitorch.manual_seed(0)
    _fit(model, [p for p in model.parameters() if p.requires_grad], images, labels, steps=20, lr=0.05)
    assert _accuracy(model, test_images, test_labels) > 0.9


# -- the training script ------------------------------------------------------------------------------
def test_training_script_is_seeded_and_writes_a_verifiable_manifest(tmp_path):
    train.main(["--models", "mlp", "--epochs", "1", "--out", str(tmp_path / "a")])
    train.main(["--models", "mlp", "--epochs", "1", "--out", str(tmp_path / "b")])
    first = json.loads((tmp_path / "a" / "manifest.json").read_text())["mlp_digits_v1.mt"]
    second = json.loads((tmp_path / "b" / "manifest.json").read_text())["mlp_digits_v1.mt"]
    assert first["epochs"] == 1 and first["test_accuracy"] == second["test_accuracy"]
    state = minitorch.load(str(tmp_path / "a" / "mlp_digits_v1.mt"))
    again = minitorch.load(str(tmp_path / "b" / "mlp_digits_v1.mt"))
    for key in state:  # same seed, same weights, bit for bit
        assert state[key].numpy().tobytes() == again[key].numpy().tobytes()
    model = models.MLP()
    model.load_state_dict(state)
    assert _api._sha256(str(tmp_path / "a" / "mlp_digits_v1.mt")) == first["sha256"]
