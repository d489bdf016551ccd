"""``minitorch.onnx.export`` against ONNX's checker, ONNX Runtime, minitorch itself and PyTorch's exporter.

For every model: the file passes ``onnx.checker``; ONNX Runtime's outputs equal minitorch's
within 1e-5 (float32) on random inputs at two batch sizes through one file with a dynamic
batch axis; and PyTorch's own exporter (``dynamo=False``) on the same weights, copied by
``state_dict`` name, gives the same outputs in ONNX Runtime.
"""

from __future__ import annotations

import io

import numpy as np
import pytest

import minitorch
from benchmarks import _course_models as course_models
from minitorch import nn
from minitorch.vision import models
from tests.support import require, require_torch

onnx = require("onnx", "the ONNX export writes and checks models with it (the deploy extra)")
ort = require("onnxruntime", "the exported models run in ONNX Runtime (the deploy extra)")

TOLERANCE = dict(rtol=1e-5, atol=1e-5)  # float32: a few units in the last place, summed over a layer
DYNAMIC = {"input": {0: "batch"}, "output": {0: "batch"}}


def export_bytes(model, example, **options) -> bytes:
    buffer = io.BytesIO()
    options.setdefault("input_names", ["input"])
    options.setdefault("output_names", ["output"])
    minitorch.onnx.export(model, (example,), buffer, **options)
    return buffer.getvalue()


def session(data: bytes):
    settings = ort.SessionOptions()
    settings.intra_op_num_threads = 1
    return ort.InferenceSession(data, settings, providers=["CPUExecutionProvider"])


def minitorch_output(model, array) -> np.ndarray:
    with minitorch.no_grad():
        return model(minitorch.tensor(array)).numpy()


def randomize_batch_norm(model, seed: int = 0) -> None:
    """Running statistics other than 0 and 1, so evaluation-mode batch norm really does something."""
    generator = np.random.default_rng(seed)
    with minitorch.no_grad():
        for module in model.modules():
            if isinstance(module, nn.modules.batchnorm._BatchNorm):
                count = module.num_features
                module.running_mean.copy_(minitorch.tensor(generator.normal(0, 0.5, count).astype(np.float32)))
                module.running_var.copy_(minitorch.tensor(generator.uniform(0.5, 2.0, count).astype(np.float32)))


