"""Attention mechanisms: ``scaled_dot_product_attention`` and ``multi_head_attention_forward`` (what
``nn.MultiheadAttention`` and the transformer layers call), with the mask conversions they share.
"""

from __future__ import annotations

import math
import warnings

from ... import _arguments, _dtype
from ..._creation import zeros as _zeros, zeros_like as _zeros_like
from ..._device import get_backend
from ..._tensor import Tensor
from ...amp.autocast_mode import autocast_inputs
from ...ops.shape import cat as _cat
from ._utils import _where
from .activation import softmax
from .dropout_functions import dropout
from .linear_functions import linear

# Each function below is decorated with ``_arguments.public``: its tensor argument is checked the way PyTorch
# does, before the function runs (minitorch/_arguments.py).
__all__ = [
    "scaled_dot_product_attention", "multi_head_attention_forward",
]


def _causal_mask(target_length: int, source_length: int, device) -> Tensor:
    """``True`` where query ``i`` may look at key ``j``: ``j <= i`` (the lower triangle)."""
    xp = get_backend(device.type).array_module  # made where the scores are: no copy from the host per call
    with get_backend(device.type).use_device(device.index or 0):
        allowed = xp.tril(xp.ones((target_length, source_length), dtype=bool))
    return Tensor._make(allowed, device)


def _softmax_rows_may_be_masked(scores: Tensor) -> Tensor:
    """Softmax over the last dimension that gives 0, not NaN, in a row whose scores are all ``-inf``.

    Such a row (a query that may look at nothing) has no distribution; PyTorch's
    ``scaled_dot_product_attention`` returns zeros there. The row is zeroed before the
    softmax too, so no NaN appears on the way back either.
    """
    fully_masked = (scores == float("-inf")).all(-1, keepdim=True)
    # On the CPU, skip the two extra passes when no row is fully masked (the usual case). On a GPU, asking
    # would stop the device and copy a flag to the host on every call, so the guarded version always runs.
    if scores.device.type == "cpu" and not fully_masked.any():
        return softmax(scores, dim=-1)
    return _where(fully_masked, 0.0, softmax(_where(fully_masked, 0.0, scores), dim=-1))


