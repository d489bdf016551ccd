"""Inference latency of the course's models: minitorch, the same model exported to ONNX Runtime, and PyTorch.

    python benchmarks/inference.py            # the four course models at batch 1 and 64, 11 rounds
    python benchmarks/inference.py --quick    # 3 rounds, fewer calls

The models are the ones the course trains (``benchmarks/_course_models.py``: chapter 4's MLP, chapter 7's CNN,
chapter 8's LSTM, chapter 9's one-layer transformer), in evaluation mode, with the same weights in the three
frameworks (PyTorch's copied by ``state_dict`` name; ONNX Runtime runs the file ``minitorch.onnx.export`` wrote,
with a dynamic batch axis). One call is one forward pass on a batch of 1 or 64.

The conventions are ``benchmarks/run.py``'s: one thread for every framework (the thread variables are set before
NumPy, PyTorch and ONNX Runtime load; the session gets ``intra_op_num_threads=1``), ``OPENBLAS_CORETYPE`` and
``OPENBLAS_L2_SIZE`` removed (the script restarts itself without them), frameworks interleaved in every round with
the order rotated, and the table gives median times and the medians of the per-round ratios. Before timing, every
framework's output is checked against minitorch's, so a fast but wrong runtime cannot win.
"""

from __future__ import annotations

import os
import sys

_BLAS_OVERRIDES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")

if __name__ == "__main__":
    if any(name in os.environ for name in _BLAS_OVERRIDES) and "--keep-blas-env" not in sys.argv:
        environment = {name: value for name, value in os.environ.items() if name not in _BLAS_OVERRIDES}
        sys.stdout.flush()
        os.execve(sys.executable, [sys.executable, os.path.abspath(__file__), *sys.argv[1:]], environment)
    for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_variable] = "1"

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

import argparse  # noqa: E402
import io  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from benchmarks import _course_models  # noqa: E402

MODELS = ("mlp", "cnn", "lstm", "transformer")
BATCHES = (1, 64)
FRAMEWORKS = ("minitorch", "onnxruntime", "pytorch")
NAMES = {"minitorch": "minitorch", "onnxruntime": "ONNX Runtime", "pytorch": "PyTorch"}


def build(name: str, batch: int) -> dict:
    """One forward-pass callable per available framework, for model ``name`` on a batch of ``batch``."""
    import minitorch

    minitorch.manual_seed(0)
    model = _course_models.BUILDERS[name](minitorch).eval()
    example = _course_models.example_input(name, batch, seed=1)
    tensor = minitorch.tensor(example)

    def run_minitorch():
        with minitorch.no_grad():
            return model(tensor).numpy()

    calls = {"minitorch": run_minitorch}
    try:
        import onnxruntime as ort
    except ImportError:
        pass
    else:
        buffer = io.BytesIO()
        minitorch.onnx.export(model, (minitorch.tensor(_course_models.example_input(name, 2)),), buffer,
                              input_names=["input"], output_names=["output"],
                              dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})
        options = ort.SessionOptions()
        options.intra_op_num_threads = options.inter_op_num_threads = 1
        session = ort.InferenceSession(buffer.getvalue(), options, providers=["CPUExecutionProvider"])
        calls["onnxruntime"] = lambda: session.run(None, {"input": example})[0]
    try:
        import torch
    except ImportError:
        pass
    else:
        torch.set_num_threads(1)
        reference = _course_models.BUILDERS[name](torch).eval()
        reference.load_state_dict({key: torch.from_numpy(value.numpy().copy())
                                   for key, value in model.state_dict().items()})
        torch_input = torch.from_numpy(example)

        def run_pytorch():
            with torch.no_grad():
                return reference(torch_input).numpy()

        calls["pytorch"] = run_pytorch
    expected = run_minitorch()
    for framework, call in calls.items():
        got = call()
        if not np.allclose(got, expected, rtol=1e-4, atol=1e-5):
            raise AssertionError(f"{NAMES[framework]} computes other outputs than minitorch for {name}, batch {batch}")
    return calls


def measure(calls: dict, repeats: int, rounds: int) -> dict:
    """Seconds per call of each framework in each round (``repeats`` calls per measurement, order rotated)."""
    names = list(calls)
    samples = {name: [] for name in names}
    for round_index in range(rounds):
        shift = round_index % len(names)
        for name in names[shift:] + names[:shift]:
            call = calls[name]
            start = time.perf_counter()
            for _ in range(repeats):
                call()
            samples[name].append((time.perf_counter() - start) / repeats)
    return samples


def format_time(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    return f"{seconds * 1e3:.2f} ms"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 rounds and fewer calls per measurement")
    parser.add_argument("--keep-blas-env", action="store_true", help="keep OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE")
    arguments = parser.parse_args(argv)
    rounds = 3 if arguments.quick else 11
    from benchmarks.run import pin_threads

    report = pin_threads()
    for warning in report["warnings"]:
        print("warning:", warning)
    rows = []
    for name in MODELS:
        for batch in BATCHES:
            calls = build(name, batch)
            for call in calls.values():  # warm up
                call()
            start = time.perf_counter()
            calls["minitorch"]()
            repeats = max(1, min(200, int(0.02 / max(time.perf_counter() - start, 1e-6))))
            if arguments.quick:
                repeats = max(1, repeats // 4)
            samples = measure(calls, repeats, rounds)
            rows.append((name, batch, samples))
            print(f"{name}, batch {batch}: done", file=sys.stderr)
    header = ["Model", "Batch"] + [NAMES[f] for f in FRAMEWORKS] + ["minitorch/ONNX Runtime", "PyTorch/ONNX Runtime"]
    print("| " + " | ".join(header) + " |")
    print("|---|---:|" + "---:|" * (len(header) - 2))
    for name, batch, samples in rows:
        cells = [name, str(batch)]
        for framework in FRAMEWORKS:
            cells.append(format_time(statistics.median(samples[framework])) if framework in samples else "")
        for framework in ("minitorch", "pytorch"):
            if framework in samples and "onnxruntime" in samples:
                ratios = [a / b for a, b in zip(samples[framework], samples["onnxruntime"])]
                cells.append(f"{statistics.median(ratios):.1f}x")
            else:
                cells.append("")
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