def check_two_batches(model, make_input, batches=(2, 5)) -> bytes:
    """Export at ``batches[0]`` with a dynamic batch axis; compare with minitorch at both batch sizes."""
    model.eval()
    data = export_bytes(model, minitorch.tensor(make_input(batches[0])), dynamic_axes=DYNAMIC)
    proto = onnx.load_from_string(data)
    onnx.checker.check_model(proto, full_check=True)
    assert [i.name for i in proto.graph.input] == ["input"]
    assert [o.name for o in proto.graph.output] == ["output"]
    assert proto.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    assert proto.graph.output[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    runner = session(data)
    for batch in batches:
        array = make_input(batch)
        (result,) = runner.run(None, {"input": array})
        np.testing.assert_allclose(result, minitorch_output(model, array), **TOLERANCE)
    return data


# -- the vision models -------------------------------------------------------------------------------
VISION = {
    "mlp": (lambda: models.mlp(), (1, 8, 8)),
    "lenet5": (lambda: models.lenet5(), (1, 28, 28)),
    "resnet8": (lambda: models.resnet8(in_channels=1), (1, 28, 28)),
    "resnet20": (lambda: models.resnet20(), (3, 32, 32)),
    "vgg8": (lambda: models.vgg8(), (3, 32, 32)),
}


@pytest.mark.parametrize("name", sorted(VISION))
def test_vision_models_match_minitorch_at_two_batch_sizes(name):
    build, shape = VISION[name]
    minitorch.manual_seed(0)
    model = build()
    randomize_batch_norm(model)
    generator = np.random.default_rng(1)
    check_two_batches(model, lambda batch: generator.standard_normal((batch,) + shape).astype(np.float32))


@pytest.mark.parametrize("name", ["mlp", "lenet5", "resnet8"])
def test_shipped_pretrained_weights_export(name):
    model = models.get_model(name, weights="DEFAULT")
    size = 8 if name == "mlp" else 28
    generator = np.random.default_rng(2)
    check_two_batches(model, lambda batch: generator.standard_normal((batch, 1, size, size)).astype(np.float32))


def test_pretrained_digits_model_keeps_its_test_accuracy_in_onnx_runtime():
    from minitorch.utils.data import DataLoader
    from minitorch.vision import datasets

    weights = models.LeNet5_Weights.DEFAULT
    model = models.lenet5(weights=weights)
    test_set = datasets.Digits(train=False, transform=weights.transforms())
    images, labels = next(iter(DataLoader(test_set, batch_size=len(test_set))))
    runner = session(export_bytes(model, images[:1], dynamic_axes=DYNAMIC))
    (scores,) = runner.run(None, {"input": images.numpy()})
    accuracy = float((scores.argmax(1) == labels.numpy()).mean())
    assert len(labels) == weights.meta["test_samples"]
    assert accuracy == pytest.approx(weights.meta["test_accuracy"], abs=0.5 / len(labels))


# -- the course's models -------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(course_models.BUILDERS))
def test_course_models_match_minitorch_at_two_batch_sizes(name):
    minitorch.manual_seed(0)
    model = course_models.BUILDERS[name](minitorch)
    randomize_batch_norm(model)
    check_two_batches(model, lambda batch: course_models.example_input(name, batch, seed=batch))


@pytest.mark.parametrize("name", sorted(course_models.BUILDERS))
def test_pytorch_exporter_and_minitorch_exporter_agree(name):
    torch = require_torch()
    minitorch.manual_seed(0)
    model = course_models.BUILDERS[name](minitorch).eval()
    randomize_batch_norm(model)
    reference = course_models.BUILDERS[name](torch).eval()
    reference.load_state_dict({key: torch.from_numpy(value.numpy().copy()) for key, value in
                               model.state_dict().items()})
    example = course_models.example_input(name, 3)
    ours = session(export_bytes(model, minitorch.tensor(example), dynamic_axes=DYNAMIC))
    buffer = io.BytesIO()
    torch.onnx.export(reference, (torch.from_numpy(example),), buffer, input_names=["input"], output_names=["output"],
                      dynamic_axes=DYNAMIC, dynamo=False)
    theirs = session(buffer.getvalue())
    for batch in (3, 6):
        array = course_models.example_input(name, batch, seed=batch)
        np.testing.assert_allclose(ours.run(None, {"input": array})[0], theirs.run(None, {"input": array})[0],
                                   **TOLERANCE)


# -- layers one by one ---------------------------------------------------------------------------------
class Layers(nn.Module):
    """Every layer family the course uses that the models above leave out, in one forward."""

    def __init__(self):
        super().__init__()
        self.conv1d = nn.Conv1d(3, 4, 3, padding=1)
        self.norm1d = nn.BatchNorm1d(4)
        self.layer_norm = nn.LayerNorm(8)
        self.dropout = nn.Dropout(0.3)
        self.up = nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1)
        self.attention = nn.MultiheadAttention(8, 2)
        self.gru = nn.GRU(8, 6, num_layers=2, bidirectional=True)
        self.lstm = nn.LSTM(12, 5)
        self.activations = nn.Sequential(nn.GELU(), nn.Tanh(), nn.Sigmoid(), nn.LeakyReLU(0.1), nn.ELU(), nn.SiLU())

    def forward(self, x):  # x: (batch, 3, 8)
        y = self.dropout(self.layer_norm(nn.functional.gelu(self.norm1d(self.conv1d(x)))))  # (batch, 4, 8)
        image = self.up(y.unsqueeze(-1).expand(-1, -1, -1, 8).contiguous())  # (batch, 2, 16, 16)
        image = nn.functional.avg_pool2d(image, 2) + nn.functional.adaptive_avg_pool2d(image, 8)
        sequence = minitorch.cat([y.permute(2, 0, 1), y.permute(2, 0, 1)], dim=2)  # (8, batch, 8)
        attended, _ = self.attention(sequence, sequence, sequence)
        recurrent, _ = self.gru(attended)  # (8, batch, 12)
        recurrent, _ = self.lstm(recurrent)  # (8, batch, 5)
        scores = nn.functional.log_softmax(recurrent.mean(0), dim=-1) + nn.functional.softmax(
            self.activations(recurrent.sum(0)), -1)
        return minitorch.cat([scores, image.flatten(1).matmul(minitorch.ones(128, 5)) / 100], dim=1)


