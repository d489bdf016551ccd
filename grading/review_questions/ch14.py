"""Review questions of chapter 14: deployment (ONNX export, ONNX Runtime, quantization, pre/post-processing)."""

from grading.review import choice, number

QUESTIONS = [
    choice(
        'What does `minitorch.onnx.export(model, (example,), "model.onnx", ...)` write?',
        [
            "the model's Python source",
            "a graph of ONNX operators recorded from one forward pass in evaluation mode, with the weights as "
            "initializers",
            "only the weights",
            "a pickle of the model object",
        ],
        "b",
        "Export runs the model once on the example and records the operations; onnx.checker validates the file and "
        "ONNX Runtime (or TensorRT, a mobile runtime) runs it.",
    ),
    choice(
        'Why pass `dynamic_axes={"input": {0: "batch"}, ...}` to the export?',
        [
            "to make the export faster",
            "so the file accepts any batch size instead of only the example's",
            "to quantize the batch dimension",
            "to allow several inputs",
        ],
        "b",
        "Without it the recorded shapes are fixed to the example's, batch size included.",
    ),
    number(
        "Dynamic quantization stores a float32 weight of shape (1000, 1000) as int8. How many bytes does the weight "
        "take afterwards (ignoring the scale and zero point)?",
        1_000_000,
        "One byte per weight instead of four: 4,000,000 bytes become 1,000,000, about four times smaller. Whether it "
        "is faster depends on the model and the machine: measure.",
    ),
    number(
        "The application turns logits [1000, 1000] into probabilities with a stable softmax. What is the first "
        "probability?",
        0.5,
        "Subtract the maximum first: softmax([0, 0]) = [0.5, 0.5]. exp(1000) directly would overflow to inf and give "
        "nan.",
    ),
    choice(
        "Which of these in a model's forward stops the export?",
        [
            "a matrix product",
            "`if x.sum().item() > 0:` (a value read out with .item() deciding the control flow)",
            "a ReLU",
            "reshaping with view",
        ],
        "b",
        "The exporter records tensor operations; a Python number read out with .item(), or data-dependent control "
        "flow, is invisible to the graph. Rewrite that part with tensor operations (torch.where, say).",
    ),
    choice(
        "Why does ONNX Runtime answer one image many times faster than minitorch here?",
        [
            "it uses a different algorithm that computes different numbers",
            "the whole graph runs in optimised C++, with no Python overhead per operation",
            "it skips layers",
            "it always uses the GPU",
        ],
        "b",
        "The numbers agree up to float32 rounding; minitorch pays Python's cost at every operation, which dominates "
        "at batch size 1.",
    ),
]
