"""Chapter 5's loss pieces of the learner's library: ``cross_entropy`` (exercise 1, the mean cross-entropy of
logits built stably from ``max``, ``exp``, ``sum`` and ``log``) and ``SoftmaxCrossEntropy`` (exercise 5, the same
loss as an autograd ``Function`` whose backward is the closed form the learner derives).

The fallbacks are minitorch's ``F.cross_entropy``, and for the ``Function`` a class with the same interface
(``SoftmaxCrossEntropy.apply(logits, targets)``) that calls it: the capstone trains on whichever it is handed.
"""

from __future__ import annotations

from grading.library import piece


class MinitorchSoftmaxCrossEntropy:
    """``apply(logits, targets)``: the mean cross-entropy of logits ``(N, C)`` against class indices ``(N,)``,
    by minitorch's ``F.cross_entropy`` (its backward is minitorch's too)."""

    @staticmethod
    def apply(logits, targets):
        import minitorch.nn.functional as F

        return F.cross_entropy(logits, targets)


def _minitorch_cross_entropy():
    import minitorch.nn.functional as F

    return F.cross_entropy


piece("cross_entropy", chapter="05_losses_and_optimizers", cells=("ch05-cross-entropy",),
      checks={"ch05.cross_entropy": "cross_entropy"}, fallback=_minitorch_cross_entropy)  # fmt: skip
piece("SoftmaxCrossEntropy", chapter="05_losses_and_optimizers", cells=("ch05-softmax-cross-entropy",),
      checks={"ch05.softmax_cross_entropy_with_grad": "softmax_cross_entropy_with_grad"},
      fallback=lambda: MinitorchSoftmaxCrossEntropy)  # fmt: skip