def test_every_layer_family_matches_minitorch():
    minitorch.manual_seed(0)
    model = Layers()
    randomize_batch_norm(model)
    generator = np.random.default_rng(3)
    data = check_two_batches(model, lambda batch: generator.standard_normal((batch, 3, 8)).astype(np.float32))
    used = {node.op_type for node in onnx.load_from_string(data).graph.node}
    assert {"Conv", "ConvTranspose", "LayerNormalization", "GRU", "LSTM", "Softmax", "LogSoftmax", "MatMul"} <= used


def test_opset_17_and_13_also_run():
    minitorch.manual_seed(0)
    model = course_models.transformer(minitorch).eval()
    example = course_models.example_input("transformer", 2)
    expected = minitorch_output(model, example)
    for opset in (13, 17):
        data = export_bytes(model, minitorch.tensor(example), opset_version=opset)
        assert onnx.load_from_string(data).opset_import[0].version == opset
        np.testing.assert_allclose(session(data).run(None, {"input": example})[0], expected, **TOLERANCE)


def test_parameters_are_initializers_named_as_in_the_state_dict():
    model = course_models.mlp(minitorch).eval()
    proto = onnx.load_from_string(export_bytes(model, minitorch.randn(1, 1, 8, 8)))
    assert {t.name for t in proto.graph.initializer} >= set(model.state_dict())
    assert [i.name for i in proto.graph.input] == ["input"]  # keep_initializers_as_inputs=False
    kept = onnx.load_from_string(export_bytes(model, minitorch.randn(1, 1, 8, 8), keep_initializers_as_inputs=True))
    assert {i.name for i in kept.graph.input} >= set(model.state_dict())


def test_export_params_false_takes_the_weights_as_inputs():
    model = course_models.mlp(minitorch).eval()
    example = np.random.default_rng(0).standard_normal((2, 1, 8, 8)).astype(np.float32)
    data = export_bytes(model, minitorch.tensor(example), export_params=False)
    proto = onnx.load_from_string(data)
    assert not set(model.state_dict()) & {t.name for t in proto.graph.initializer}
    feeds = {"input": example, **{key: value.numpy() for key, value in model.state_dict().items()}}
    np.testing.assert_allclose(session(data).run(None, feeds)[0], minitorch_output(model, example), **TOLERANCE)


def test_returns_the_model_proto_without_a_file_and_writes_a_path(tmp_path):
    model = nn.Linear(3, 2).eval()
    proto = minitorch.onnx.export(model, (minitorch.randn(1, 3),))
    assert isinstance(proto, onnx.ModelProto) and [node.op_type for node in proto.graph.node] == ["Gemm"]
    path = tmp_path / "linear.onnx"
    assert minitorch.onnx.export(model, (minitorch.randn(1, 3),), str(path), dynamo=False) is None
    onnx.checker.check_model(onnx.load(str(path)))


def test_list_dynamic_axes_get_pytorchs_names():
    model = course_models.mlp(minitorch).eval()
    proto = onnx.load_from_string(export_bytes(model, minitorch.randn(2, 1, 8, 8),
                                               dynamic_axes={"input": [0], "output": [0]}))
    assert proto.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "input_dynamic_axes_1"
    assert proto.graph.output[0].type.tensor_type.shape.dim[0].dim_param == "output_dynamic_axes_1"


def test_an_in_place_activation_is_followed():
    model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(inplace=True), nn.Linear(4, 2)).eval()
    example = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    data = export_bytes(model, minitorch.tensor(example))
    np.testing.assert_allclose(session(data).run(None, {"input": example})[0], minitorch_output(model, example),
                               **TOLERANCE)


