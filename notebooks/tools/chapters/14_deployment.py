"""Chapter 14: deployment (export to ONNX, inspect the graph, run it in ONNX Runtime, latency against minitorch and
PyTorch, dynamic quantization, edge devices)."""

from author import code, md, solution, tests, write

cells = [
    md(r"""
    # 14. Deployment: from a trained model to a file any runtime can run

    A trained model is a Python object: to use it you need Python, minitorch and its NumPy arrays. Serving it to
    thousands of users, or running it on a phone or a car's computer, asks for something else: **one file** that holds
    the computation and the weights, and a small, fast **runtime** that executes it. That file format is ONNX (Open
    Neural Network Exchange); ONNX Runtime, TensorRT, OpenVINO, Core ML converters and many others read it.

    By the end of this chapter you will be able to:

    * **export** a trained model with `minitorch.onnx.export` (PyTorch's `torch.onnx.export`, same arguments), with a
      dynamic batch axis;
    * **inspect** the exported graph: its operators, its initializers (the weights), a listing of every node;
    * **run** it in ONNX Runtime and check that it computes what minitorch computes;
    * **measure** latency per image and per batch, on one thread, against minitorch and PyTorch;
    * **quantize** it to 8-bit weights with ONNX Runtime's dynamic quantization, and weigh size, speed and accuracy;
    * recognise what blocks an export, and rewrite the model so it exports.
    """),
    code("""
    import io
    import os
    import tempfile
    import time

    import numpy as np

    import minitorch
    import minitorch.nn as nn
    from grading import check, hint, randn, summary  # noqa: F401 (hint("<exercise>") shows hints, step by step)
    from minitorch.utils.data import DataLoader
    from minitorch.vision import datasets, models

    try:
        import onnx
        import onnxruntime as ort
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as error:
        raise ImportError("This chapter needs onnx and onnxruntime: pip install -e '.[deploy]'") from error

    from threadpoolctl import threadpool_limits  # installed with scikit-learn: one BLAS thread for fair timings

    torch = None
    try:
        import torch
        torch.set_num_threads(1)
        print("PyTorch", torch.__version__, "is installed: the latency table has a PyTorch column.")
    except Exception:
        print("PyTorch is not installed: the latency table leaves its column out (pip install torch to see it).")
    print("onnx", onnx.__version__, "| onnxruntime", ort.__version__)
    folder = tempfile.mkdtemp()
    """),
    md(r"""
    ## 1. The model to ship

    We ship the LeNet-5 that the kit trained on the digits (chapter 10): `models.lenet5(weights="DEFAULT")`. Its
    weights file is checked against its hash when it loads, and `weights.meta` records its test accuracy. Two things
    matter before exporting:

    * **`model.eval()`**: batch norm must use its running statistics and dropout must do nothing. An export records
      *one* forward pass; in training mode it would record one random dropout mask as if it were part of the model
      (minitorch refuses: try `training=minitorch.onnx.TrainingMode.PRESERVE` on a model with active dropout);
    * **the preprocessing**: the file will contain the network only. Whoever runs it must resize and normalise the
      images exactly as in training (`weights.transforms()`), so write it down next to the file.
    """),
    code("""
    weights = models.LeNet5_Weights.DEFAULT
    model = models.lenet5(weights=weights).eval()
    test_set = datasets.Digits(train=False, transform=weights.transforms())
    images, labels = next(iter(DataLoader(test_set, batch_size=len(test_set))))
    print("test images:", tuple(images.shape), "| recorded test accuracy:", weights.meta["test_accuracy"])
    with minitorch.no_grad():
        minitorch_scores = model(images)
    minitorch_accuracy = (minitorch_scores.argmax(1) == labels).float().mean().item()
    print(f"minitorch, accuracy on the {len(labels)} test digits: {minitorch_accuracy:.2%}")
    """),
    md(r"""
    ## 2. Export

    `minitorch.onnx.export(model, args, f, ...)` runs `model(*args)` once and records every operation that ran,
    through the same `Function.apply` that records the graph for backward (`minitorch/onnx/_trace.py`). Each
    recorded op then becomes one or a few ONNX operators (`Linear` is `Gemm`, `Convolution` is `Conv`, ...;
    one module per op family in `minitorch/onnx/`), and the parameters become **initializers**, named as in the
    `state_dict`.

    The example input fixes every size, unless you name the axes that may change: `dynamic_axes` makes the batch
    size a symbol (`"batch"`) so that the same file serves one image or a thousand. Input and output names are the
    keys you will feed and read in the runtime.
    """),
    code("""
    path = os.path.join(folder, "lenet5_digits.onnx")
    minitorch.onnx.export(
        model, (images[:1],), path,
        input_names=["image"], output_names=["scores"],
        dynamic_axes={"image": {0: "batch"}, "scores": {0: "batch"}},
    )
    proto = onnx.load(path)
    onnx.checker.check_model(proto, full_check=True)   # the format's own validator
    print(f"{path}: {os.path.getsize(path):,} bytes, opset {proto.opset_import[0].version}")
    """),
    md(r"""
    ## 3. Inside the file

    An ONNX model is a graph: named **inputs** (with their types and shapes, `batch` as a symbol), **nodes** (an
    operator, its input names and output names, its attributes), **initializers** (constant tensors: the weights)
    and **outputs**. Nothing in it is Python: a runtime needs only the operator definitions of the opset.
    """),
    code("""
    graph = proto.graph

    def dims(value):
        return [d.dim_param or d.dim_value for d in value.type.tensor_type.shape.dim]

    print("inputs: ", [(v.name, dims(v)) for v in graph.input])
    print("outputs:", [(v.name, dims(v)) for v in graph.output])
    counts = {}
    for node in graph.node:
        counts[node.op_type] = counts.get(node.op_type, 0) + 1
    print("operators:", counts)
    print("initializers:")
    for tensor in graph.initializer:
        array = onnx.numpy_helper.to_array(tensor)
        print(f"  {tensor.name:24s} {str(array.shape):16s} {array.dtype}")
    parameters = sum(p.numel() for p in model.parameters())
    print("parameters in the model:", parameters, "| numbers in the initializers:",
          sum(onnx.numpy_helper.to_array(t).size for t in graph.initializer))
    """),
    md(r"""
    The listing below is the whole program, one line per node (`onnx.printer`). The `Shape -> Gather -> Concat`
    nodes before `Reshape` are the dynamic batch at work: `Flatten` keeps the batch size, which is only known when
    the graph runs, so the graph reads it from its input.
    """),
    code("""
    print(onnx.printer.to_text(graph))
    """),
    md(r"""
    ## 4. Run it in ONNX Runtime

    An `InferenceSession` loads the file, optimises the graph for the machine (fusing nodes, choosing kernels) and
    runs it on NumPy arrays: `session.run(output_names or None, {input_name: array})`. We pin it to one thread, as
    everything else we time here, so the comparisons are fair on a shared machine.
    """),
    code("""
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    print("inputs:", [(i.name, i.shape, i.type) for i in session.get_inputs()])

    (onnx_scores,) = session.run(None, {"image": images.numpy()})
    difference = np.abs(onnx_scores - minitorch_scores.numpy()).max()
    onnx_accuracy = (onnx_scores.argmax(1) == labels.numpy()).mean()
    print(f"largest difference from minitorch's scores: {difference:.2e} (float32 rounding)")
    print(f"ONNX Runtime accuracy: {onnx_accuracy:.2%}  (minitorch: {minitorch_accuracy:.2%})")
    """),
    md(r"""
    ### Exercise 1: export with a dynamic batch axis, and check it

    Write `exported_scores(images, w1, b1, w2, b2)`. The arguments are NumPy arrays: `images` is a batch
    `(N, 64)` and the weights are those of a `nn.Sequential(nn.Linear(64, H), nn.ReLU(), nn.Linear(H, 10))` in
    PyTorch's layout (`w1` is `(H, 64)`). Build that model, load the weights (`load_state_dict` with
    `minitorch.from_numpy`), **export it with an example batch of one image** (`images[:1]`) and a dynamic batch
    axis, open the file in ONNX Runtime (one thread) and return the scores that ONNX Runtime computes for the whole
    batch `images`, as a NumPy array. Export into an `io.BytesIO()` buffer and give
    `ort.InferenceSession` its bytes (`buffer.getvalue()`) to avoid files.

    Without `dynamic_axes` the file only accepts a batch of one: the check feeds larger batches.
    """),
    solution('''
    def exported_scores(images, w1, b1, w2, b2):
        """The scores ONNX Runtime computes for `images` with the exported two-layer MLP."""
        import io

        import onnxruntime as ort

        ### BEGIN SOLUTION
        hidden, inputs = w1.shape
        model = nn.Sequential(nn.Linear(inputs, hidden), nn.ReLU(), nn.Linear(hidden, w2.shape[0])).eval()
        arrays = {"0.weight": w1, "0.bias": b1, "2.weight": w2, "2.bias": b2}
        model.load_state_dict({name: minitorch.from_numpy(array) for name, array in arrays.items()})
        buffer = io.BytesIO()
        minitorch.onnx.export(model, (minitorch.from_numpy(images[:1]),), buffer, input_names=["images"],
                              output_names=["scores"], dynamic_axes={"images": {0: "batch"}, "scores": {0: "batch"}})
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        session = ort.InferenceSession(buffer.getvalue(), options, providers=["CPUExecutionProvider"])
        return session.run(None, {"images": images})[0]
        ### END SOLUTION
    ''', "ch14-exported-scores"),
    tests("""
    check("ch14.exported_scores", exported_scores)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch14.exported_scores", exported_scores, [
        (randn(9, 64, seed=14101), randn(16, 64, seed=14102), randn(16, seed=14103), randn(10, 16, seed=14104),
         randn(10, seed=14105)),
        (randn(33, 64, seed=14106), randn(5, 64, seed=14107), randn(5, seed=14108), randn(10, 5, seed=14109),
         randn(10, seed=14110)),
    ])
    ### END HIDDEN TESTS
    """, "ch14-exported-scores-tests", points=2),
    md(r"""
    ## 5. Post-processing

    The network returns **scores** (logits), one per class. An application wants a decision: the predicted class,
    and how sure the model is. Softmax turns scores into probabilities, `p_k = exp(s_k - m) / sum_j exp(s_j - m)`
    with `m` the row's largest score (subtracting it changes nothing mathematically and keeps `exp` from
    overflowing); the prediction is the class with the largest probability, and its probability is the confidence.
    This code runs *outside* the exported graph, in whatever language the application uses, so here it is NumPy.

    ### Exercise 2: from scores to a decision

    Write `postprocess(scores)`: `scores` is a NumPy array `(N, classes)`; return a pair `(labels, confidence)`:
    `labels` the predicted class of each row (`int64`, shape `(N,)`) and `confidence` the softmax probability of
    that class (`float32`, shape `(N,)`). Scores can be large (hundreds): compute softmax the stable way.
    """),
    solution('''
    def postprocess(scores):
        """(predicted class, its softmax probability) for each row of `scores`."""
        ### BEGIN SOLUTION
        shifted = scores - scores.max(axis=1, keepdims=True)
        probabilities = np.exp(shifted)
        probabilities /= probabilities.sum(axis=1, keepdims=True)
        labels = probabilities.argmax(axis=1).astype(np.int64)
        return labels, probabilities.max(axis=1).astype(np.float32)
        ### END SOLUTION
    ''', "ch14-postprocess"),
    tests("""
    check("ch14.postprocess", postprocess)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch14.postprocess", postprocess, [
        (randn(7, 10, seed=14201) * 50,),
        (randn(1, 3, seed=14202),),
        (np.array([[1000.0, 999.0, -5.0], [-1000.0, -1001.0, -1000.5]], dtype=np.float32),),
    ])
    ### END HIDDEN TESTS
    """, "ch14-postprocess-tests", points=1),
    md(r"""
    Applied to the digits (with minitorch's softmax here, so this cell runs before the exercise is done): a model is
    usually more confident when it is right, which is what makes the confidence useful, for example to send unsure
    cases to a person.
    """),
    code("""
    probabilities = minitorch.tensor(onnx_scores).softmax(dim=1).numpy()
    predicted, confidence = probabilities.argmax(1), probabilities.max(1)
    print("first ten predictions:", predicted[:10].tolist(), "| true:", labels[:10].tolist())
    print("confidence when right:", float(confidence[predicted == labels.numpy()].mean()),
          "| when wrong:", float(confidence[predicted != labels.numpy()].mean()))
    """),
    md(r"""
    ## 6. Latency: minitorch, ONNX Runtime, PyTorch

    What does the runtime buy? We time the same network on one image (the latency a single user waits for) and on a
    batch of 64 (the throughput of a server), each on **one thread**, as the median of repeated runs (the median
    ignores the runs a busy neighbour slowed down). PyTorch runs a copy of the network with the weights copied by
    `state_dict` name, when it is installed.
    """),
    code("""
    def median_seconds(run, repeats):
        run()                                              # warm up: caches, lazy initialisation
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        return float(np.median(times))

    one, batch = images[:1], images[:64]
    runners = {}
    def minitorch_runner(x):
        def run():
            with minitorch.no_grad():
                model(x)
        return run
    runners["minitorch"] = {"1": minitorch_runner(one), "64": minitorch_runner(batch)}
    def onnx_runner(x):
        array = x.numpy()
        return lambda: session.run(None, {"image": array})
    runners["ONNX Runtime"] = {"1": onnx_runner(one), "64": onnx_runner(batch)}
    if torch is not None:
        torch_model = torch.nn.Sequential(
            torch.nn.Sequential(torch.nn.Conv2d(1, 6, 5, padding=2), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
                                torch.nn.Conv2d(6, 16, 5), torch.nn.ReLU(), torch.nn.MaxPool2d(2)),
            torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(400, 120), torch.nn.ReLU(),
                                torch.nn.Linear(120, 84), torch.nn.ReLU(), torch.nn.Linear(84, 10)),
        ).eval()
        torch_model.load_state_dict({name.replace("features", "0").replace("classifier", "1"):
                                     torch.from_numpy(value.numpy().copy())
                                     for name, value in model.state_dict().items()})
        def torch_runner(x):
            tensor = torch.from_numpy(x.numpy())
            def run():
                with torch.no_grad():
                    torch_model(tensor)
            return run
        runners["PyTorch"] = {"1": torch_runner(one), "64": torch_runner(batch)}

    latency = {}
    with threadpool_limits(limits=1):
        for name, sizes in runners.items():
            latency[name] = {"1": median_seconds(sizes["1"], 30), "64": median_seconds(sizes["64"], 7)}
    print(f"{'':14s}{'1 image':>12s}{'batch of 64':>14s}{'per image in the batch':>24s}")
    for name, times in latency.items():
        print(f"{name:14s}{times['1'] * 1e6:10.0f} µs{times['64'] * 1e3:11.2f} ms{times['64'] / 64 * 1e6:21.1f} µs")
    speedup = latency["minitorch"]["1"] / latency["ONNX Runtime"]["1"]
    print(f"ONNX Runtime answers one image {speedup:.0f}x faster than minitorch here.")
    """),
    md(r"""
    Read the table: minitorch spends most of a single image's time in Python (one call per op, each a few
    microseconds, before NumPy does any arithmetic), which a batch spreads over 64 images. ONNX Runtime runs the
    whole graph in C++ with kernels chosen for this CPU and the graph pre-optimised (it fuses `Conv` with `Relu`, for
    example), so even one image costs little. PyTorch sits between: C++ kernels, but each op is still dispatched from
    Python.

    ## 7. Dynamic quantization: 8-bit weights

    Most of a small network's file is float32 weights. **Quantization** stores them as 8-bit integers with a scale
    per tensor: `w ~ scale * (q - zero_point)`, four times smaller. *Dynamic* quantization
    (`onnxruntime.quantization.quantize_dynamic`) needs no calibration data: weights are quantized once, activations
    on the fly at each run, and the matrix products run in integer arithmetic (`MatMulInteger`, `ConvInteger`).
    We quantize twice: every supported operator (the default), and only the matrix products (`MatMul`, `Gemm`),
    which is where dynamic quantization is meant to be used (transformers and LSTMs are mostly matrix products).
    """),
    code("""
    variants = {"float32": path}
    for label, op_types in (("int8, all ops", None), ("int8, MatMul/Gemm", ["MatMul", "Gemm"])):
        target = os.path.join(folder, label.replace(", ", "_").replace("/", "_") + ".onnx")
        quantize_dynamic(path, target, weight_type=QuantType.QInt8, op_types_to_quantize=op_types)
        variants[label] = target

    print(f"{'':20s}{'size':>10s}{'1 image':>11s}{'batch of 64':>13s}{'accuracy':>10s}")
    for label, file in variants.items():
        quantized = ort.InferenceSession(file, options, providers=["CPUExecutionProvider"])
        (scores,) = quantized.run(None, {"image": images.numpy()})
        accuracy = (scores.argmax(1) == labels.numpy()).mean()
        one_image = median_seconds(lambda runner=quantized: runner.run(None, {"image": one.numpy()}), 30)
        many = median_seconds(lambda runner=quantized: runner.run(None, {"image": batch.numpy()}), 7)
        print(f"{label:20s}{os.path.getsize(file) / 1024:8.0f} kB{one_image * 1e6:8.0f} µs{many * 1e3:10.2f} ms"
              f"{accuracy:10.2%}")
    """),
    md(r"""
    The file shrinks about fourfold and the accuracy on these digits barely moves: 8 bits are plenty for weights
    that were trained with noise (augmentation, SGD) in the first place. Speed is another matter, and the table shows
    why you always measure: quantizing the activations of every product at run time costs time, and on a CPU whose
    float32 kernels are already fast (and with convolutions this small) the integer kernels may not win. Quantized
    convolutions usually go through *static* quantization instead (scales calibrated once on sample data, the
    `QDQ` format), which the same `onnxruntime.quantization` package does with `quantize_static`.

    ## 8. Edge devices

    The same `.onnx` file is the input of the runtimes on devices that cannot run Python:

    * **TensorRT** (NVIDIA GPUs, Jetson boards in robots and cars) reads ONNX and compiles it for one GPU: it fuses
      layers, picks the fastest kernel for each shape and runs in **FP16** (half precision: half the memory, and
      tensor cores) or **INT8** (calibrated like static quantization). `trtexec --onnx=model.onnx --fp16` is the
      one-line start. ONNX Runtime can also hand the graph to TensorRT itself (`TensorrtExecutionProvider`).
    * **Phones and microcontrollers**: ONNX Runtime Mobile, or converters to Core ML and TensorFlow Lite; the smallest
      devices want INT8 everywhere, because they have no fast float units.
    * On all of them **batch-1 latency** is what counts: a camera frame, a voice command or a sensor reading arrives
      one at a time and must be answered before the next, so the per-image column of section 6 is the one to
      optimise, and big batches are no help.

    ## 9. What blocks an export

    An export records ops. An op with no ONNX mapping stops it, with an error that names the op and the line of your
    code that called it. A running total (`cumsum`) is one: ONNX has a `CumSum` operator, but minitorch's exporter
    has no mapping for it (yet: adding one is a few lines in `minitorch/onnx/reduction.py`).
    """),
    code("""
    class RunningTotal(nn.Module):
        def forward(self, x):
            return x.cumsum(dim=1)

    try:
        minitorch.onnx.export(RunningTotal(), (minitorch.randn(2, 5),), io.BytesIO())
    except minitorch.onnx.UnsupportedOperatorError as error:
        print(type(error).__name__ + ":", error)
    """),
    md(r"""
    Sizes are a different matter: they may follow the input. A size read with `x.shape` or `x.size(1)` is a Python
    number while the model runs, but the exporter records the model twice more at other sizes along the
    `dynamic_axes`, sees which numbers changed with them, and writes those sizes as computations in the graph
    (`Shape -> Gather`, then `Mul`/`Add`, `Concat` for a shape, `Slice` bounds). A class token expanded to the batch
    (`cls.expand(B, -1, -1)`), positions sliced to the sequence (`pos[:, :T + 1]`) or made with `arange(T)`
    (ONNX's `Range`), a causal-mask buffer sliced by `T` (`mask[:T, :T]`), and an image size through pooling and
    `nn.Upsample` (ONNX's `Resize`) all follow the input in ONNX Runtime. A size is written as `factor * axis` or
    `axis + offset`, found from two sizes and checked at the third; one that follows an axis in any other way
    (`T // 2`) is refused, never frozen. Masks combine with `~`, `&`, `|` (ONNX's `Not`, `And`, `Or`).

    A branch on a tensor's value is what a recording cannot see: `if x.sum() > 0:` turns a tensor into a Python
    boolean, and the graph keeps whichever branch this example took. The export warns with PyTorch's own
    `TracerWarning` text; `strict=True` (minitorch's addition) refuses instead:
    """),
    code("""
    import warnings


    class SignDependent(nn.Module):
        def forward(self, x):
            return x * 2 if x.sum() > 0 else x * 3   # a Python `if` on a tensor's value


    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        minitorch.onnx.export(SignDependent(), (minitorch.ones(3),), io.BytesIO())
    print([f"{w.category.__name__}: {w.message}" for w in caught if w.category is minitorch.onnx.TracerWarning])
    try:
        minitorch.onnx.export(SignDependent(), (minitorch.ones(3),), io.BytesIO(), strict=True)
    except RuntimeError as error:
        print(type(error).__name__ + ":", error)
    """),
    md(r"""
    Refused, each with its reason and the line that did it, rather than exported wrong: an op without a mapping (by
    name); a number read with `.item()` that changed with the input (the graph would keep the one value it saw); a
    tensor made outside the recorded ops from the input (a `.numpy()` round trip, an `argmax` inside `forward`); a
    model that ran other ops for other inputs; a size that follows a dynamic axis in a way the graph cannot write;
    `interpolate` in `area` mode or with `antialias`. The way out is the same each time: say the same thing with
    tensor operations that export (`minitorch.where` instead of an `if`).

    ### Exercise 3: replace the op that blocks the export

    A running total along `dim=1` is a matrix product: `y = x @ U` with `U[i, j] = 1` where `i <= j` (an
    upper-triangular matrix of ones, `minitorch.ones(n, n).triu()`), because `y[:, j] = sum over i <= j of x[:, i]`.
    Write `exported_running_total(x)`: `x` is a NumPy array `(N, n)`; write a module whose forward computes the
    running total **without** `cumsum`, export it (example input: `x` itself), run the file in ONNX Runtime and
    return its output (a NumPy array).
    """),
    solution('''
    def exported_running_total(x):
        """Running totals along dim 1, computed by ONNX Runtime from an exported module."""
        import io

        import onnxruntime as ort

        ### BEGIN SOLUTION
        class RunningTotalByProduct(nn.Module):
            def forward(self, x):
                upper = minitorch.ones(x.shape[1], x.shape[1], dtype=x.dtype).triu()
                return x @ upper

        buffer = io.BytesIO()
        minitorch.onnx.export(RunningTotalByProduct(), (minitorch.from_numpy(x),), buffer, input_names=["x"])
        session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
        return session.run(None, {"x": x})[0]
        ### END SOLUTION
    ''', "ch14-exported-running-total"),
    tests("""
    check("ch14.exported_running_total", exported_running_total)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch14.exported_running_total", exported_running_total, [
        (randn(3, 9, seed=14301),),
        (randn(1, 2, seed=14302),),
    ])
    ### END HIDDEN TESTS
    """, "ch14-exported-running-total-tests", points=1),
    md(r"""
    ## Summary

    * `minitorch.onnx.export(model, (example,), "model.onnx", input_names=..., output_names=...,
      dynamic_axes={"input": {0: "batch"}, ...})` records one forward pass in evaluation mode and writes a graph of
      ONNX operators with the weights as initializers; `onnx.checker` validates it, `onnx.printer` lists it.
    * ONNX Runtime (`InferenceSession(...).run(None, {name: array})`) gives the same numbers up to float32 rounding,
      and here answers one image many times faster than minitorch, because the whole graph runs in optimised C++.
    * The application does the pre- and post-processing: the same transforms as in training before; softmax (the
      stable way) and argmax after.
    * Dynamic quantization makes the weights 8-bit: about four times smaller, the accuracy kept; whether it is faster
      depends on the model and the machine, so measure.
    * TensorRT and the mobile runtimes read the same file, in FP16 or INT8; at the edge, batch-1 latency is what
      counts.
    * Sizes read with `x.shape` along a dynamic axis become shape computations in the graph. A branch on a tensor's
      value warns with PyTorch's `TracerWarning` (`strict=True` refuses it); an op without a mapping, a number from
      `.item()` that changed with the input, or a model that ran other ops for other inputs stops the export with a
      message that says where; rewrite that part with tensor operations that export.
    """),
    code("""
    summary("ch14")
    """),
]

write("14_deployment", cells)
