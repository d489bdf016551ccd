"""RNN, LSTM, GRU and their cells against PyTorch (copied weights, float64), plus gradcheck and errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch import nn
from tests.support import require_torch

TIME, BATCH, INPUT, HIDDEN = 4, 3, 4, 5


@pytest.fixture
def torch():
    return require_torch()


def _copy_parameters(ours, theirs):
    state = {name: minitorch.tensor(value.detach().numpy()) for name, value in theirs.state_dict().items()}
    ours.load_state_dict(state)


def _leaf_pair(torch, array):
    return minitorch.from_numpy(array.copy()).requires_grad_(), torch.from_numpy(array.copy()).requires_grad_()


def _close(ours, theirs, what=""):
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6, atol=1e-12, err_msg=what)


def _flatten(result):
    """(output, h) or (output, (h, c)) -> [output, h(, c)]."""
    if isinstance(result, tuple):
        return [t for part in result for t in (_flatten(part) if isinstance(part, tuple) else [part])]
    return [result]


def _compare(torch, ours, theirs, our_inputs, their_inputs, rng):
    """Outputs, then backward with random output gradients: input and parameter gradients."""
    our_outputs = _flatten(ours(*our_inputs))
    their_outputs = _flatten(theirs(*their_inputs))
    assert len(our_outputs) == len(their_outputs)
    for index, (a, b) in enumerate(zip(our_outputs, their_outputs)):
        assert tuple(a.shape) == tuple(b.shape)
        _close(a, b, f"output {index}")
    our_loss = their_loss = 0
    for a, b in zip(our_outputs, their_outputs):
        weights = rng.standard_normal(tuple(b.shape))
        our_loss = our_loss + (a * minitorch.from_numpy(weights)).sum()
        their_loss = their_loss + (b * torch.from_numpy(weights)).sum()
    our_loss.backward()
    their_loss.backward()
    for index, (a, b) in enumerate(zip(_leaves(our_inputs), _leaves(their_inputs))):
        _close(a.grad, b.grad, f"input gradient {index}")
    their_parameters = dict(theirs.named_parameters())
    for name, parameter in ours.named_parameters():
        _close(parameter.grad, their_parameters[name].grad, name)


def _leaves(inputs):
    found = []
    for item in inputs:
        if isinstance(item, tuple):
            found.extend(item)
        elif item is not None:
            found.append(item)
    return found


def _make(torch, kind, **options):
    torch.manual_seed(0)
    nonlinearity = options.pop("nonlinearity", None)
    extra = {} if nonlinearity is None else {"nonlinearity": nonlinearity}
    theirs = getattr(torch.nn, kind)(INPUT, HIDDEN, **extra, **options).double()
    ours = getattr(nn, kind)(INPUT, HIDDEN, **extra, **options).double()
    _copy_parameters(ours, theirs)
    return ours, theirs


def _initial_state(torch, rng, kind, layers, directions, batch_shape, proj_size=0):
    """h0 (and c0) as leaf pairs, or (None, None)."""
    hidden_size = proj_size or HIDDEN
    h0 = rng.standard_normal((layers * directions, *batch_shape, hidden_size))
    our_h, their_h = _leaf_pair(torch, h0)
    if kind != "LSTM":
        return our_h, their_h
    c0 = rng.standard_normal((layers * directions, *batch_shape, HIDDEN))
    our_c, their_c = _leaf_pair(torch, c0)
    return (our_h, our_c), (their_h, their_c)


KINDS = [("RNN", "tanh"), ("RNN", "relu"), ("LSTM", None), ("GRU", None)]


@pytest.mark.parametrize("kind,nonlinearity", KINDS)
@pytest.mark.parametrize("num_layers", [1, 2])
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("with_state", [False, True])
def test_recurrent_layers_match_torch(torch, kind, nonlinearity, num_layers, bidirectional, batch_first, with_state):
    rng = np.random.default_rng(num_layers * 7 + bidirectional * 3 + batch_first)
    options = {"num_layers": num_layers, "bidirectional": bidirectional, "batch_first": batch_first}
    if nonlinearity:
        options["nonlinearity"] = nonlinearity
    ours, theirs = _make(torch, kind, **options)
    shape = (BATCH, TIME, INPUT) if batch_first else (TIME, BATCH, INPUT)
    our_x, their_x = _leaf_pair(torch, rng.standard_normal(shape))
    our_inputs, their_inputs = [our_x], [their_x]
    if with_state:
        our_state, their_state = _initial_state(torch, rng, kind, num_layers, 1 + bidirectional, (BATCH,))
        our_inputs.append(our_state)
        their_inputs.append(their_state)
    _compare(torch, ours, theirs, our_inputs, their_inputs, rng)


@pytest.mark.parametrize("kind,nonlinearity", KINDS)
@pytest.mark.parametrize("with_state", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
def test_unbatched_input_matches_torch(torch, kind, nonlinearity, with_state, batch_first):
    rng = np.random.default_rng(11)
    options = {"num_layers": 2, "bidirectional": True, "batch_first": batch_first}
    if nonlinearity:
        options["nonlinearity"] = nonlinearity
    ours, theirs = _make(torch, kind, **options)
    our_x, their_x = _leaf_pair(torch, rng.standard_normal((TIME, INPUT)))
    our_inputs, their_inputs = [our_x], [their_x]
    if with_state:
        our_state, their_state = _initial_state(torch, rng, kind, 2, 2, ())
        our_inputs.append(our_state)
        their_inputs.append(their_state)
    _compare(torch, ours, theirs, our_inputs, their_inputs, rng)


@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("with_state", [False, True])
def test_lstm_projection_matches_torch(torch, bidirectional, with_state):
    rng = np.random.default_rng(5)
    ours, theirs = _make(torch, "LSTM", num_layers=2, bidirectional=bidirectional, proj_size=2)
    our_x, their_x = _leaf_pair(torch, rng.standard_normal((TIME, BATCH, INPUT)))
    our_inputs, their_inputs = [our_x], [their_x]
    if with_state:
        our_state, their_state = _initial_state(torch, rng, "LSTM", 2, 1 + bidirectional, (BATCH,), proj_size=2)
        our_inputs.append(our_state)
        their_inputs.append(their_state)
    _compare(torch, ours, theirs, our_inputs, their_inputs, rng)


@pytest.mark.parametrize("kind,nonlinearity", KINDS)
@pytest.mark.parametrize("train", [True, False])
def test_without_bias_and_in_both_modes(torch, kind, nonlinearity, train):
    rng = np.random.default_rng(6)
    options = {"bias": False, "num_layers": 2}
    if nonlinearity:
        options["nonlinearity"] = nonlinearity
    ours, theirs = _make(torch, kind, **options)
    ours.train(train)
    theirs.train(train)
    assert [name for name, _ in ours.named_parameters()] == [name for name, _ in theirs.named_parameters()]
    our_x, their_x = _leaf_pair(torch, rng.standard_normal((TIME, BATCH, INPUT)))
    _compare(torch, ours, theirs, [our_x], [their_x], rng)


def test_dropout_between_layers():
    layer = nn.LSTM(INPUT, HIDDEN, num_layers=2, dropout=0.5).double()
    x = minitorch.randn(TIME, BATCH, INPUT, dtype=minitorch.float64)
    minitorch.manual_seed(3)
    first = layer(x)[0]
    minitorch.manual_seed(3)
    again = layer(x)[0]
    np.testing.assert_array_equal(first.detach().numpy(), again.detach().numpy())  # reproducible under manual_seed
    layer.eval()
    evaluated = layer(x)[0]
    assert not np.allclose(first.detach().numpy(), evaluated.detach().numpy())  # dropout was on in training
    np.testing.assert_array_equal(evaluated.detach().numpy(), layer(x)[0].detach().numpy())  # and off in eval
    # Dropout after the last layer would change the final hidden state of layer 2 too; it must not be there.
    layer.train()
    minitorch.manual_seed(4)
    output, (hidden, _) = layer(x)
    np.testing.assert_allclose(output[-1].detach().numpy(), hidden[-1].detach().numpy())


def test_dropout_with_one_layer_warns_like_torch(torch):
    for lib in (minitorch, torch):
        with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
            lib.nn.GRU(INPUT, HIDDEN, dropout=0.2)


# -- cells ------------------------------------------------------------------------------------------
CELLS = [("RNNCell", "tanh"), ("RNNCell", "relu"), ("LSTMCell", None), ("GRUCell", None)]


@pytest.mark.parametrize("kind,nonlinearity", CELLS)
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("with_state", [False, True])
@pytest.mark.parametrize("bias", [True, False])
def test_cells_match_torch(torch, kind, nonlinearity, batched, with_state, bias):
    rng = np.random.default_rng(9)
    extra = {"nonlinearity": nonlinearity} if nonlinearity else {}
    torch.manual_seed(1)
    theirs = getattr(torch.nn, kind)(INPUT, HIDDEN, bias=bias, **extra).double()
    ours = getattr(nn, kind)(INPUT, HIDDEN, bias=bias, **extra).double()
    _copy_parameters(ours, theirs)
    batch_shape = (BATCH,) if batched else ()
    our_x, their_x = _leaf_pair(torch, rng.standard_normal((*batch_shape, INPUT)))
    our_inputs, their_inputs = [our_x], [their_x]
    if with_state:
        our_h, their_h = _leaf_pair(torch, rng.standard_normal((*batch_shape, HIDDEN)))
        if kind == "LSTMCell":
            our_c, their_c = _leaf_pair(torch, rng.standard_normal((*batch_shape, HIDDEN)))
            our_inputs.append((our_h, our_c))
            their_inputs.append((their_h, their_c))
        else:
            our_inputs.append(our_h)
            their_inputs.append(their_h)
    _compare(torch, ours, theirs, our_inputs, their_inputs, rng)


def test_a_cell_unrolled_equals_the_layer(torch):
    """Running LSTMCell step by step gives what LSTM gives over the whole sequence (same weights)."""
    layer = nn.LSTM(INPUT, HIDDEN).double()
    cell = nn.LSTMCell(INPUT, HIDDEN).double()
    cell.load_state_dict({name[:-3]: value for name, value in layer.state_dict().items()})
    x = minitorch.randn(TIME, BATCH, INPUT, dtype=minitorch.float64)
    output, (hidden, state) = layer(x)
    h = c = minitorch.zeros(BATCH, HIDDEN, dtype=minitorch.float64)
    for time in range(TIME):
        h, c = cell(x[time], (h, c))
        np.testing.assert_allclose(h.detach().numpy(), output[time].detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(c.detach().numpy(), state[0].detach().numpy(), rtol=1e-12)


# -- gradcheck ----------------------------------------------------------------------------------------
def _random(rng, *shape):
    return minitorch.from_numpy(rng.standard_normal(shape)).requires_grad_()


def test_gradcheck_cell_steps():
    rng = np.random.default_rng(12)
    x, h, c = _random(rng, 2, 3), _random(rng, 2, 4), _random(rng, 2, 4)
    w_ih, w_hh, b_ih, b_hh = _random(rng, 16, 3), _random(rng, 16, 4), _random(rng, 16), _random(rng, 16)
    assert minitorch.autograd.gradcheck(
        lambda *args: F._lstm_cell(args[0], (args[1], args[2]), *args[3:]), (x, h, c, w_ih, w_hh, b_ih, b_hh)
    )
    w_ih3, w_hh3, b_ih3, b_hh3 = _random(rng, 12, 3), _random(rng, 12, 4), _random(rng, 12), _random(rng, 12)
    assert minitorch.autograd.gradcheck(F._gru_cell, (x, h, w_ih3, w_hh3, b_ih3, b_hh3))
    assert minitorch.autograd.gradcheck(F._gru_cell, (x, h, w_ih3, w_hh3, None, None))
    w_ih1, w_hh1, b_ih1, b_hh1 = _random(rng, 4, 3), _random(rng, 4, 4), _random(rng, 4), _random(rng, 4)

    def rnn_cell(*args):
        return F._rnn_cell(*args, "tanh")

    assert minitorch.autograd.gradcheck(rnn_cell, (x, h, w_ih1, w_hh1, b_ih1, b_hh1))
    assert minitorch.autograd.gradgradcheck(rnn_cell, (x, h, w_ih1, w_hh1, b_ih1, b_hh1))


@pytest.mark.parametrize("mode,gates", [("LSTM", 4), ("GRU", 3)])
@pytest.mark.parametrize("reverse", [False, True])
def test_gradcheck_whole_sequence(mode, gates, reverse):
    """The fused sequence ops (backpropagation through time written by hand) against finite differences."""
    rng = np.random.default_rng(13)
    x = _random(rng, 3, 2, 3)
    weights = [_random(rng, gates * 2, 3), _random(rng, gates * 2, 2), _random(rng, gates * 2), _random(rng, gates * 2)]
    h0 = _random(rng, 2, 2, 2)
    c0 = _random(rng, 2, 2, 2)

    def run(x, h0, c0, *weights):
        hx = (h0, c0) if mode == "LSTM" else h0
        # bidirectional: the second direction runs in reverse; ``reverse`` picks which output to check
        results = F._recurrent(mode, x, hx, list(weights) * 2, True, 1, 0.0, False, True, False)
        output = results[0]
        return (output[..., 2:] if reverse else output[..., :2]), *results[1:]

    assert minitorch.autograd.gradcheck(run, (x, h0, c0, *weights))


def test_lstm_step_backward_in_place_is_the_plain_step_backward():
    """The in-place step backward the ops run gives the numbers of the plain one written beside it."""
    from minitorch.ops import recurrent

    rng = np.random.default_rng(0)
    gates = rng.standard_normal((BATCH, 4 * HIDDEN))
    hidden, cell = rng.standard_normal((BATCH, HIDDEN)), rng.standard_normal((BATCH, HIDDEN))
    weight_hh = rng.standard_normal((4 * HIDDEN, HIDDEN))
    _, _, activated, tanh_cell = recurrent._lstm_step_forward(np, gates, hidden, cell, weight_hh.T)
    grad_hidden, grad_cell = rng.standard_normal((BATCH, HIDDEN)), rng.standard_normal((BATCH, HIDDEN))
    arguments = (np, grad_hidden, grad_cell, cell, weight_hh, activated, tanh_cell)
    plain = recurrent._lstm_step_backward(*arguments)
    in_place = recurrent._lstm_step_backward_in_place(*arguments)
    for ours, reference in zip(in_place, plain, strict=True):
        np.testing.assert_allclose(ours, reference, rtol=1e-14, atol=0)


def test_gru_step_backward_in_place_is_the_plain_step_backward():
    from minitorch.ops import recurrent

    rng = np.random.default_rng(1)
    gates = rng.standard_normal((BATCH, 3 * HIDDEN))
    hidden = rng.standard_normal((BATCH, HIDDEN))
    weight_hh, bias_hh = rng.standard_normal((3 * HIDDEN, HIDDEN)), rng.standard_normal(3 * HIDDEN)
    _, reset_and_update, candidate, hidden_candidate = recurrent._gru_step_forward(
        np, gates, hidden, weight_hh.T, bias_hh
    )
    arguments = (np, rng.standard_normal((BATCH, HIDDEN)), hidden, weight_hh, reset_and_update, candidate,
                 hidden_candidate)
    plain = recurrent._gru_step_backward(*arguments)
    in_place = recurrent._gru_step_backward_in_place(*arguments)
    for ours, reference in zip(in_place, plain, strict=True):
        np.testing.assert_allclose(ours, reference, rtol=1e-12, atol=1e-15)


def test_double_backward_through_lstm_says_why_it_fails():
    rng = np.random.default_rng(14)
    layer = nn.LSTM(3, 2).double()
    x = _random(rng, 2, 1, 3)
    output, _ = layer(x)
    (grad_x,) = minitorch.autograd.grad(output.sum(), x, create_graph=True)
    with pytest.raises(RuntimeError, match="trying to differentiate twice a function that was marked with "
                                           "@once_differentiable"):
        grad_x.sum().backward()


# -- structure: names, state_dict keys, repr, default initialisation ------------------------------------
@pytest.mark.parametrize("kind,options", [
    ("RNN", {}), ("RNN", {"num_layers": 3, "bidirectional": True, "nonlinearity": "relu"}),
    ("LSTM", {"num_layers": 2, "bias": False}), ("LSTM", {"num_layers": 2, "bidirectional": True, "proj_size": 3}),
    ("GRU", {"num_layers": 2, "bidirectional": True, "batch_first": True, "dropout": 0.25}),
])
def test_state_dict_keys_shapes_and_repr_match_torch(torch, kind, options):
    ours = getattr(nn, kind)(INPUT, HIDDEN, **options)
    theirs = getattr(torch.nn, kind)(INPUT, HIDDEN, **options)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for (name, ours_value), theirs_value in zip(ours.state_dict().items(), theirs.state_dict().values()):
        assert tuple(ours_value.shape) == tuple(theirs_value.shape), name
    assert repr(ours) == repr(theirs)
    assert [[tuple(w.shape) for w in group] for group in ours.all_weights] == [
        [tuple(w.shape) for w in group] for group in theirs.all_weights
    ]


@pytest.mark.parametrize("kind,options", [("RNNCell", {"nonlinearity": "relu", "bias": False}), ("LSTMCell", {}),
                                          ("GRUCell", {"bias": False})])
def test_cell_state_dict_and_repr_match_torch(torch, kind, options):
    ours, theirs = getattr(nn, kind)(INPUT, HIDDEN, **options), getattr(torch.nn, kind)(INPUT, HIDDEN, **options)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert repr(ours) == repr(theirs)


def test_default_initialisation_is_uniform_in_plus_minus_one_over_sqrt_hidden():
    minitorch.manual_seed(0)
    layer = nn.LSTM(8, 100, num_layers=2)
    bound = 1 / np.sqrt(100)
    values = np.concatenate([p.detach().numpy().ravel() for p in layer.parameters()])
    assert values.min() >= -bound and values.max() <= bound
    assert values.min() < -0.9 * bound and values.max() > 0.9 * bound
    assert abs(values.mean()) < 0.01 * bound * 10


def test_float32_by_default_and_device_dtype_arguments():
    layer = nn.GRU(3, 4)
    assert all(p.dtype == minitorch.float32 for p in layer.parameters())
    output, hidden = layer(minitorch.randn(2, 5, 3))
    assert output.dtype == minitorch.float32 and tuple(hidden.shape) == (1, 5, 4)
    assert all(p.dtype == minitorch.float64 for p in nn.LSTM(3, 4, dtype=minitorch.float64).parameters())


# -- errors in PyTorch's words ----------------------------------------------------------------------------------
def _error(call):
    try:
        call()
    except Exception as error:  # noqa: BLE001 - the type is what is compared
        return type(error).__name__, str(error).replace("minitorch.", "torch.")
    return None


ERROR_CASES = [
    lambda lib: lib.nn.LSTM(4, 5)(lib.ones(2, 3, 3)),
    lambda lib: lib.nn.RNN(4, 5)(lib.ones(2, 3, 3)),
    lambda lib: lib.nn.GRU(4, 5, batch_first=True)(lib.ones(2, 3, 5)),
    lambda lib: lib.nn.LSTM(4, 5)(lib.ones(2, 3, 4), (lib.ones(1, 3, 6), lib.ones(1, 3, 5))),
    lambda lib: lib.nn.LSTM(4, 5)(lib.ones(2, 3, 4), (lib.ones(1, 3, 5), lib.ones(1, 2, 5))),
    lambda lib: lib.nn.GRU(4, 5)(lib.ones(2, 3, 4), lib.ones(2, 3, 5)),
    lambda lib: lib.nn.RNN(4, 5, num_layers=2)(lib.ones(2, 3, 4), lib.ones(2, 4, 5)),
    lambda lib: lib.nn.RNN(4, 5)(lib.ones(2, 3, 4), lib.ones(3, 5)),
    lambda lib: lib.nn.RNN(4, 5)(lib.ones(2, 4), lib.ones(1, 1, 5)),
    lambda lib: lib.nn.LSTM(4, 5)(lib.ones(2, 4), (lib.ones(1, 1, 5), lib.ones(1, 1, 5))),
    lambda lib: lib.nn.LSTM(4, 5)(lib.ones(2, 3, 4), (lib.ones(1, 5), lib.ones(1, 5))),
    lambda lib: lib.nn.LSTM(4, 5)(lib.ones(2, 3, 4, dtype=lib.float64)),
    lambda lib: lib.nn.RNN(4, 5)(lib.ones(2, 3, 4, 1)),
    lambda lib: lib.nn.LSTM(4, 5)(lib.ones(4)),
    lambda lib: lib.nn.GRU(4, 5)(lib.ones(2, 3, 4, 1)),
    lambda lib: lib.nn.LSTM(4, 5)(lib.ones(0, 3, 4)),
    lambda lib: lib.nn.RNN(4, 5, nonlinearity="sigmoid"),
    lambda lib: lib.nn.GRU(4, 5, proj_size=2),
    lambda lib: lib.nn.LSTM(4, 5, proj_size=5),
    lambda lib: lib.nn.LSTM(4, 5, proj_size=-1),
    lambda lib: lib.nn.LSTM(4, 5, dropout=1.5),
    lambda lib: lib.nn.LSTM(4, 0),
    lambda lib: lib.nn.LSTM(4, 5, num_layers=0),
    lambda lib: lib.nn.LSTM(4.0, 5),
    lambda lib: lib.nn.LSTMCell(4, 5)(lib.ones(2, 3)),
    lambda lib: lib.nn.LSTMCell(4, 5)(lib.ones(2, 4), (lib.ones(3, 5), lib.ones(3, 5))),
    lambda lib: lib.nn.LSTMCell(4, 5)(lib.ones(2, 4), (lib.ones(2, 6), lib.ones(2, 5))),
    lambda lib: lib.nn.LSTMCell(4, 5)(lib.ones(2, 4), (lib.ones(2, 5), lib.ones(2, 6))),
    lambda lib: lib.nn.LSTMCell(4, 5)(lib.ones(2, 4), (lib.ones(2, 5, 1), lib.ones(2, 5))),
    lambda lib: lib.nn.GRUCell(4, 5)(lib.ones(2, 4), lib.ones(2, 6)),
    lambda lib: lib.nn.GRUCell(4, 5)(lib.ones(2, 4, 1)),
    lambda lib: lib.nn.RNNCell(4, 5)(lib.ones(2, 4), lib.ones(3, 5)),
    lambda lib: lib.nn.RNNCell(4, 5)(lib.ones(2, 4), lib.ones(2, 5, 1)),
    lambda lib: lib.nn.RNNCell(4, 5, nonlinearity="sigmoid")(lib.ones(2, 4)),
]


@pytest.mark.parametrize("case", range(len(ERROR_CASES)))
def test_errors_match_torch(torch, case):
    expected = _error(lambda: ERROR_CASES[case](torch))
    assert expected is not None
    assert _error(lambda: ERROR_CASES[case](minitorch)) == expected


@pytest.mark.parametrize("reverse", [False, True])
def test_lstm_sequence_forward_in_place_is_the_plain_sequence_forward(reverse):
    """The in-place loop the LSTM layer runs (one tanh for all four gates) gives the numbers of the plain
    loop of ``_lstm_step_forward`` written beside it."""
    from minitorch.ops import recurrent

    rng = np.random.default_rng(2)
    steps = 5
    input_gates = rng.standard_normal((steps, BATCH, 4 * HIDDEN))
    hidden, cell = rng.standard_normal((BATCH, HIDDEN)), rng.standard_normal((BATCH, HIDDEN))
    weight_hh = rng.standard_normal((4 * HIDDEN, HIDDEN))
    arguments = (np, input_gates, hidden, cell, weight_hh, reverse)
    plain = recurrent._lstm_sequence_forward(*arguments)
    in_place = recurrent._lstm_sequence_forward_in_place(*arguments)
    for ours, reference in zip(in_place, plain, strict=True):
        np.testing.assert_allclose(ours, reference, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("reverse", [False, True])
def test_lstm_sequence_backward_in_place_is_the_plain_sequence_backward(reverse):
    """The backward the LSTM layer runs (each gate's factor computed for every step before the loop) gives the
    numbers of the plain loop of step backwards, and leaves the incoming gradients as they were."""
    from minitorch.ops import recurrent

    rng = np.random.default_rng(3)
    steps = 5
    input_gates = rng.standard_normal((steps, BATCH, 4 * HIDDEN))
    hidden, cell = rng.standard_normal((BATCH, HIDDEN)), rng.standard_normal((BATCH, HIDDEN))
    weight_hh = rng.standard_normal((4 * HIDDEN, HIDDEN))
    _, cells, activated, tanh_cells = recurrent._lstm_sequence_forward(
        np, input_gates, hidden, cell, weight_hh, reverse
    )
    grad_output = rng.standard_normal((steps, BATCH, HIDDEN))
    grad_hidden, grad_cell = rng.standard_normal((BATCH, HIDDEN)), rng.standard_normal((BATCH, HIDDEN))
    arguments = (np, grad_output, grad_hidden, grad_cell, weight_hh, cells, activated, tanh_cells, reverse)
    plain = recurrent._lstm_sequence_backward(*arguments)
    incoming = grad_hidden.copy(), grad_cell.copy()
    in_place = recurrent._lstm_sequence_backward_in_place(*arguments)
    np.testing.assert_array_equal(grad_hidden, incoming[0])
    np.testing.assert_array_equal(grad_cell, incoming[1])
    for ours, reference in zip(in_place, plain, strict=True):
        np.testing.assert_allclose(ours, reference, rtol=1e-12, atol=1e-14)