class _AddsInPlace(nn.Module):
    """A residual sum written in place, ``h += x``: under the export's ``no_grad`` an in-place update of a tensor
    by one alike is the arithmetic on the arrays (``ops/inplace.add_``), which the tracer must still follow."""

    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)

    def forward(self, x):
        h = self.linear(x)
        h += x
        h.add_(x, alpha=-0.5)
        return h


def test_an_in_place_add_of_a_tensor_alike_is_followed():
    model = _AddsInPlace().eval()
    example = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
    data = export_bytes(model, minitorch.tensor(example))
    with minitorch.no_grad():
        expected = (model.linear(minitorch.tensor(example)).numpy() + 0.5 * example)
    np.testing.assert_allclose(minitorch_output(model, example), expected, **TOLERANCE)
    np.testing.assert_allclose(session(data).run(None, {"input": example})[0], expected, **TOLERANCE)


def test_the_export_leaves_the_models_mode_as_it_was():
    model = course_models.cnn(minitorch).train()
    export_bytes(model, minitorch.randn(2, 1, 8, 8))
    assert model.training


# -- errors ------------------------------------------------------------------------------------------------
def test_an_op_without_a_mapping_names_the_op_and_where_it_was_called():
    class Decomposes(nn.Module):
        def forward(self, x):
            return minitorch.linalg.cholesky(x @ x.transpose(-1, -2) + minitorch.eye(3))

    with pytest.raises(minitorch.onnx.UnsupportedOperatorError, match=r"'minitorch::Cholesky'.*test_export\.py:\d+"):
        export_bytes(Decomposes(), minitorch.randn(2, 3, 3))


def test_a_model_in_training_mode_with_dropout_is_refused():
    model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5))
    with pytest.raises(RuntimeError, match=r"training mode.*dropout layer '1'.*model\.eval\(\)"):
        export_bytes(model, minitorch.randn(2, 4), training=minitorch.onnx.TrainingMode.PRESERVE)
    export_bytes(model, minitorch.randn(2, 4))  # the default, TrainingMode.EVAL, records in evaluation mode


def test_a_non_tensor_output_is_refused():
    class ReturnsANumber(nn.Module):
        def forward(self, x):
            return x * 2, 3

    with pytest.raises(RuntimeError, match="received an input of unsupported type: int"):
        export_bytes(ReturnsANumber(), minitorch.randn(2, 2))


def test_a_value_computed_outside_the_recorded_ops_is_refused_not_frozen():
    class ReadsANumber(nn.Module):
        def forward(self, x):
            return x * float(x.sum().item())  # a Python number: the graph would keep this one's value

    with pytest.raises(RuntimeError, match=r"'Mul' at .*test_export\.py:\d+.*depend on the input"):
        export_bytes(ReadsANumber(), minitorch.randn(2, 2))


def test_an_argmax_result_is_refused_not_frozen():
    class PicksWithArgmax(nn.Module):
        def forward(self, x):
            return x + x.argmax(dim=1, keepdim=True)

    with pytest.raises(RuntimeError, match="depend.? on the input"):
        export_bytes(PicksWithArgmax(), minitorch.randn(2, 3))


def test_opset_outside_the_supported_range_is_refused():
    with pytest.raises(ValueError, match="Unsupported ONNX opset version: 9"):
        export_bytes(nn.Linear(2, 2), minitorch.randn(1, 2), opset_version=9)


class _SoftTargetLoss(nn.Module):
    """cross_entropy against class probabilities: its mean is a division by a number (``DivScalar``)."""

    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 3)
        self.target = minitorch.tensor([[0.2, 0.3, 0.5]] * 3)

    def forward(self, x):
        return nn.functional.cross_entropy(self.linear(x), self.target).reshape(1)


def test_a_division_by_a_number_exports():
    model = _SoftTargetLoss().eval()
    example = np.random.default_rng(2).standard_normal((3, 4)).astype(np.float32)
    data = export_bytes(model, minitorch.tensor(example))
    np.testing.assert_allclose(session(data).run(None, {"input": example})[0], minitorch_output(model, example),
                               **TOLERANCE)