@_arguments.public
@autocast_inputs("lower_precision_fp")
def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """``softmax(Q K^T * scale + mask) V``: each query takes a weighted average of the values.

    Shapes ``(..., L, E)`` for the query, ``(..., S, E)`` for the key and ``(..., S, Ev)``
    for the value; ``scale`` defaults to ``1 / sqrt(E)``, which keeps the scores' variance
    near 1 so the softmax does not saturate. ``attn_mask`` broadcasts to ``(..., L, S)``:
    a bool mask says which keys a query *may* attend to (``True`` = take part), a float
    mask is added to the scores (``-inf`` excludes). ``is_causal`` lets query ``i`` see
    keys ``0..i`` only. ``dropout_p`` drops attention weights (always: there is no
    ``training`` flag here). With ``enable_gqa``, each key/value head serves a group of
    query heads (dimension -3).

        >>> import minitorch
        >>> q = minitorch.ones(1, 2, 4)
        >>> minitorch.nn.functional.scaled_dot_product_attention(q, q, q).shape
        minitorch.Size([1, 2, 4])
    """
    _check_attention_mask(query, attn_mask, is_causal)
    target_length, source_length = query.shape[-2], key.shape[-2]
    scale_factor = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    if enable_gqa and key.dim() >= 3 and key.shape[-3] != query.shape[-3]:
        key, value = (_repeat_heads(t, query.shape[-3] // key.shape[-3]) for t in (key, value))
    scores = query.matmul(key.transpose(-2, -1)) * scale_factor
    if is_causal:
        attn_mask = _causal_mask(target_length, source_length, query.device)
    if attn_mask is not None:
        if attn_mask.dtype == _dtype.bool:
            scores = scores.masked_fill(attn_mask.logical_not(), float("-inf"))
        else:
            scores = scores + attn_mask
        weights = _softmax_rows_may_be_masked(scores)
    else:
        weights = softmax(scores, dim=-1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    output = weights.matmul(value)
    if output.dim() == 4 and not query.is_contiguous():
        # For a query that is not contiguous (heads split off a projection, then transposed), PyTorch's
        # CPU kernel writes the (N, H, L, E) result as (N, L, H, E) in memory and returns it transposed;
        # code written against it merges the heads with ``y.transpose(1, 2).view(N, L, H * E)``, which
        # needs exactly that layout.
        output = output.transpose(1, 2).contiguous().transpose(1, 2)
    return output


def _check_attention_mask(query: Tensor, attn_mask: Tensor | None, is_causal: bool) -> None:
    """PyTorch's errors for a mask given with ``is_causal``, and for a mask neither bool nor float."""
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if attn_mask is not None and attn_mask.dtype != _dtype.bool and not attn_mask.is_floating_point():
        raise RuntimeError(
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: "
            f"{attn_mask.dtype.cpp_name} and  query.dtype: {query.dtype.cpp_name} instead."
        )


def _repeat_heads(tensor: Tensor, repeats: int) -> Tensor:
    """Repeat each head (dimension -3) ``repeats`` times in place: ``h0 h0 h1 h1`` (``repeat_interleave``)."""
    shape = tuple(tensor.shape)
    expanded = tensor.unsqueeze(-3).expand(*shape[:-2], repeats, *shape[-2:])
    return expanded.reshape(*shape[:-3], shape[-3] * repeats, *shape[-2:])


def _none_or_dtype(input: Tensor | None):
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _canonical_mask(mask: Tensor | None, mask_name: str, other_type, other_name: str, target_type,
                    check_other: bool = True) -> Tensor | None:
    """Turn a bool mask (``True`` = masked out) into the float mask that is added to scores: ``0`` or ``-inf``."""
    if mask is None:
        return None
    if mask.dtype != _dtype.bool and not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(
            f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both instead.",
            stacklevel=3,
        )
    if not mask.is_floating_point():
        mask = _zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def _mha_shape_check(query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None,
                     attn_mask: Tensor | None, num_heads: int) -> bool:
    """Whether the call is batched (3-D query) or not (2-D), with PyTorch's complaints about the other shapes."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but found "
                f"{key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError(
                "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                f"{attn_mask.dim()}-D tensor instead"
            )
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but found "
                f"{key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError(
                    "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                    f"{attn_mask.dim()}-D tensor instead"
                )
            expected_shape = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.dim() == 3 and tuple(attn_mask.shape) != expected_shape:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected_shape} but got {attn_mask.shape}")
        return False
    raise AssertionError(
        f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query tensor"
    )


def _in_projection_packed(q: Tensor, k: Tensor, v: Tensor, w: Tensor, b: Tensor | None = None) -> list:
    """Query, key and value projections with one stacked ``(3E, E)`` weight: ``[W_q; W_k; W_v]``.

    Self-attention (``q is k is v``) does all three in one matrix product and splits the result.
    """
    embed_dim = q.shape[-1]
    if k is v and q is k:
        projected = linear(q, w, b).unflatten(-1, (3, embed_dim))
        return list(projected.unbind(-2))
    if k is v:
        w_q, w_kv = w.split([embed_dim, embed_dim * 2])
        b_q, b_kv = (None, None) if b is None else b.split([embed_dim, embed_dim * 2])
        key_value = linear(k, w_kv, b_kv).unflatten(-1, (2, embed_dim))
        return [linear(q, w_q, b_q), *key_value.unbind(-2)]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return [linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)]


def _in_projection(q: Tensor, k: Tensor, v: Tensor, w_q: Tensor, w_k: Tensor, w_v: Tensor, b_q: Tensor | None = None,
                   b_k: Tensor | None = None, b_v: Tensor | None = None) -> tuple:
    """Query, key and value projections with separate weights (when key/value sizes differ from the query's)."""
    _check_in_projection(q, k, v, w_q, w_k, w_v, b_q, b_k, b_v)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _check_in_projection(q: Tensor, k: Tensor, v: Tensor, w_q: Tensor, w_k: Tensor, w_v: Tensor, b_q: Tensor | None,
                         b_k: Tensor | None, b_v: Tensor | None) -> None:
    """PyTorch's errors for separate projection weights or biases whose shapes do not fit the inputs."""
    query_size, key_size, value_size = q.shape[-1], k.shape[-1], v.shape[-1]
    for name, weight, expected in (("query", w_q, (query_size, query_size)), ("key", w_k, (query_size, key_size)),
                                   ("value", w_v, (query_size, value_size))):
        if tuple(weight.shape) != expected:
            raise AssertionError(f"expecting {name} weights shape of {expected}, but got {weight.shape}")
    for name, bias in (("query", b_q), ("key", b_k), ("value", b_v)):
        if bias is not None and tuple(bias.shape) != (query_size,):
            raise AssertionError(f"expecting {name} bias shape of {(query_size,)}, but got {bias.shape}")


def _append_zero_column(mask: Tensor) -> Tensor:
    """One more key position that nothing masks (for ``bias_k``/``bias_v`` and ``add_zero_attn``)."""
    return _cat([mask, _zeros(*mask.shape[:-1], 1, dtype=mask.dtype, device=mask.device)], -1)


@_arguments.public
def multi_head_attention_forward(
    query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
    in_proj_weight: Tensor | None, in_proj_bias: Tensor | None, bias_k: Tensor | None, bias_v: Tensor | None,
    add_zero_attn: bool, dropout_p: float, out_proj_weight: Tensor, out_proj_bias: Tensor | None,
    training: bool = True, key_padding_mask: Tensor | None = None, need_weights: bool = True,
    attn_mask: Tensor | None = None, use_separate_proj_weight: bool = False, q_proj_weight: Tensor | None = None,
    k_proj_weight: Tensor | None = None, v_proj_weight: Tensor | None = None, static_k: Tensor | None = None,
    static_v: Tensor | None = None, average_attn_weights: bool = True, is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """Multi-head attention on ``(L, N, E)`` query and ``(S, N, E_k)``, ``(S, N, E_v)`` key/value (or unbatched 2-D).

    1. Project: ``Q = query W_q^T + b_q``, likewise ``K`` and ``V`` (one stacked weight, or three).
    2. Split the ``E`` features into ``num_heads`` heads of ``E / num_heads``; each head attends
       on its own: ``softmax(Q_h K_h^T / sqrt(E / num_heads) + mask) V_h``.
    3. Put the heads side by side again and project with ``out_proj``.

    Masks: ``attn_mask`` is ``(L, S)`` or ``(N * num_heads, L, S)``; ``key_padding_mask`` is
    ``(N, S)``, ``True`` marking padding keys. A bool mask masks *out* where ``True``; a float
    mask is added to the scores. Returns the output and, if ``need_weights``, the attention
    weights ``(N, L, S)`` averaged over heads (or ``(N, num_heads, L, S)``).
    """
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:  # give everything a batch of one, and take it off again at the end
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    target_length, batch_size, embed_dim = query.shape
    source_length = key.shape[0]
    key_padding_mask, attn_mask, is_causal = _mha_masks(key_padding_mask, attn_mask, is_causal, need_weights,
                                                        query.dtype)
    head_dim = _check_multi_head_attention(query, key, value, embed_dim_to_check, num_heads, in_proj_weight,
                                           use_separate_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight)

    # 1. Projections.
    if not use_separate_proj_weight:
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, b_q, b_k, b_v)
    _check_attn_mask_and_key_biases(attn_mask, bias_k, bias_v, static_k, static_v, target_length, source_length,
                                    batch_size * num_heads)
    if attn_mask is not None and attn_mask.dim() == 2:
        attn_mask = attn_mask.unsqueeze(0)  # one mask for every (batch, head) pair

    # Optional extra key/value positions: learned biases, then a row of zeros.
    if bias_k is not None and bias_v is not None:
        k = _cat([k, bias_k.repeat(1, batch_size, 1)])
        v = _cat([v, bias_v.repeat(1, batch_size, 1)])
        if attn_mask is not None:
            attn_mask = _append_zero_column(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _append_zero_column(key_padding_mask)

    # 2. Heads: (length, batch, embed) -> (batch * heads, length, head_dim).
    q = q.reshape(target_length, batch_size * num_heads, head_dim).transpose(0, 1)
    k = _static_or_split(k, static_k, batch_size * num_heads, head_dim, "static_k")
    v = _static_or_split(v, static_v, batch_size * num_heads, head_dim, "static_v")
    if add_zero_attn:
        zero_row = _zeros(batch_size * num_heads, 1, head_dim, dtype=k.dtype, device=k.device)
        k, v = _cat([k, zero_row], 1), _cat([v, zero_row], 1)
        if attn_mask is not None:
            attn_mask = _append_zero_column(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _append_zero_column(key_padding_mask)
    source_length = k.shape[1]

    if key_padding_mask is not None:
        _check_key_padding_mask(key_padding_mask, source_length, batch_size)
        # One row per (batch, head) pair, matching the layout of q, k and v.
        key_padding_mask = (key_padding_mask.reshape(batch_size, 1, 1, source_length)
                            .expand(-1, num_heads, -1, -1).reshape(batch_size * num_heads, 1, source_length))
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask

    if not training:
        dropout_p = 0.0

    if need_weights:  # the attention weights are wanted: write the attention out step by step
        scores = (q * math.sqrt(1.0 / head_dim)).matmul(k.transpose(-2, -1))
        if attn_mask is not None:
            scores = scores + attn_mask
        weights = softmax(scores, dim=-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        attn_output = weights.matmul(v)
        attn_output = attn_output.transpose(0, 1).reshape(target_length * batch_size, embed_dim)
        attn_output = linear(attn_output, out_proj_weight, out_proj_bias)
        attn_output = attn_output.reshape(target_length, batch_size, attn_output.shape[1])
        weights = weights.reshape(batch_size, num_heads, target_length, source_length)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            attn_output, weights = attn_output.squeeze(1), weights.squeeze(0)
        return attn_output, weights

    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.reshape(batch_size, num_heads, -1, source_length)
    q = q.reshape(batch_size, num_heads, target_length, head_dim)
    k = k.reshape(batch_size, num_heads, source_length, head_dim)
    v = v.reshape(batch_size, num_heads, source_length, head_dim)
    attn_output = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    # 3. Heads side by side again, then the output projection.
    attn_output = attn_output.permute(2, 0, 1, 3).reshape(batch_size * target_length, embed_dim)
    attn_output = linear(attn_output, out_proj_weight, out_proj_bias)
    attn_output = attn_output.reshape(target_length, batch_size, attn_output.shape[1])
    if not is_batched:
        attn_output = attn_output.squeeze(1)
    return attn_output, None


def _mha_masks(key_padding_mask: Tensor | None, attn_mask: Tensor | None, is_causal: bool, need_weights: bool,
               dtype) -> tuple:
    """Both masks as float masks added to the scores (``_canonical_mask``), and whether the causal hint still holds.

    PyTorch's order: ``key_padding_mask`` is converted (and checked) first, then ``is_causal`` without
    an ``attn_mask`` is refused, then ``attn_mask`` is converted, unless ``scaled_dot_product_attention``
    will build the causal mask itself (no padding mask and no weights wanted).
    """
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask",
                                       dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer module method "
            "`generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        return key_padding_mask, None, is_causal
    attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", dtype, check_other=False)
    if key_padding_mask is not None:
        is_causal = False  # the masks are merged; the hint no longer describes them
    return key_padding_mask, attn_mask, is_causal


def _check_multi_head_attention(query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
                                in_proj_weight: Tensor | None, use_separate_proj_weight: bool,
                                q_proj_weight: Tensor | None, k_proj_weight: Tensor | None,
                                v_proj_weight: Tensor | None) -> int:
    """PyTorch's errors for sizes and weights that cannot make the projections; returns the head size.

    In this order: an embedding size other than ``embed_dim_to_check``, or one the heads do not divide;
    key and value that disagree (in shape, or with separate weights in length and batch); a
    missing projection weight.
    """
    embed_dim = query.shape[-1]
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(
                f"key's sequence and batch dims {key.shape[:2]} do not match value's {value.shape[:2]}"
            )
    elif tuple(key.shape) != tuple(value.shape):
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
    else:
        for name, weight in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if weight is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is None")
    return head_dim


def _check_attn_mask_and_key_biases(attn_mask: Tensor | None, bias_k: Tensor | None, bias_v: Tensor | None,
                                    static_k: Tensor | None, static_v: Tensor | None, target_length: int,
                                    source_length: int, rows: int) -> None:
    """PyTorch's errors for an ``attn_mask`` of the wrong shape (``rows`` is batch x heads), and for key/value
    biases given alone or together with a static key or value.

    These come after the projections, as in PyTorch: a projection weight of the wrong size
    (``_in_projection``, ``linear``) is reported first.
    """
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (target_length, source_length):
                raise RuntimeError(
                    f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                    f"{(target_length, source_length)}."
                )
        elif attn_mask.dim() == 3:
            expected = (rows, target_length, source_length)
            if tuple(attn_mask.shape) != expected:
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be {expected}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")


def _static_or_split(projected: Tensor, static: Tensor | None, rows: int, head_dim: int, name: str) -> Tensor:
    """``(S, batch, embed) -> (batch * heads, S, head_dim)``, or a precomputed ``static_k``/``static_v``."""
    if static is None:
        return projected.reshape(projected.shape[0], rows, head_dim).transpose(0, 1)
    _check_static(static, rows, head_dim, name)
    return static


def _check_static(static: Tensor, rows: int, head_dim: int, name: str) -> None:
    """PyTorch's errors for a ``static_k``/``static_v`` that is not ``(batch * heads, S, head_dim)``.

    Checked where it replaces the projection, as in PyTorch: an error reshaping the query
    (or, for ``static_v``, the key) into heads comes first.
    """
    if static.shape[0] != rows:
        raise AssertionError(f"expecting {name}.size(0) of {rows}, but got {static.shape[0]}")
    if static.shape[2] != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {static.shape[2]}")


def _check_key_padding_mask(key_padding_mask: Tensor, source_length: int, batch_size: int) -> None:
    """PyTorch's errors for a ``key_padding_mask`` that is not ``(batch, S)``.

    ``S`` counts the positions added by ``bias_k`` and ``add_zero_attn``, so this is checked after
    them, as in PyTorch: a ``bias_k`` of the wrong shape is reported first.
    """
    if key_padding_mask.shape[0] != batch_size:
        raise AssertionError(
            f"Expected key_padded_mask.shape[0] to be {batch_size}, but got {key_padding_mask.shape[0]}"
        )
    if key_padding_mask.shape[1] != source_length:
        raise AssertionError(
            f"Expected key_padded_mask.shape[1] to be {source_length}, but got {key_padding_mask.shape[1]}"
        )
