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
    labels=[
        "5 images through 32 hidden units",
        "64 images: the batch axis must be dynamic",
    ],
    hints=[
        "Deployment in three moves: rebuild the model in minitorch from the arrays, export it to ONNX with a batch "
        "axis that may change size, then run the exported file in ONNX Runtime on the images. The answer is what ONNX "
        "Runtime returns.",
        "The model is Linear(64, H), ReLU, Linear(H, 10), with H read from the weights' shapes. The export traces one "
        "example input; naming the inputs and outputs and marking their axis 0 as dynamic lets the file accept any "
        "batch size.",
        "The export of section 2 and the session of section 4 are the pattern: export into an in-memory buffer "
        "(io.BytesIO) instead of a file, open the buffer's bytes in an InferenceSession on the CPU provider, and feed "
        "the images under the input name you chose.",
    ],
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
    labels=[
        "6 rows of 10 scores",
        "4 rows of 5 scores",
    ],
    hints=[
        "A classifier's scores become a label and a confidence: the label is the class with the largest score, the "
        "confidence is its softmax probability.",
        "p = softmax(scores) per row, computed stably (subtract each row's maximum before exp); label = argmax_j p_j "
        "as int64; confidence = max_j p_j as float32.",
        "NumPy's max, exp, sum (with keepdims=True so the shapes broadcast) and argmax along axis 1; cast the two "
        "results with astype.",
    ],
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
    labels=[
        "4 rows of 6",
        "a single column",
    ],
    hints=[
        "cumsum has no ONNX mapping, but a running total is a matrix product: entry j of the result sums the entries "
        "0..j, which is x times a triangular matrix of ones.",
        "out[:, j] = Σ_{k ≤ j} x[:, k] = (x T)[:, j] with T[k, j] = 1 when k ≤ j, else 0: which triangle is that?",
        "Build T in the module's forward from the input's size, in x's dtype, so it exports as part of the graph; "
        "export and run the module in ONNX Runtime as in exercise 1.",
    ],
)
