"""scaled_dot_product_attention, MultiheadAttention and the Transformer family against PyTorch (float64)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch import nn
from tests.support import require_torch

EMBED, HEADS, TARGET, SOURCE, BATCH = 6, 2, 3, 4, 2


@pytest.fixture
def torch():
    return require_torch()


def _pair(torch, array, requires_grad=True):
    ours, theirs = minitorch.from_numpy(array.copy()), torch.from_numpy(array.copy())
    if requires_grad:
        ours.requires_grad_()
        theirs.requires_grad_()
    return ours, theirs


def _close(ours, theirs, what=""):
    assert tuple(ours.shape) == tuple(theirs.shape), what
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6, atol=1e-12, err_msg=what)


def _copy_parameters(ours, theirs, torch):
    torch.manual_seed(0)
    with torch.no_grad():  # non-zero values everywhere (PyTorch starts some biases at zero)
        for parameter in theirs.parameters():
            parameter.uniform_(-0.5, 0.5)
    ours.load_state_dict({name: minitorch.tensor(value.detach().numpy())
                          for name, value in theirs.state_dict().items()})


def _backward_and_compare(torch, our_outputs, their_outputs, our_leaves, their_leaves, ours=None, theirs=None):
    rng = np.random.default_rng(99)
    our_loss = their_loss = 0
    for a, b in zip(our_outputs, their_outputs):
        if b is None:
            assert a is None
            continue
        _close(a, b, "output")
        weights = rng.standard_normal(tuple(b.shape))
        our_loss = our_loss + (a * minitorch.from_numpy(weights)).sum()
        their_loss = their_loss + (b * torch.from_numpy(weights)).sum()
    our_loss.backward()
    their_loss.backward()
    for index, (a, b) in enumerate(zip(our_leaves, their_leaves)):
        _close(a.grad, b.grad, f"gradient of input {index}")
    if ours is not None:
        their_parameters = dict(theirs.named_parameters())
        for name, parameter in ours.named_parameters():
            _close(parameter.grad, their_parameters[name].grad, name)


# -- scaled_dot_product_attention ------------------------------------------------------------------------
def _mask_for(torch, kind, shape, rng):
    if kind is None:
        return None, None
    if kind == "bool":
        allowed = rng.random(shape) > 0.3
        allowed[..., 0] = True  # every query may see at least one key
        return minitorch.from_numpy(allowed), torch.from_numpy(allowed)
    values = rng.standard_normal(shape)
    return minitorch.from_numpy(values), torch.from_numpy(values)


@pytest.mark.parametrize("mask", [None, "bool", "float"])
@pytest.mark.parametrize("mask_shape", [(TARGET, SOURCE), (BATCH, 1, TARGET, SOURCE)])
@pytest.mark.parametrize("scale", [None, 0.3])
def test_scaled_dot_product_attention_matches_torch(torch, mask, mask_shape, scale):
    rng = np.random.default_rng(1)
    q = _pair(torch, rng.standard_normal((BATCH, HEADS, TARGET, 5)))
    k = _pair(torch, rng.standard_normal((BATCH, HEADS, SOURCE, 5)))
    v = _pair(torch, rng.standard_normal((BATCH, HEADS, SOURCE, 3)))
    our_mask, their_mask = _mask_for(torch, mask, mask_shape, rng)
    ours = F.scaled_dot_product_attention(q[0], k[0], v[0], attn_mask=our_mask, scale=scale)
    theirs = torch.nn.functional.scaled_dot_product_attention(q[1], k[1], v[1], attn_mask=their_mask, scale=scale)
    _backward_and_compare(torch, [ours], [theirs], [q[0], k[0], v[0]], [q[1], k[1], v[1]])


@pytest.mark.parametrize("lengths", [(4, 4), (3, 5)])
def test_causal_attention_matches_torch(torch, lengths):
    rng = np.random.default_rng(2)
    target, source = lengths
    q = _pair(torch, rng.standard_normal((2, target, 4)))
    k = _pair(torch, rng.standard_normal((2, source, 4)))
    v = _pair(torch, rng.standard_normal((2, source, 4)))
    ours = F.scaled_dot_product_attention(q[0], k[0], v[0], is_causal=True)
    theirs = torch.nn.functional.scaled_dot_product_attention(q[1], k[1], v[1], is_causal=True)
    _backward_and_compare(torch, [ours], [theirs], [q[0], k[0], v[0]], [q[1], k[1], v[1]])


def test_attention_rows_with_nothing_to_see_are_zero_like_torch(torch):
    rng = np.random.default_rng(3)
    q = _pair(torch, rng.standard_normal((1, 3, 4)))
    allowed = np.ones((3, 3), dtype=bool)
    allowed[1] = False  # query 1 may look at no key at all
    ours = F.scaled_dot_product_attention(q[0], q[0], q[0], attn_mask=minitorch.from_numpy(allowed))
    theirs = torch.nn.functional.scaled_dot_product_attention(q[1], q[1], q[1], attn_mask=torch.from_numpy(allowed))
    assert np.all(ours.detach().numpy()[0, 1] == 0)
    _backward_and_compare(torch, [ours], [theirs], [q[0]], [q[1]])
    assert np.isfinite(q[0].grad.numpy()).all()


def test_grouped_query_attention_matches_torch(torch):
    rng = np.random.default_rng(4)
    q = _pair(torch, rng.standard_normal((1, 4, 3, 2)))
    k = _pair(torch, rng.standard_normal((1, 2, 3, 2)))
    v = _pair(torch, rng.standard_normal((1, 2, 3, 2)))
    ours = F.scaled_dot_product_attention(q[0], k[0], v[0], enable_gqa=True)
    theirs = torch.nn.functional.scaled_dot_product_attention(q[1], k[1], v[1], enable_gqa=True)
    _backward_and_compare(torch, [ours], [theirs], [q[0], k[0], v[0]], [q[1], k[1], v[1]])


def test_attention_dropout_is_reproducible_and_keeps_the_expectation():
    q = minitorch.randn(2, 5, 4, dtype=minitorch.float64)
    minitorch.manual_seed(5)
    first = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    minitorch.manual_seed(5)
    second = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    np.testing.assert_array_equal(first.numpy(), second.numpy())
    assert not np.allclose(first.numpy(), F.scaled_dot_product_attention(q, q, q).numpy())


def test_gradcheck_scaled_dot_product_attention():
    rng = np.random.default_rng(6)

    def make(*shape):
        return minitorch.from_numpy(rng.standard_normal(shape)).requires_grad_()

    q, k, v, bias = make(2, 3, 4), make(2, 5, 4), make(2, 5, 2), make(3, 5)
    allowed = minitorch.from_numpy(rng.random((3, 5)) > 0.4)
    assert minitorch.autograd.gradcheck(F.scaled_dot_product_attention, (q, k, v))
    assert minitorch.autograd.gradgradcheck(F.scaled_dot_product_attention, (q, k, v))
    assert minitorch.autograd.gradcheck(lambda q, k, v, b: F.scaled_dot_product_attention(q, k, v, b), (q, k, v, bias))
    assert minitorch.autograd.gradcheck(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, allowed), (q, k, v))
    q4 = make(2, 4, 3)
    assert minitorch.autograd.gradcheck(lambda q: F.scaled_dot_product_attention(q, q, q, is_causal=True), (q4,))


# -- MultiheadAttention -------------------------------------------------------------------------------------
def _mha_pair(torch, **options):
    theirs = torch.nn.MultiheadAttention(EMBED, HEADS, dtype=torch.float64, **options)
    ours = nn.MultiheadAttention(EMBED, HEADS, dtype=minitorch.float64, **options)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _copy_parameters(ours, theirs, torch)
    return ours, theirs


def _mha_masks(torch, kind, rng):
    """(our attn_mask, their attn_mask, our key_padding_mask, their key_padding_mask, is_causal)."""
    padding = np.zeros((BATCH, SOURCE), dtype=bool)
    padding[0, -1] = True
    if kind is None:
        return None, None, None, None, False
    if kind == "bool2d":
        mask = rng.random((TARGET, SOURCE)) > 0.7
        mask[:, 0] = False
        return minitorch.from_numpy(mask), torch.from_numpy(mask), None, None, False
    if kind == "float2d":
        mask = rng.standard_normal((TARGET, SOURCE))
        return minitorch.from_numpy(mask), torch.from_numpy(mask), None, None, False
    if kind == "float3d":
        mask = rng.standard_normal((BATCH * HEADS, TARGET, SOURCE))
        return minitorch.from_numpy(mask), torch.from_numpy(mask), None, None, False
    if kind == "padding":
        return None, None, minitorch.from_numpy(padding), torch.from_numpy(padding), False
    if kind == "float_padding":
        values = np.where(padding, -1e9, 0.0)
        return None, None, minitorch.from_numpy(values), torch.from_numpy(values), False
    if kind == "bool2d+padding":
        mask = rng.random((TARGET, SOURCE)) > 0.7
        mask[:, 0] = False
        return (minitorch.from_numpy(mask), torch.from_numpy(mask), minitorch.from_numpy(padding),
                torch.from_numpy(padding), False)
    raise AssertionError(kind)


@pytest.mark.parametrize("masks", [None, "bool2d", "float2d", "float3d", "padding", "float_padding",
                                   "bool2d+padding"])
@pytest.mark.parametrize("need_weights,average", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("batch_first", [False, True])
def test_multihead_attention_matches_torch(torch, masks, need_weights, average, batch_first):
    rng = np.random.default_rng(7)
    ours, theirs = _mha_pair(torch, batch_first=batch_first)
    shape = (lambda length: (BATCH, length, EMBED)) if batch_first else (lambda length: (length, BATCH, EMBED))
    q, k, v = (_pair(torch, rng.standard_normal(shape(n))) for n in (TARGET, SOURCE, SOURCE))
    our_attn, their_attn, our_pad, their_pad, _ = _mha_masks(torch, masks, rng)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        our_out = ours(q[0], k[0], v[0], key_padding_mask=our_pad, need_weights=need_weights, attn_mask=our_attn,
                       average_attn_weights=average)
        their_out = theirs(q[1], k[1], v[1], key_padding_mask=their_pad, need_weights=need_weights,
                           attn_mask=their_attn, average_attn_weights=average)
    _backward_and_compare(torch, our_out, their_out, [q[0], k[0], v[0]], [q[1], k[1], v[1]], ours, theirs)


@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("with_padding", [False, True])
def test_self_attention_causal_matches_torch(torch, need_weights, with_padding):
    rng = np.random.default_rng(8)
    ours, theirs = _mha_pair(torch, batch_first=True)
    x = _pair(torch, rng.standard_normal((BATCH, SOURCE, EMBED)))
    causal = nn.Transformer.generate_square_subsequent_mask(SOURCE, dtype=minitorch.float64)
    their_causal = torch.nn.Transformer.generate_square_subsequent_mask(SOURCE, dtype=torch.float64)
    padding = np.zeros((BATCH, SOURCE)) if with_padding else None
    our_pad = None if padding is None else minitorch.from_numpy(padding)
    their_pad = None if padding is None else torch.from_numpy(padding)
    our_out = ours(x[0], x[0], x[0], attn_mask=causal, is_causal=True, need_weights=need_weights,
                   key_padding_mask=our_pad)
    their_out = theirs(x[1], x[1], x[1], attn_mask=their_causal, is_causal=True, need_weights=need_weights,
                       key_padding_mask=their_pad)
    _backward_and_compare(torch, our_out, their_out, [x[0]], [x[1]], ours, theirs)


@pytest.mark.parametrize("options", [
    {"kdim": 4, "vdim": 3}, {"add_bias_kv": True}, {"add_zero_attn": True}, {"bias": False},
    {"add_bias_kv": True, "add_zero_attn": True, "kdim": 5},
])
@pytest.mark.parametrize("masks", [None, "bool2d+padding"])
def test_multihead_attention_options_match_torch(torch, options, masks):
    rng = np.random.default_rng(9)
    ours, theirs = _mha_pair(torch, **options)
    q = _pair(torch, rng.standard_normal((TARGET, BATCH, EMBED)))
    k = _pair(torch, rng.standard_normal((SOURCE, BATCH, options.get("kdim", EMBED))))
    v = _pair(torch, rng.standard_normal((SOURCE, BATCH, options.get("vdim", EMBED))))
    our_attn, their_attn, our_pad, their_pad, _ = _mha_masks(torch, masks, rng)
    our_out = ours(q[0], k[0], v[0], key_padding_mask=our_pad, attn_mask=our_attn)
    their_out = theirs(q[1], k[1], v[1], key_padding_mask=their_pad, attn_mask=their_attn)
    _backward_and_compare(torch, our_out, their_out, [q[0], k[0], v[0]], [q[1], k[1], v[1]], ours, theirs)


@pytest.mark.parametrize("need_weights", [True, False])
def test_unbatched_multihead_attention_matches_torch(torch, need_weights):
    rng = np.random.default_rng(10)
    ours, theirs = _mha_pair(torch)
    q = _pair(torch, rng.standard_normal((TARGET, EMBED)))
    kv = _pair(torch, rng.standard_normal((SOURCE, EMBED)))
    mask = rng.standard_normal((HEADS, TARGET, SOURCE))
    padding = np.array([0.0, 0.0, -1e9, 0.0])  # a float mask, like attn_mask
    our_out = ours(q[0], kv[0], kv[0], attn_mask=minitorch.from_numpy(mask),
                   key_padding_mask=minitorch.from_numpy(padding), need_weights=need_weights)
    their_out = theirs(q[1], kv[1], kv[1], attn_mask=torch.from_numpy(mask),
                       key_padding_mask=torch.from_numpy(padding), need_weights=need_weights)
    _backward_and_compare(torch, our_out, their_out, [q[0], kv[0]], [q[1], kv[1]], ours, theirs)


def test_multihead_attention_repr_and_default_initialisation(torch):
    ours, theirs = nn.MultiheadAttention(EMBED, HEADS), torch.nn.MultiheadAttention(EMBED, HEADS)
    assert repr(ours) == repr(theirs)
    assert np.all(ours.in_proj_bias.detach().numpy() == 0) and np.all(ours.out_proj.bias.detach().numpy() == 0)
    bound = np.sqrt(6 / (EMBED + 3 * EMBED))  # xavier_uniform_ of the stacked (3E, E) weight
    weights = ours.in_proj_weight.detach().numpy()
    assert np.abs(weights).max() <= bound and np.abs(weights).max() > 0.8 * bound


# -- Transformer layers ---------------------------------------------------------------------------------------
def _transformer_pair(torch, kind, arguments, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's note about its nested-tensor fast path
        theirs = getattr(torch.nn, kind)(*arguments(torch), **options).double()
    ours = getattr(nn, kind)(*arguments(minitorch), **options).double()
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _copy_parameters(ours, theirs, torch)
    return ours, theirs


LAYER_OPTIONS = dict(dim_feedforward=8, dropout=0.0)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
@pytest.mark.parametrize("train", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
def test_transformer_encoder_matches_torch(torch, norm_first, activation, train, batch_first):
    rng = np.random.default_rng(11)

    def arguments(lib):
        layer = lib.nn.TransformerEncoderLayer(EMBED, HEADS, activation=activation, norm_first=norm_first,
                                               batch_first=batch_first, **LAYER_OPTIONS)
        return layer, 2, lib.nn.LayerNorm(EMBED)

    ours, theirs = _transformer_pair(torch, "TransformerEncoder", arguments)
    ours.train(train)
    theirs.train(train)
    src = _pair(torch, rng.standard_normal((BATCH, SOURCE, EMBED) if batch_first else (SOURCE, BATCH, EMBED)))
    padding = np.zeros((BATCH, SOURCE))
    padding[1, -1] = -1e9  # a float mask, like ``mask`` (PyTorch warns when the two kinds are mixed)
    mask = rng.standard_normal((SOURCE, SOURCE))
    our_out = ours(src[0], mask=minitorch.from_numpy(mask), src_key_padding_mask=minitorch.from_numpy(padding))
    their_out = theirs(src[1], mask=torch.from_numpy(mask), src_key_padding_mask=torch.from_numpy(padding))
    _backward_and_compare(torch, [our_out], [their_out], [src[0]], [src[1]], ours, theirs)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
@pytest.mark.parametrize("train", [False, True])
def test_transformer_decoder_matches_torch(torch, norm_first, activation, train):
    rng = np.random.default_rng(12)

    def arguments(lib):
        layer = lib.nn.TransformerDecoderLayer(EMBED, HEADS, activation=activation, norm_first=norm_first,
                                               **LAYER_OPTIONS)
        return layer, 2

    ours, theirs = _transformer_pair(torch, "TransformerDecoder", arguments)
    ours.train(train)
    theirs.train(train)
    tgt = _pair(torch, rng.standard_normal((TARGET, BATCH, EMBED)))
    memory = _pair(torch, rng.standard_normal((SOURCE, BATCH, EMBED)))
    our_causal = nn.Transformer.generate_square_subsequent_mask(TARGET, dtype=minitorch.float64)
    their_causal = torch.nn.Transformer.generate_square_subsequent_mask(TARGET, dtype=torch.float64)
    padding = np.zeros((BATCH, SOURCE), dtype=bool)
    padding[0, 0] = True
    our_out = ours(tgt[0], memory[0], tgt_mask=our_causal, memory_key_padding_mask=minitorch.from_numpy(padding))
    their_out = theirs(tgt[1], memory[1], tgt_mask=their_causal, memory_key_padding_mask=torch.from_numpy(padding))
    _backward_and_compare(torch, [our_out], [their_out], [tgt[0], memory[0]], [tgt[1], memory[1]], ours, theirs)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("train", [False, True])
def test_transformer_matches_torch(torch, norm_first, batch_first, train):
    rng = np.random.default_rng(13)

    def arguments(lib):
        return ()

    ours, theirs = _transformer_pair(
        torch, "Transformer", arguments, d_model=EMBED, nhead=HEADS, num_encoder_layers=2, num_decoder_layers=1,
        norm_first=norm_first, batch_first=batch_first, activation="gelu", **LAYER_OPTIONS,
    )
    ours.train(train)
    theirs.train(train)
    shape = (lambda length: (BATCH, length, EMBED)) if batch_first else (lambda length: (length, BATCH, EMBED))
    src, tgt = _pair(torch, rng.standard_normal(shape(SOURCE))), _pair(torch, rng.standard_normal(shape(TARGET)))
    our_causal = nn.Transformer.generate_square_subsequent_mask(TARGET, dtype=minitorch.float64)
    their_causal = torch.nn.Transformer.generate_square_subsequent_mask(TARGET, dtype=torch.float64)
    our_out = ours(src[0], tgt[0], tgt_mask=our_causal, tgt_is_causal=True)
    their_out = theirs(src[1], tgt[1], tgt_mask=their_causal, tgt_is_causal=True)
    _backward_and_compare(torch, [our_out], [their_out], [src[0], tgt[0]], [src[1], tgt[1]], ours, theirs)


def test_callable_activation_and_no_bias_match_torch(torch):
    rng = np.random.default_rng(14)

    def arguments(lib):
        return EMBED, HEADS

    ours, theirs = _transformer_pair(torch, "TransformerEncoderLayer", arguments, bias=False,
                                     layer_norm_eps=1e-3, **LAYER_OPTIONS)
    ours.activation, theirs.activation = minitorch.tanh, torch.tanh
    src = _pair(torch, rng.standard_normal((SOURCE, BATCH, EMBED)))
    _backward_and_compare(torch, [ours(src[0])], [theirs(src[1])], [src[0]], [src[1]], ours, theirs)


def test_unbatched_encoder_layer_matches_torch(torch):
    rng = np.random.default_rng(15)
    ours, theirs = _transformer_pair(torch, "TransformerEncoderLayer", lambda lib: (EMBED, HEADS), **LAYER_OPTIONS)
    src = _pair(torch, rng.standard_normal((SOURCE, EMBED)))
    _backward_and_compare(torch, [ours(src[0])], [theirs(src[1])], [src[0]], [src[1]], ours, theirs)


def test_transformer_state_dict_and_repr_match_torch(torch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = torch.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=2,
                                      dim_feedforward=16)
    ours = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=16)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for (name, value), their_value in zip(ours.state_dict().items(), theirs.state_dict().values()):
        assert tuple(value.shape) == tuple(their_value.shape), name
    assert repr(ours) == repr(theirs)
    # Each layer is an independent copy, not the same module repeated.
    first, second = ours.encoder.layers[0].linear1.weight, ours.encoder.layers[1].linear1.weight
    assert first is not second and not np.array_equal(first.detach().numpy(), second.detach().numpy())


def test_generate_square_subsequent_mask_matches_torch(torch):
    ours = nn.Transformer.generate_square_subsequent_mask(4)
    theirs = torch.nn.Transformer.generate_square_subsequent_mask(4)
    assert ours.dtype == minitorch.float32
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_dropout_in_training_only():
    layer = nn.TransformerEncoderLayer(EMBED, HEADS, dim_feedforward=8, dropout=0.5).double()
    x = minitorch.randn(SOURCE, BATCH, EMBED, dtype=minitorch.float64)
    minitorch.manual_seed(0)
    first = layer(x)
    minitorch.manual_seed(0)
    np.testing.assert_array_equal(first.detach().numpy(), layer(x).detach().numpy())
    layer.eval()
    evaluated = layer(x)
    assert not np.allclose(first.detach().numpy(), evaluated.detach().numpy())
    np.testing.assert_array_equal(evaluated.detach().numpy(), layer(x).detach().numpy())


# -- errors in PyTorch's words ---------------------------------------------------------------------------------
def _error(call):
    try:
        call()
    except Exception as error:  # noqa: BLE001 - the type is what is compared
        return type(error).__name__, str(error).replace("minitorch.", "torch.")
    return None


def _mha(lib):
    lib.manual_seed(0)
    return lib.nn.MultiheadAttention(4, 2)


ERROR_CASES = [
    lambda lib: _mha(lib)(lib.ones(3, 2, 4), lib.ones(3, 2, 4), lib.ones(3, 2, 4),
                          attn_mask=lib.ones(3, 5, dtype=lib.bool)),
    lambda lib: _mha(lib)(lib.ones(3, 2, 4), lib.ones(3, 2, 4), lib.ones(3, 2, 4),
                          attn_mask=lib.ones(5, 3, 3, dtype=lib.bool)),
    lambda lib: _mha(lib)(lib.ones(3, 2, 4), lib.ones(3, 2, 4), lib.ones(3, 2, 4),
                          attn_mask=lib.ones(2, 3, 3, 3)),
    lambda lib: _mha(lib)(lib.ones(3, 2, 4), lib.ones(3, 2, 4), lib.ones(3, 2, 4),
                          key_padding_mask=lib.ones(2, 4, dtype=lib.bool)),
    lambda lib: _mha(lib)(lib.ones(3, 2, 4), lib.ones(3, 2, 4), lib.ones(3, 2, 4),
                          key_padding_mask=lib.ones(3, 3, dtype=lib.bool)),
    lambda lib: _mha(lib)(lib.ones(3, 2, 4), lib.ones(3, 2, 4), lib.ones(3, 2, 4),
                          key_padding_mask=lib.ones(2, 3, 1, dtype=lib.bool)),
    lambda lib: _mha(lib)(lib.ones(3, 2, 4), lib.ones(3, 2, 4), lib.ones(3, 2, 4),
                          attn_mask=lib.ones(3, 3, dtype=lib.int64)),
    lambda lib: _mha(lib)(lib.ones(3, 2, 4), lib.ones(3, 2, 4), lib.ones(3, 2, 3)),
    lambda lib: _mha(lib)(lib.ones(3, 2, 4), lib.ones(3, 2, 4), lib.ones(3, 2, 4), is_causal=True),
    lambda lib: _mha(lib)(lib.ones(3, 2, 4), lib.ones(3, 4), lib.ones(3, 4)),
    lambda lib: _mha(lib)(lib.ones(3, 4), lib.ones(3, 4), lib.ones(3, 4), attn_mask=lib.ones(3, 3, 3)),
    lambda lib: _mha(lib)(lib.ones(3, 2, 3), lib.ones(3, 2, 3), lib.ones(3, 2, 3)),
    lambda lib: _mha(lib)(lib.ones(4), lib.ones(4), lib.ones(4)),
    lambda lib: lib.nn.MultiheadAttention(5, 2),
    lambda lib: lib.nn.MultiheadAttention(0, 2),
    lambda lib: lib.nn.functional.scaled_dot_product_attention(
        lib.ones(2, 3, 4), lib.ones(2, 3, 4), lib.ones(2, 3, 4), attn_mask=lib.ones(3, 3, dtype=lib.bool),
        is_causal=True),
    lambda lib: lib.nn.TransformerEncoderLayer(4, 2, activation="tanh"),
    lambda lib: lib.nn.Transformer(d_model=4, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                                   dim_feedforward=4)(lib.ones(3, 2, 4), lib.ones(3, 5, 4)),
    lambda lib: lib.nn.Transformer(d_model=4, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                                   dim_feedforward=4)(lib.ones(3, 2, 4), lib.ones(3, 2, 6)),
]


@pytest.mark.parametrize("case", range(len(ERROR_CASES)))
def test_errors_match_torch(torch, case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = _error(lambda: ERROR_CASES[case](torch))
    assert expected is not None
    assert _error(lambda: ERROR_CASES[case](minitorch)) == expected


@pytest.mark.parametrize("contiguous_query", [True, False])
def test_sdpa_output_layout_follows_pytorch(contiguous_query):
    """Heads split off a projection give an output whose heads merge with ``transpose(1, 2).view(...)``."""
    torch = require_torch()
    strides = []
    for lib in (minitorch, torch):
        x = lib.ones(2, 5, 96)
        q, k, v = (t.view(2, -1, 4, 8).transpose(1, 2) for t in x.chunk(3, -1))
        if contiguous_query:
            q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
        y = lib.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        strides.append(y.stride())
        if not contiguous_query:
            assert tuple(y.transpose(1, 2).view(2, -1, 32).shape) == (2, 5, 32)
    assert strides[0] == strides[1]
