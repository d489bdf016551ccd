"""``minitorch.nn.functional``: the layers as plain functions (``import minitorch.nn.functional as F``).

Each layer's math lives here once; the ``nn.Module`` classes hold the parameters and
settings and call these functions in ``forward``.

Most activations are written with ordinary tensor operations, so autograd derives their
backward by itself. Two habits keep them numerically safe:

* a branch that ``where`` does *not* select still gets a gradient of zero, and zero times
  infinity is NaN; so the argument of ``exp`` in an unselected branch is clamped first
  (``exp(min(x, 0))`` in ELU) to keep it finite;
* softmax and log-softmax subtract the maximum before ``exp`` (in ``ops/nn_ops.py``).

    >>> import minitorch
    >>> import minitorch.nn.functional as F
    >>> F.relu(minitorch.tensor([-1.0, 2.0]))
    tensor([0., 2.])

The functions come one family per file, grouped as PyTorch's documentation groups ``torch.nn.functional``:

* ``convolution.py``: ``conv1d``... ``conv_transpose3d``, ``unfold``, ``fold``;
* ``pooling.py``: ``max_pool*``, ``avg_pool*``, ``adaptive_*_pool*``, ``max_unpool*``;
* ``attention.py``: ``scaled_dot_product_attention``, ``multi_head_attention_forward``;
* ``activation.py``: ``relu``, ``gelu``, ``softmax``... and the in-place forms (``relu_``);
* ``normalization.py``: ``batch_norm``, ``layer_norm``, ``group_norm``, ``rms_norm``, ``normalize``...;
* ``linear_functions.py``: ``linear`` (defined beside its op in ``ops/nn_ops.py``), ``bilinear``;
* ``dropout_functions.py``: ``dropout``, ``dropout1d``... ``feature_alpha_dropout``;
* ``sparse.py``: ``embedding``, ``embedding_bag``, ``one_hot``;
* ``distance.py``: ``pairwise_distance``, ``cosine_similarity``;
* ``loss.py``: ``mse_loss``, ``cross_entropy``, ``ctc_loss``... (every ``*_loss``);
* ``vision.py``: ``pad``, ``interpolate``, ``pixel_shuffle``, ``channel_shuffle``...;
* ``recurrent.py``: the loops behind ``nn.RNN``, ``nn.LSTM``, ``nn.GRU`` and their cells (no public name);
* ``_utils.py``: helpers that several families share.

(``linear`` and ``dropout`` name functions here, so their files carry PyTorch's heading instead.)
Each public function is decorated with ``minitorch._arguments.public`` where it is defined (the
tensor-argument check PyTorch makes), so the names imported here are the checked functions.
"""

from ..._tensor import Tensor  # torch.nn.functional.Tensor, as in PyTorch

# convolution functions
from .convolution import conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d, conv_transpose3d, fold, unfold
# pooling functions
from .pooling import (
    adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d, adaptive_max_pool1d, adaptive_max_pool2d,
    avg_pool1d, avg_pool2d, avg_pool3d, max_pool1d, max_pool1d_with_indices, max_pool2d, max_pool2d_with_indices,
    max_pool3d, max_unpool1d, max_unpool2d,
)
# attention mechanisms
from .attention import multi_head_attention_forward, scaled_dot_product_attention
# non-linear activation functions
from .activation import (
    celu, celu_, elu, elu_, gelu, glu, gumbel_softmax, hardshrink, hardsigmoid, hardswish, hardtanh, hardtanh_,
    leaky_relu, leaky_relu_, log_softmax, logsigmoid, mish, prelu, relu, relu6, relu_, rrelu, rrelu_, selu, selu_,
    sigmoid, silu, softmax, softmin, softplus, softshrink, softsign, tanh, tanhshrink, threshold, threshold_,
)
# normalization functions
from .normalization import batch_norm, group_norm, instance_norm, layer_norm, local_response_norm, normalize, rms_norm
# linear functions
from .linear_functions import bilinear, linear
# dropout functions
from .dropout_functions import alpha_dropout, dropout, dropout1d, dropout2d, dropout3d, feature_alpha_dropout
# sparse functions
from .sparse import embedding, embedding_bag, one_hot
# distance functions
from .distance import cosine_similarity, pairwise_distance
# loss functions
from .loss import (
    binary_cross_entropy, binary_cross_entropy_with_logits, cosine_embedding_loss, cross_entropy, ctc_loss,
    gaussian_nll_loss, hinge_embedding_loss, huber_loss, kl_div, l1_loss, margin_ranking_loss, mse_loss,
    multi_margin_loss, multilabel_margin_loss, multilabel_soft_margin_loss, nll_loss, poisson_nll_loss, smooth_l1_loss,
    soft_margin_loss, triplet_margin_loss,
)
# vision functions
from .vision import (
    affine_grid, channel_shuffle, grid_sample, interpolate, native_channel_shuffle, pad, pixel_shuffle,
    pixel_unshuffle, upsample, upsample_bilinear, upsample_nearest,
)

# Not PyTorch's: helpers that nn/modules/ (and the course) call as ``F._name``.
from .attention import _canonical_mask, _none_or_dtype
from .loss import _legacy_reduction
from .recurrent import _gru_cell, _lstm_cell, _recurrent, _rnn_cell
from .sparse import _wrap_padding_idx
from .vision import _interpolation_matrix
