"""Padding and packing batches of sequences (``nn.utils.rnn``), and RNN/LSTM/GRU on packed batches.

Everything is compared with PyTorch: the packed layout, the padded results, the final states of
recurrent layers (each sequence's state after its own last step, in the caller's order), and the
gradients of the inputs, the initial states and every parameter, in float64.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import minitorch
from tests.support import require_torch


@pytest.fixture
def torch():
    return require_torch()


def _sequences(lib, lengths, features=3, seed=0):
    rng = np.random.default_rng(seed)
    return [lib.tensor(rng.standard_normal((length, features)), requires_grad=True) for length in lengths]


def _numpy(tensor):
    return tensor.detach().cpu().numpy()


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_pad_sequence_and_its_gradient(torch, batch_first, padding_side):
    def run(lib):
        sequences = _sequences(lib, [2, 4, 1])
        padded = lib.nn.utils.rnn.pad_sequence(sequences, batch_first, -1.5, padding_side)
        (padded * lib.arange(padded.numel(), dtype=lib.float64).reshape(padded.shape)).sum().backward()
        return [_numpy(padded)] + [_numpy(sequence.grad) for sequence in sequences]

    for ours, theirs in zip(run(minitorch), run(torch)):
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("enforce_sorted, lengths", [(True, [4, 2, 2, 1]), (False, [2, 4, 1, 2]), (False, [3])])
@pytest.mark.parametrize("batch_first", [False, True])
def test_packing_and_unpacking_match_pytorch(torch, enforce_sorted, lengths, batch_first):
    def run(lib):
        rnn_utils = lib.nn.utils.rnn
        sequences = _sequences(lib, lengths)
        padded = rnn_utils.pad_sequence(sequences, batch_first=batch_first)
        packed = rnn_utils.pack_padded_sequence(padded, lib.tensor(lengths), batch_first, enforce_sorted)
        unpacked, unpacked_lengths = rnn_utils.pad_packed_sequence(packed, batch_first, 7.0, total_length=6)
        (unpacked.sin().sum() + packed.data.pow(2).sum()).backward()
        indices = [None if i is None else i.tolist() for i in (packed.sorted_indices, packed.unsorted_indices)]
        again = rnn_utils.unpack_sequence(rnn_utils.pack_sequence(sequences, enforce_sorted=enforce_sorted))
        return (_numpy(packed.data), packed.batch_sizes.tolist(), indices, _numpy(unpacked),
                unpacked_lengths.tolist(), [_numpy(s.grad) for s in sequences], [_numpy(s) for s in again])  # fmt: skip

    ours, theirs = run(minitorch), run(torch)
    np.testing.assert_array_equal(ours[0], theirs[0])
    assert ours[1:3] == theirs[1:3] and ours[4] == theirs[4]
    np.testing.assert_array_equal(ours[3], theirs[3])
    for mine, reference in zip(ours[5] + ours[6], theirs[5] + theirs[6]):
        np.testing.assert_allclose(mine, reference, rtol=1e-12)


def test_packing_errors_use_pytorchs_words(torch):
    def errors(lib):
        rnn_utils = lib.nn.utils.rnn
        padded = lib.zeros(4, 3, 2)
        found = []
        for call in (
            lambda: rnn_utils.pack_padded_sequence(padded, [2, 3, 1]),
            lambda: rnn_utils.pack_padded_sequence(padded, [3, 0, 0]),
            lambda: rnn_utils.pad_packed_sequence(rnn_utils.pack_padded_sequence(padded, [4, 2, 1]), total_length=3),
        ):
            with pytest.raises((RuntimeError, ValueError)) as info:
                call()
            found.append((type(info.value).__name__, str(info.value)))
        return found

    assert errors(minitorch) == errors(torch)


def _recurrent_layer(lib, mode, bidirectional, num_layers, proj_size):
    layer = {"LSTM": lib.nn.LSTM, "GRU": lib.nn.GRU, "RNN": lib.nn.RNN}[mode](
        3, 4, num_layers=num_layers, bidirectional=bidirectional, **({"proj_size": proj_size} if proj_size else {})
    ).double()
    rng = np.random.default_rng(11)
    with lib.no_grad():
        for parameter in layer.parameters():
            parameter.copy_(lib.tensor(rng.standard_normal(tuple(parameter.shape)) * 0.5))
    return layer


CONFIGURATIONS = [
    (mode, bidirectional, num_layers, proj_size)
    for mode, bidirectional, num_layers, proj_size in itertools.product(["LSTM", "GRU", "RNN"], [False, True], [1, 2],
                                                                        [0, 2])  # fmt: skip
    if not (proj_size and mode != "LSTM")
]


@pytest.mark.parametrize("mode, bidirectional, num_layers, proj_size", CONFIGURATIONS)
@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("initial_state", [False, True])
def test_recurrent_layers_on_packed_batches_match_pytorch(
    torch, mode, bidirectional, num_layers, proj_size, enforce_sorted, initial_state
):
    lengths = [5, 3, 3, 1] if enforce_sorted else [3, 5, 1, 3]
    layers = num_layers * (2 if bidirectional else 1)

    def run(lib):
        layer = _recurrent_layer(lib, mode, bidirectional, num_layers, proj_size)
        sequences = _sequences(lib, lengths, seed=3)
        packed = lib.nn.utils.rnn.pack_sequence(sequences, enforce_sorted=enforce_sorted)
        rng = np.random.default_rng(5)
        states = []
        if initial_state:
            states = [lib.tensor(rng.standard_normal((layers, 4, proj_size or 4)), requires_grad=True)]
            if mode == "LSTM":
                states.append(lib.tensor(rng.standard_normal((layers, 4, 4)), requires_grad=True))
        hx = None if not states else tuple(states) if mode == "LSTM" else states[0]
        output, final = layer(packed, hx)
        assert isinstance(output, lib.nn.utils.rnn.PackedSequence)
        padded, _ = lib.nn.utils.rnn.pad_packed_sequence(output, batch_first=True)
        finals = final if isinstance(final, tuple) else (final,)
        weights = [lib.tensor(np.linspace(-1, 1, t.numel()).reshape(tuple(t.shape))) for t in (padded, *finals)]
        sum((t * w).sum() for t, w in zip((padded, *finals), weights)).backward()
        tensors = [padded, *finals] + [s.grad for s in sequences + states] + [p.grad for p in layer.parameters()]
        return [_numpy(t) for t in tensors]

    ours, theirs = run(minitorch), run(torch)
    assert len(ours) == len(theirs)
    for mine, reference in zip(ours, theirs):
        np.testing.assert_allclose(mine, reference, rtol=1e-9, atol=1e-12)


def test_a_packed_batch_gives_each_sequence_the_state_after_its_own_last_step():
    # Independent of PyTorch: running each sequence alone gives the same final state and outputs.
    layer = _recurrent_layer(minitorch, "LSTM", True, 2, 0)
    sequences = _sequences(minitorch, [2, 6, 4])
    output, (hidden, cell) = layer(minitorch.nn.utils.rnn.pack_sequence(sequences, enforce_sorted=False))
    padded, lengths = minitorch.nn.utils.rnn.pad_packed_sequence(output)
    for index, sequence in enumerate(sequences):
        alone, (alone_hidden, alone_cell) = layer(sequence[:, None, :])
        length = int(lengths[index])
        np.testing.assert_allclose(_numpy(padded[:length, index]), _numpy(alone[:, 0]), rtol=1e-12)
        assert np.all(_numpy(padded[length:, index]) == 0)
        np.testing.assert_allclose(_numpy(hidden[:, index]), _numpy(alone_hidden[:, 0]), rtol=1e-12)
        np.testing.assert_allclose(_numpy(cell[:, index]), _numpy(alone_cell[:, 0]), rtol=1e-12)


def test_packed_input_with_the_wrong_state_size_is_refused_in_pytorchs_words(torch):
    def message(lib):
        layer = lib.nn.GRU(3, 4)
        packed = lib.nn.utils.rnn.pack_sequence([lib.zeros(3, 3), lib.zeros(2, 3)])
        with pytest.raises(RuntimeError) as info:
            layer(packed, lib.zeros(1, 3, 4))
        return str(info.value)

    assert message(minitorch) == message(torch)


def test_dropout_between_layers_runs_on_packed_batches():
    minitorch.manual_seed(0)
    layer = minitorch.nn.LSTM(3, 4, num_layers=2, dropout=0.5)
    packed = minitorch.nn.utils.rnn.pack_sequence(_sequences(minitorch, [3, 2]), enforce_sorted=True)
    output, _ = layer(packed.float())
    output.data.sum().backward()
    assert tuple(output.data.shape) == (5, 4) and layer.weight_ih_l1.grad is not None


def test_the_module_docstring_example_runs():
    import doctest

    results = doctest.testmod(minitorch.nn.utils.rnn, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert results.attempted > 0 and results.failed == 0


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_dropout_between_layers_of_a_packed_batch_draws_pytorchs_mask(torch, mode, bidirectional):
    """In training, the dropout between stacked layers is drawn over the packed data, as PyTorch does: the same
    seed gives the same mask, outputs, final states and gradients, and leaves the generator in the same state
    (a 2-layer bidirectional LSTM for sentiment analysis on packed reviews trains as in PyTorch)."""
    def run(lib):
        lib.manual_seed(0)
        layer = getattr(lib.nn, mode)(3, 4, num_layers=3, dropout=0.5, bidirectional=bidirectional).double()
        sequences = _sequences(lib, [2, 5, 3])
        packed = lib.nn.utils.rnn.pack_sequence(sequences, enforce_sorted=False)
        output, state = layer(packed)
        hidden = state[0] if mode == "LSTM" else state
        (output.data.sin().sum() + hidden.pow(2).sum()).backward()
        return ([_numpy(output.data), _numpy(hidden), lib.rand(2).numpy()]
                + [_numpy(s.grad) for s in sequences] + [_numpy(p.grad) for p in layer.parameters()])

    for ours, theirs in zip(run(minitorch), run(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)
