"""Chapter 14 (deployment): an MLP exported with a dynamic batch axis and run in ONNX Runtime, the post-processing
of a classifier's scores, and a running total rewritten so that it exports.

Expected values are computed by the references below (minitorch's forward pass, NumPy's softmax and cumsum), never
written down; the public cases are inputs only. The references need no ONNX Runtime: a learner's exported file must
compute what minitorch computes.
"""

import numpy as np

import minitorch
import minitorch.nn as nn
from grading.registry import exercise, randn


def _mlp_scores(images, w1, b1, w2, b2):
    model = nn.Sequential(nn.Linear(w1.shape[1], w1.shape[0]), nn.ReLU(), nn.Linear(w2.shape[1], w2.shape[0]))
    arrays = {"0.weight": w1, "0.bias": b1, "2.weight": w2, "2.bias": b2}
    model.load_state_dict({name: minitorch.from_numpy(array) for name, array in arrays.items()})
    with minitorch.no_grad():
        return model(minitorch.from_numpy(images)).numpy()


exercise(
    "ch14.exported_scores",
    function="exported_scores",
    reference=_mlp_scores,
    public=[
        (randn(5, 64, seed=1400), randn(32, 64, seed=1401), randn(32, seed=1402), randn(10, 32, seed=1403),
         randn(10, seed=1404)),
        (randn(64, 64, seed=1405), randn(8, 64, seed=1406), randn(8, seed=1407), randn(10, 8, seed=1408),
         randn(10, seed=1409)),
    ],
    input_type="numpy",
    output_type="any",
    rtol=1e-5,
    atol=1e-5,
    hint="Build nn.Sequential(nn.Linear(64, H), nn.ReLU(), nn.Linear(H, 10)), load_state_dict with "
    "minitorch.from_numpy, call .eval(); export with (minitorch.from_numpy(images[:1]),) into io.BytesIO(), "
    "input_names=['images'], output_names=['scores'], "
    "dynamic_axes={'images': {0: 'batch'}, 'scores': {0: 'batch'}}; "
    "then ort.InferenceSession(buffer.getvalue(), providers=['CPUExecutionProvider'])"
    ".run(None, {'images': images})[0].",
)


def _postprocess(scores):
    shifted = scores.astype(np.float64) - scores.max(axis=1, keepdims=True)
    probabilities = np.exp(shifted) / np.exp(shifted).sum(axis=1, keepdims=True)
    return probabilities.argmax(axis=1).astype(np.int64), probabilities.max(axis=1).astype(np.float32)


exercise(
    "ch14.postprocess",
    function="postprocess",
    reference=_postprocess,
    public=[
        (randn(6, 10, seed=1410),),
        (randn(4, 5, seed=1411, scale=100.0),),  # large scores: exp overflows unless the maximum is subtracted
    ],
    input_type="numpy",
    output_type="any",
    rtol=1e-5,
    atol=1e-6,
    hint="Subtract each row's maximum (keepdims=True), exponentiate, divide by the row sums: the softmax. labels = "
    "argmax over axis 1 as int64; confidence = the largest probability of each row as float32.",
)


exercise(
    "ch14.exported_running_total",
    function="exported_running_total",
    reference=lambda x: np.cumsum(x, axis=1),
    public=[(randn(4, 6, seed=1420),), (randn(2, 1, seed=1421),)],
    input_type="numpy",
    output_type="any",
    rtol=1e-5,
    atol=1e-5,
    hints=[
        "cumsum has no ONNX mapping, but a running total is a matrix product: entry j of the result sums the "
        "entries 0..j, which is x times an upper-triangular matrix of ones.",
        "In forward, build that n × n matrix (ones, then triu) in x's dtype and multiply x by it; export the module "
        "with (minitorch.from_numpy(x),) into io.BytesIO().",
        "Open the bytes with ort.InferenceSession(..., providers=['CPUExecutionProvider']) and return the first "
        "output of run(None, {input name: x}).",
    ],
)
