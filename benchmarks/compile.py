"""``minitorch.compile`` against eager minitorch, with PyTorch eager beside them, side by side in one run.

Two workloads, float32, one thread for every library:

* ``mlp_train_step``: one training step of the course's MLP (``train_mlp.py``: 64-128-64-10, ReLU,
  cross-entropy, SGD with momentum 0.9, batch 64): ``zero_grad``, forward, loss, ``backward``,
  ``step``. The compiled variant compiles the model and the loss together
  (``minitorch.compile(lambda x, y: F.cross_entropy(model(x), y))``); the optimizer step runs
  eagerly in both, as it does under ``torch.compile`` of a model.
* ``encoder_inference``: ``nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=256,
  dropout=0, batch_first=True)`` in eval mode under ``no_grad``, on a batch of 8 sequences of 32.

Every round times each variant (``--repeats`` calls each, after warm-up calls that compile), in
an order that rotates from round to round, and the table gives the median over rounds of each
time and of the per-round ratios (eager / compiled: above 1 means compiled is faster). The
compiled results are checked against eager's before timing. The issue's goals: 1.3x on the
encoder layer's inference, 1.2x on the MLP training step.

With ``--torch-compile`` (and a C++ compiler on the PATH, which Inductor needs on the CPU) a fourth
column times ``torch.compile`` of the same function; its first calls compile for a minute or more, so it is
off by default.

    python benchmarks/compile.py [--rounds 15] [--repeats 50] [--clock wall|cpu] [--torch-compile]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import time

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_variable] = "1"
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

GOALS = {"mlp_train_step": 1.2, "encoder_inference": 1.3}
LAYER_SIZES = (64, 128, 64, 10)


def _mlp_step(lib, compiled: bool):
    """A function running one training step of the course MLP (same weights and batch for every library)."""
    nn = lib.nn
    rng = np.random.default_rng(0)
    layers = []
    for fan_in, fan_out in zip(LAYER_SIZES[:-1], LAYER_SIZES[1:]):
        layers += [nn.Linear(fan_in, fan_out), nn.ReLU()]
    model = nn.Sequential(*layers[:-1])
    with lib.no_grad():
        for parameter in model.parameters():
            parameter.copy_(lib.tensor(rng.uniform(-0.1, 0.1, tuple(parameter.shape)).astype(np.float32)))
    images = lib.tensor(rng.random((64, 64), dtype=np.float32))
    labels = lib.tensor(rng.integers(0, 10, 64))
    optimizer = lib.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

    def loss_of(x, y):
        return nn.functional.cross_entropy(model(x), y)

    loss_function = lib.compile(loss_of) if compiled else loss_of

    def step():
        optimizer.zero_grad()
        loss = loss_function(images, labels)
        loss.backward()
        optimizer.step()
        return loss

    return step, model


def _encoder(lib, compiled: bool):
    lib.manual_seed(0)
    layer = lib.nn.TransformerEncoderLayer(64, 4, dim_feedforward=256, dropout=0.0, batch_first=True).eval()
    source = lib.tensor(np.random.default_rng(1).standard_normal((8, 32, 64)).astype(np.float32))
    run_layer = lib.compile(layer) if compiled else layer

    def infer():
        with lib.no_grad():
            return run_layer(source)

    return infer, layer


def _variants(workload: str, torch_compile: bool = False) -> dict:
    import minitorch

    builder = _mlp_step if workload == "mlp_train_step" else _encoder
    variants = {"minitorch eager": builder(minitorch, False)[0], "minitorch compiled": builder(minitorch, True)[0]}
    try:
        import torch

        torch.set_num_threads(1)
        variants["PyTorch eager"] = builder(torch, False)[0]
        if torch_compile and shutil.which(os.environ.get("CXX", "c++")):  # Inductor writes C++ for the CPU
            variants["PyTorch compiled"] = builder(torch, True)[0]
    except ImportError:
        pass
    return variants


def _check(workload: str) -> None:
    """The compiled minitorch variant gives eager's results (a fresh pair of models from the same weights)."""
    import minitorch

    builder = _mlp_step if workload == "mlp_train_step" else _encoder
    eager, eager_model = builder(minitorch, False)
    compiled, compiled_model = builder(minitorch, True)
    for _ in range(3):  # several steps: the compiled step must follow the same trajectory
        expected, actual = eager(), compiled()
        np.testing.assert_allclose(actual.detach().numpy(), expected.detach().numpy(), rtol=1e-4, atol=1e-5)
    for eager_parameter, compiled_parameter in zip(eager_model.parameters(), compiled_model.parameters()):
        np.testing.assert_allclose(compiled_parameter.detach().numpy(), eager_parameter.detach().numpy(),
                                   rtol=1e-4, atol=1e-5)


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def _time(function, repeats: int, clock) -> float:
    started = clock()
    for _ in range(repeats):
        function()
    return (clock() - started) / repeats


def run(rounds: int, repeats: int, clock=time.perf_counter, torch_compile: bool = False) -> list[dict]:
    results = []
    for workload in GOALS:
        _check(workload)
        variants = _variants(workload, torch_compile)
        for function in variants.values():
            for _ in range(5):  # warm up: the compiled variant captures and compiles here
                function()
        names = list(variants)
        times = {name: [] for name in names}
        for round_number in range(rounds):
            order = names[round_number % len(names):] + names[:round_number % len(names)]
            for name in order:
                times[name].append(_time(variants[name], repeats, clock))
        speedups = [eager / compiled for eager, compiled in zip(times["minitorch eager"], times["minitorch compiled"])]
        row = {"workload": workload, **{name: statistics.median(values) for name, values in times.items()},
               "speedup": statistics.median(speedups), "goal": GOALS[workload]}
        if "PyTorch eager" in times:
            row["compiled / PyTorch"] = statistics.median(
                [compiled / torch_time for compiled, torch_time in zip(times["minitorch compiled"],
                                                                       times["PyTorch eager"])])
        results.append(row)
    return results


def _format(seconds: float) -> str:
    return f"{seconds * 1e6:.0f} µs" if seconds < 1e-2 else f"{seconds * 1e3:.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--clock", choices=list(CLOCKS), default="wall",
                        help="wall time, or the process's CPU time (steadier on a machine other jobs share)")
    parser.add_argument("--torch-compile", action="store_true",
                        help="also time torch.compile (needs a C++ compiler; compiling takes a minute or more)")
    arguments = parser.parse_args()
    results = run(arguments.rounds, arguments.repeats, CLOCKS[arguments.clock], arguments.torch_compile)
    print(f"One thread; {arguments.clock} clock; medians of {arguments.rounds} rounds of {arguments.repeats} calls; "
          "speedup = median of per-round eager/compiled ratios.\n")
    print("| Workload | minitorch eager | minitorch compiled | speedup | goal | PyTorch eager | compiled / PyTorch "
          "| PyTorch compiled |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for row in results:
        torch_cells = (f"{_format(row['PyTorch eager'])} | {row['compiled / PyTorch']:.2f}x"
                       if "PyTorch eager" in row else "- | -")
        verdict = "met" if row["speedup"] >= row["goal"] else "not met"
        print(f"| {row['workload']} | {_format(row['minitorch eager'])} | {_format(row['minitorch compiled'])} | "
              f"{row['speedup']:.2f}x | {row['goal']}x ({verdict}) | {torch_cells} | "
              f"{_format(row['PyTorch compiled']) if 'PyTorch compiled' in row else '-'} |")


if __name__ == "__main__":
    main()
