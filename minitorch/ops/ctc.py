"""Connectionist temporal classification (CTC): the loss of ``nn.CTCLoss``.

A model emits, at each of ``T`` time steps, log-probabilities over ``C`` classes, one of them a
``blank``. A target is a shorter label sequence such as ``"cat"``, with no timing. CTC scores
every *alignment* that reads as the target once repeated labels are merged and blanks dropped
(``"-cc-aat"`` and ``"c--a-tt"`` both read ``"cat"``), and the loss is ``-log`` of their summed
probability (Graves et al., 2006).

The sum over alignments is a dynamic programme over the *extended* target, blanks around and
between the labels (``- c - a - t -``, ``2S + 1`` states), in log space so that nothing underflows:

* forward:  ``alpha_t(s) = logsumexp(alpha_{t-1}(s), alpha_{t-1}(s-1), alpha_{t-1}(s-2)) + logp_t(l_s)``,
  the ``s - 2`` jump allowed only onto a label that differs from the label two states back (one
  cannot skip the blank between two equal letters); the loss is
  ``-logsumexp(alpha_{T-1}(2S), alpha_{T-1}(2S - 1))``.
* backward: ``beta_t(s)``, the same recursion from the end. ``alpha_t(s) + beta_t(s) - logp_t(l_s)``
  is the log-probability of the alignments passing through state ``s`` at step ``t``, so
  ``d loss / d logp_t(c) = -sum_{s: l_s = c} exp(alpha_t(s) + beta_t(s) - logp_t(l_s) + loss)``.

The loop runs over time; each step works on the whole batch and every state at once. Sequences of
different lengths share the loop: a sequence's loss is read at its own last step, and its
``beta`` starts there.
"""

from __future__ import annotations

import numpy as np

from .._tensor_base import TensorBase as Tensor  # isinstance and _make; the class sits above the ops
from ..autograd.function import Op, _first_order_only
from . import indexing
from ._util import array_module


def _extended_targets(xp, targets, target_lengths, blank: int):
    """``(N, 2S + 1)`` labels with blanks around and between them, which states exist, and where
    the ``s - 2`` jump is allowed."""
    batch, longest = targets.shape
    states = 2 * longest + 1
    extended = xp.full((batch, states), blank, dtype=xp.int64)
    extended[:, 1::2] = targets
    exists = xp.arange(states)[None, :] < (2 * target_lengths + 1)[:, None]
    may_skip = xp.zeros((batch, states), dtype=bool)
    may_skip[:, 2:] = (extended[:, 2:] != blank) & (extended[:, 2:] != extended[:, :-2])
    return extended, exists, may_skip


def _shifted(xp, values, by: int):
    """``values`` moved ``by`` states to the right (left if negative) along the last axis, ``-inf`` filling in."""
    result = xp.full_like(values, -xp.inf)
    if by > 0:
        result[:, by:] = values[:, :-by]
    else:
        result[:, :by] = values[:, -by:]
    return result


