"""Chapter 3 (devices and the GPU): device-aware creation, a device-generic function, moving a module.

The checks run each answer on the CPU *and* on a second device (``grading.devices.second_device``: the
GPU if there is one, else a ``cuda`` device backed by host memory), so a tensor made on the wrong device
or a result left behind shows up on any machine. Expected values are computed by the references below
from minitorch's own pieces (``F.softmax`` with a mask, ``nn.Module.to``), never written down.

Two exercises are checked through a report the notebook gives next to them (a case holds arrays and
numbers only, never a model or a device): ``causal_softmax_on_two_devices`` runs the learner's
``causal_softmax`` on both devices; ``module_to_report`` builds a nested model with BatchNorm buffers,
moves it with the learner's ``module_to`` and reports where everything went. The reference computes the
same report with minitorch's ``nn.Module.to``.
"""

import numpy as np

import minitorch
import minitorch.nn.functional as F
from grading.devices import causal_softmax_report, module_to_report
from grading.registry import exercise, randn


def _add_bias_column(x):
    ones = minitorch.ones(x.shape[0], 1, dtype=x.dtype, device=x.device)
    return minitorch.cat([x, ones], dim=1)


exercise(
    "ch03.add_bias_column",
    function="add_bias_column",
    reference=_add_bias_column,
    public=[
        (randn(4, 3, seed=300),),
        (randn(2, 5, seed=301, dtype="float64"),),
        (randn(3, 2, seed=302, dtype="float16"),),
    ],
    labels=["float32", "float64: the ones take x's dtype", "float16: the ones take x's dtype"],
    hints=[
        "Make the new column where x lives and in x's dtype, then join it to x on the right.",
        "The column has shape (n, 1) and holds ones; the result is [x | ones], shape (n, d + 1).",
        "Creation functions take dtype= and device= (read both from x); minitorch.cat joins along a dim.",
    ],
)


# -- build it: a device-generic function -----------------------------------------------------------------
def _reference_causal_softmax(scores):
    """Softmax over the last dimension, each row i seeing only the columns j <= i (minitorch's softmax)."""
    size = scores.shape[-1]
    future = minitorch.ones(size, size, dtype=minitorch.bool, device=scores.device).triu(1)
    return F.softmax(scores.masked_fill(future, float("-inf")), dim=-1)


exercise(
    "ch03.causal_softmax",
    function="causal_softmax_on_two_devices",
    reference=lambda scores: causal_softmax_report(_reference_causal_softmax, scores),
    public=[
        (randn(4, 4, seed=330),),
        (randn(2, 3, 5, 5, seed=331, dtype="float64"),),
        (randn(3, 6, 6, seed=332, scale=60.0),),
        (randn(2, 4, 4, seed=333, dtype="float16"),),
    ],
    labels=[
        "one (4, 4) matrix of scores",
        "a batch of heads (2, 3, 5, 5) in float64",
        "large scores (up to about 200): exp overflows float32 unless each row's largest score is subtracted first",
        "float16 scores: the result keeps the dtype of the scores",
    ],
    outputs=(
        "the result on the CPU",
        "the result on the second device, copied back",
        "each result on its input's device (1 = yes)",
    ),
    output_type="any",
    rtol=2e-3,
    atol=1e-4,
    withheld=(
        "minitorch.softmax", "minitorch.nn.functional.softmax", "minitorch.Tensor.softmax", "minitorch.nn.Softmax",
        "minitorch.ops.nn_ops.Softmax",  # the op under them, reachable directly
        # exp(log_softmax) is the softmax too
        "minitorch.nn.functional.log_softmax", "minitorch.Tensor.log_softmax", "minitorch.ops.nn_ops.LogSoftmax",
    ),
    hints=[
        "Row i may look at columns 0..i only: push the scores of the later columns to -inf before the softmax, so "
        "their exponentials are exactly 0. Every tensor you make (the mask) must be made on the device of the "
        "scores, so the same code runs on the CPU and on a GPU.",
        "softmax(s)_j = exp(s_j - m) / sum_k exp(s_k - m), with m the largest (visible) score of the row: "
        "subtracting m changes nothing mathematically and keeps every exponential at most 1 (no overflow). "
        "The masked entries are those with column index > row index.",
        "Build a boolean (T, T) mask with an index vector made by minitorch.arange(T, device=...) compared with "
        "itself (one as a row, one as a column), or with .triu(1) of a tensor of ones; masked_fill puts -inf "
        "there; amax(dim=-1, keepdim=True), exp() and sum(dim=-1, keepdim=True) do the rest.",
    ],
)


def _module_to_reference(sizes, values):
    return module_to_report(lambda module, device: module.to(device), sizes, values, withhold=False)


exercise(
    "ch03.module_to",
    function="module_to_report_of_my_function",
    reference=_module_to_reference,
    input_type="numpy",
    output_type="any",
    public=[
        (np.array([3, 2]), randn(40, seed=340)),
        (np.array([4, 3, 2]), randn(60, seed=341)),
    ],
    labels=[
        "Sequential(Linear, BatchNorm1d, ReLU): parameters, gradients and the three BatchNorm buffers",
        "a Sequential nested in a Sequential: the inner layers must move too",
    ],
    outputs=(
        "module_to returns the module itself",
        "the same Parameter objects as before the move (an optimizer holds them; 1 = same)",
        "requires_grad of each parameter",
        "parameters on the device (1 = moved)",
        "buffers on the device (running_mean, running_var, num_batches_tracked; 1 = moved)",
        "gradients on the device (1 = moved, -1 = no gradient)",
        "values of the state_dict, back on the host",
        "output of the moved model in eval mode (NaN: the forward pass failed)",
        "everything back on the CPU after module_to(model, 'cpu') (1 = on the CPU)",
    ),
    hints=[
        "A module's tensors live in two dictionaries, its parameters and its buffers, and in its child modules, "
        "at any depth. Move every one. A parameter must stay the same object (an optimizer holds it): change what "
        "it holds, not which object the module holds. A buffer is a plain tensor, so the module may hold a new one. "
        "Remember that a tensor's .to returns a new tensor and leaves the old one alone.",
        "For each module (the module itself and all modules inside it), for each parameter p: p's data becomes "
        "p's data on the device, and so does p.grad when there is one; for each buffer b under name k: the "
        "module's buffer k becomes b on the device. Return the module.",
        "model.modules() (or recursion over .children()) visits every module; module._parameters and "
        "module._buffers are the two dictionaries (skip None entries); assigning to p.data (under "
        "minitorch.no_grad()) keeps p the same Parameter with the same requires_grad.",
    ],
)
