"""Every layer family and loss keeps its outputs and gradients on the device its inputs and parameters
are on. As in tests/ops/test_op_devices.py, the device is the second of two host-backed ``cuda``
devices the test registers (CI has no GPU): a layer that builds a CPU tensor on the way (a mask, an
index, a constant) fails here with PyTorch's device-mixing error instead of on a learner's GPU.
"""

from __future__ import annotations

import pytest

import minitorch
from minitorch import nn

D = "cuda:1"


def x(*shape):
    return minitorch.randn(*shape, device=D, requires_grad=True)


def on_device(values):
    """Integer or float constants (indices, targets, lengths) on the test device."""
    return minitorch.tensor(values, device=D)


LAYERS = {
    "Linear": (nn.Linear(4, 3), lambda: (x(2, 4),)),
    "Bilinear": (nn.Bilinear(3, 4, 2), lambda: (x(2, 3), x(2, 4))),
    "Conv1d": (nn.Conv1d(2, 3, 3, padding="same"), lambda: (x(1, 2, 7),)),
    "Conv2d": (nn.Conv2d(2, 4, 3, stride=2, padding=1, groups=2), lambda: (x(1, 2, 6, 6),)),
    "Conv2d_reflect": (nn.Conv2d(2, 2, 3, padding=1, padding_mode="reflect"), lambda: (x(1, 2, 5, 5),)),
    "ConvTranspose2d": (nn.ConvTranspose2d(2, 3, 3, stride=2), lambda: (x(1, 2, 4, 4),)),
    "MaxPool2d": (nn.MaxPool2d(2, return_indices=False, ceil_mode=True), lambda: (x(1, 2, 5, 5),)),
    "AvgPool2d": (nn.AvgPool2d(3, 2, padding=1, count_include_pad=False), lambda: (x(1, 2, 5, 5),)),
    "AdaptiveAvgPool2d": (nn.AdaptiveAvgPool2d((2, 3)), lambda: (x(1, 2, 5, 7),)),
    "AdaptiveMaxPool2d": (nn.AdaptiveMaxPool2d(2), lambda: (x(1, 2, 5, 5),)),
    "ReflectionPad2d": (nn.ReflectionPad2d(2), lambda: (x(1, 2, 4, 4),)),
    "ReplicationPad1d": (nn.ReplicationPad1d(2), lambda: (x(1, 2, 4),)),
    "BatchNorm2d": (nn.BatchNorm2d(2), lambda: (x(3, 2, 4, 4),)),
    "LayerNorm": (nn.LayerNorm(4), lambda: (x(3, 4),)),
    "GroupNorm": (nn.GroupNorm(2, 4), lambda: (x(2, 4, 3),)),
    "InstanceNorm2d": (nn.InstanceNorm2d(2, affine=True), lambda: (x(2, 2, 3, 3),)),
    "LocalResponseNorm": (nn.LocalResponseNorm(2), lambda: (x(2, 4, 3),)),
    "RNN": (nn.RNN(3, 4, num_layers=2, bidirectional=True), lambda: (x(5, 2, 3),)),
    "LSTM": (nn.LSTM(3, 4, proj_size=2), lambda: (x(5, 2, 3),)),
    "GRU": (nn.GRU(3, 4, batch_first=True), lambda: (x(2, 5, 3),)),
    "LSTMCell": (nn.LSTMCell(3, 4), lambda: (x(2, 3),)),
    "MHA": (nn.MultiheadAttention(4, 2, batch_first=True), lambda: (x(2, 3, 4), x(2, 3, 4), x(2, 3, 4))),
    "TransformerEncoderLayer": (nn.TransformerEncoderLayer(4, 2, 8, dropout=0.1), lambda: (x(3, 2, 4),)),
    "Transformer": (nn.Transformer(4, 2, 1, 1, 8), lambda: (x(3, 2, 4), x(2, 2, 4))),
    "Dropout": (nn.Dropout(0.3), lambda: (x(4, 4),)),
    "Dropout2d": (nn.Dropout2d(0.3), lambda: (x(2, 3, 2, 2),)),
    "AlphaDropout": (nn.AlphaDropout(0.3), lambda: (x(4, 4),)),
    "Embedding": (nn.Embedding(5, 3, padding_idx=0, max_norm=1.0), lambda: (on_device([[1, 0, 4]]),)),
    "EmbeddingBag": (nn.EmbeddingBag(5, 3, mode="max"), lambda: (on_device([1, 2, 4, 3]), on_device([0, 2]))),
    "PixelShuffle": (nn.PixelShuffle(2), lambda: (x(1, 4, 2, 2),)),
    "Upsample_bilinear": (nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False), lambda: (x(1, 1, 3, 3),)),
    "Upsample_nearest": (nn.Upsample(size=5), lambda: (x(1, 1, 3, 3),)),
    "Fold": (nn.Fold((4, 4), 2), lambda: (x(1, 8, 9),)),
    "Unfold": (nn.Unfold(2), lambda: (x(1, 2, 4, 4),)),
    "ChannelShuffle": (nn.ChannelShuffle(2), lambda: (x(1, 4, 2, 2),)),
    "PReLU": (nn.PReLU(), lambda: (x(3, 4),)),
    "GELU_tanh": (nn.GELU("tanh"), lambda: (x(3, 4),)),
    "Softmin": (nn.Softmin(1), lambda: (x(3, 4),)),
    "CrossEntropy": (nn.CrossEntropyLoss(label_smoothing=0.1, ignore_index=1, weight=minitorch.ones(4)),
                     lambda: (x(3, 4), on_device([0, 1, 3]))),
    "CrossEntropyProbs": (nn.CrossEntropyLoss(), lambda: (x(3, 4), x(3, 4).softmax(1).detach())),
    "NLLLoss": (nn.NLLLoss(), lambda: (x(3, 4), on_device([0, 1, 3]))),
    "BCEWithLogits": (nn.BCEWithLogitsLoss(pos_weight=minitorch.ones(4)),
                      lambda: (x(3, 4), minitorch.rand(3, 4, device=D))),
    "KLDiv": (nn.KLDivLoss(reduction="batchmean"), lambda: (x(3, 4), minitorch.rand(3, 4, device=D))),
    "Huber": (nn.HuberLoss(), lambda: (x(3, 4), x(3, 4))),
    "CosineEmbedding": (nn.CosineEmbeddingLoss(), lambda: (x(3, 4), x(3, 4), on_device([1.0, -1.0, 1.0]))),
    "TripletMargin": (nn.TripletMarginLoss(swap=True), lambda: (x(3, 4), x(3, 4), x(3, 4))),
    "MarginRanking": (nn.MarginRankingLoss(), lambda: (x(3), x(3), on_device([1.0, -1.0, 1.0]))),
    # the lengths stay on the CPU, as PyTorch allows
    "CTC": (nn.CTCLoss(), lambda: (x(6, 2, 4), on_device([[1, 2], [3, 3]]), minitorch.tensor([6, 5]),
                                   minitorch.tensor([2, 2]))),
}


def _tensors(value) -> list:
    if isinstance(value, minitorch.Tensor):
        return [value]
    if isinstance(value, tuple):
        return [tensor for item in value for tensor in _tensors(item)]
    return []


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_outputs_and_gradients_stay_on_the_device(fake_cuda_for_module, name):
    minitorch.manual_seed(0)
    module, make_inputs = LAYERS[name]
    module = module.to(D)  # buffers (class weights, pos_weight) move with it
    inputs = make_inputs()
    outputs = _tensors(module(*inputs))
    assert outputs and all(str(output.device) == D for output in outputs), [str(o.device) for o in outputs]
    total = sum((output.float().sum() for output in outputs if output.requires_grad), minitorch.zeros(()))
    total.backward()
    leaves = list(module.parameters()) + [t for t in inputs if isinstance(t, minitorch.Tensor) and t.is_leaf]
    gradients = [leaf.grad for leaf in leaves if leaf.grad is not None]
    assert gradients and all(str(gradient.device) == D for gradient in gradients)