class CTCLoss(Op):
    """Per-sequence CTC losses ``(N,)`` of ``log_probs`` ``(T, N, C)`` (module docstring);
    ``dlog_probs[t, n, c] = grad_n * (exp(log_probs[t, n, c]) - posterior probability of class c at step t)``,
    PyTorch's: the true derivative is ``-posterior``; PyTorch adds ``exp(log_probs)``, which sums to a multiple of
    1 per step and so vanishes once the gradient has gone back through the ``log_softmax`` that made ``log_probs``.

    ``targets`` ``(N, S)`` padded, ``input_lengths`` and ``target_lengths`` ``(N,)``, all integer arrays.
    With ``zero_infinity``, an impossible target (loss ``inf``) gives loss 0 and gradient 0.
    """

    node_name = "CtcLossBackward0"

    @staticmethod
    def forward(ctx, log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
        xp = array_module(log_probs)
        steps, batch, _ = log_probs.shape
        extended, exists, may_skip = _extended_targets(xp, targets, target_lengths, blank)
        emissions = xp.take_along_axis(log_probs, extended[None], axis=2)  # (T, N, 2S + 1): logp_t(l_s)
        emissions = xp.where(exists[None], emissions, -xp.inf)
        alpha = xp.full(emissions.shape, -xp.inf, dtype=log_probs.dtype)
        alpha[0, :, :2] = emissions[0, :, :2]
        with np.errstate(invalid="ignore"):  # logaddexp(-inf, -inf) is -inf, as wanted
            for time in range(1, steps):
                previous = alpha[time - 1]
                reachable = xp.logaddexp(previous, _shifted(xp, previous, 1))
                reachable = xp.logaddexp(reachable, xp.where(may_skip, _shifted(xp, previous, 2), -xp.inf))
                alpha[time] = reachable + emissions[time]
        rows = xp.arange(batch)
        last = alpha[input_lengths - 1, rows]  # (N, 2S + 1): each sequence at its own last step
        ends = 2 * target_lengths
        with np.errstate(invalid="ignore"):
            log_likelihood = xp.logaddexp(last[rows, ends], xp.where(ends > 0, last[rows, ends - 1], -xp.inf))
        # no input steps at all: only an empty target can be read (probability 1), any other cannot
        without_input = xp.where(target_lengths == 0, 0.0, -xp.inf).astype(log_likelihood.dtype)
        log_likelihood = xp.where(input_lengths == 0, without_input, log_likelihood)
        losses = -log_likelihood
        ctx.infinite = xp.isinf(losses)
        if zero_infinity:
            losses = xp.where(ctx.infinite, xp.zeros((), dtype=losses.dtype), losses)
        ctx.zero_infinity = zero_infinity
        ctx.arrays = (alpha, emissions, extended, exists, may_skip, input_lengths, target_lengths, log_likelihood,
                      log_probs)
        ctx.shape = log_probs.shape
        return losses

    @staticmethod
    @_first_order_only
    def backward(ctx, grad_losses):
        alpha, emissions, extended, exists, may_skip, input_lengths, target_lengths, log_likelihood, log_probs = \
            ctx.arrays
        xp = array_module(alpha)
        steps, batch, _ = ctx.shape
        state = xp.arange(alpha.shape[2])[None, :]
        ends = (2 * target_lengths)[:, None]
        final_states = (state == ends) | ((state == ends - 1) & (ends > 0))  # an alignment ends in one of these
        may_skip_forward = xp.zeros_like(may_skip)
        may_skip_forward[:, :-2] = may_skip[:, 2:]  # the jump from s to s + 2, allowed where s + 2 allows it
        beta = xp.full(alpha.shape, -xp.inf, dtype=alpha.dtype)
        following = xp.full(alpha.shape[1:], -xp.inf, dtype=alpha.dtype)
        with np.errstate(invalid="ignore"):
            for time in range(steps - 1, -1, -1):
                reachable = xp.logaddexp(following, _shifted(xp, following, -1))
                reachable = xp.logaddexp(reachable, xp.where(may_skip_forward, _shifted(xp, following, -2), -xp.inf))
                reachable = xp.where((time == input_lengths - 1)[:, None] & final_states, 0.0, reachable)
                beta[time] = xp.where((time < input_lengths)[:, None], reachable + emissions[time], -xp.inf)
                following = beta[time]
            # log P(alignment passes state s at step t | target); emissions counted once
            # (NaN for an impossible target, whose likelihood is 0: as in PyTorch, unless zero_infinity)
            joint = xp.where(exists[None], alpha + beta - emissions, -xp.inf)  # states past the target: none
            posterior = xp.exp(joint - log_likelihood[None, :, None])
        within_input = (xp.arange(steps)[:, None] < input_lengths[None, :])[:, :, None]
        posterior = xp.where(within_input, posterior, xp.zeros((), dtype=posterior.dtype))  # steps past the input
        # PyTorch's gradient: exp(log_probs) - posterior, i.e. the gradient with respect to the *logits* of the
        # log_softmax that log_probs is assumed to come from (d/dz of log_softmax sends -posterior to it).
        grad = xp.where(within_input, xp.exp(log_probs), xp.zeros((), dtype=alpha.dtype))
        where = (xp.arange(steps)[:, None, None], xp.arange(batch)[None, :, None], extended[None])
        indexing._add_at(grad, tuple(xp.broadcast_arrays(*where)), -posterior)
        grad *= grad_losses._data[None, :, None]
        if ctx.zero_infinity:
            grad = xp.where(ctx.infinite[None, :, None], xp.zeros((), dtype=grad.dtype), grad)
        return Tensor._make(grad, grad_losses._device), None, None, None, None, None
