"""Core workloads: the fixed cost of one small op, and one large matrix product.

* ``small_ops``: ``y = (a * b + a).sum(); y.backward()`` on 4x4 tensors, 10,000 times.
  With so little arithmetic, the time is the framework's own bookkeeping per op
  (building the graph node, dispatch, the backward walk): the *per-op overhead*.
* ``small_ops_math``: the same with ``tanh`` and ``exp`` in the chain.
* ``matmul_1024``: ``c = a @ b; c.backward(g)`` on 1024x1024 float32 matrices. Here
  the three matrix products (one forward, two backward) dominate, and everything else
  should vanish next to them.

minitorch and PyTorch run the *same* function (``lib`` is the module), which is the
project's promise: code written against minitorch runs unchanged on PyTorch. The NumPy
version writes the backward pass out by hand, as a learner would without autograd.
"""

from __future__ import annotations

import numpy as np

from benchmarks.workload import Target, Workload


def _arrays(*shapes, seed: int = 0):
    """Float32 inputs drawn once, so every framework computes on the same numbers."""
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(np.float32) for shape in shapes]


def _leaves(lib, *arrays):
    return [lib.tensor(array, requires_grad=True) for array in arrays]


def _import(name):
    import importlib

    return importlib.import_module(name)


# -- small ops: y = (a * b + a).sum() ---------------------------------------------------
def _small_ops_autograd(module_name):
    def setup():
        lib = _import(module_name)
        a, b = _leaves(lib, *_arrays((4, 4), (4, 4)))

        def step():
            a.grad = None
            b.grad = None
            y = (a * b + a).sum()
            y.backward()
            return a.grad, b.grad

        return step

    return setup


def _small_ops_numpy():
    a, b = _arrays((4, 4), (4, 4))

    def step():
        c = a * b
        d = c + a
        d.sum()  # y, the loss
        grad_d = np.ones_like(d)  # dy/dd = 1 everywhere
        grad_c = grad_d  # d = c + a
        grad_a = grad_c * b + grad_d  # a feeds both the product and the sum
        grad_b = grad_c * a
        return grad_a, grad_b

    return step


# -- small ops with math: y = (tanh(a * b) + exp(a)).sum() ------------------------------
def _small_math_autograd(module_name):
    def setup():
        lib = _import(module_name)
        a, b = _leaves(lib, *_arrays((4, 4), (4, 4)))

        def step():
            a.grad = None
            b.grad = None
            y = ((a * b).tanh() + a.exp()).sum()
            y.backward()
            return a.grad, b.grad

        return step

    return setup


def _small_math_numpy():
    a, b = _arrays((4, 4), (4, 4))

    def step():
        c = a * b
        t = np.tanh(c)
        e = np.exp(a)
        d = t + e
        d.sum()  # y, the loss
        grad_d = np.ones_like(d)
        grad_c = grad_d * (1 - t * t)  # tanh' = 1 - tanh^2
        grad_a = grad_c * b + grad_d * e  # exp' = exp
        grad_b = grad_c * a
        return grad_a, grad_b

    return step


# -- matrix product: c = a @ b; c.backward(g) ----------------------------------------------
_N = 1024


def _matmul_autograd(module_name):
    def setup():
        lib = _import(module_name)
        a_array, b_array, g_array = _arrays((_N, _N), (_N, _N), (_N, _N), seed=1)
        a, b = _leaves(lib, a_array, b_array)
        g = lib.tensor(g_array)

        def step():
            a.grad = None
            b.grad = None
            c = a @ b
            c.backward(g)
            return a.grad, b.grad

        return step

    return setup


def _matmul_numpy():
    a, b, g = _arrays((_N, _N), (_N, _N), (_N, _N), seed=1)

    def step():
        a @ b  # c, the forward product
        grad_a = g @ b.T  # dc/da contracted with g
        grad_b = a.T @ g
        return grad_a, grad_b

    return step


WORKLOADS = [
    Workload(
        name="small_ops",
        description="(a * b + a).sum() forward+backward on 4x4 float32, 3 ops per step; time per op",
        setups={
            "minitorch": _small_ops_autograd("minitorch"),
            "pytorch": _small_ops_autograd("torch"),
            "numpy": _small_ops_numpy,
        },
        steps=10_000,
        quick_steps=2_000,
        target=Target("pytorch", 2.5),
        unit="op",
        units_per_step=3,
    ),
    Workload(
        name="small_ops_math",
        description="(tanh(a * b) + exp(a)).sum() forward+backward on 4x4 float32, 5 ops per step; time per op",
        setups={
            "minitorch": _small_math_autograd("minitorch"),
            "pytorch": _small_math_autograd("torch"),
            "numpy": _small_math_numpy,
        },
        steps=10_000,
        quick_steps=2_000,
        target=Target("pytorch", 3.0),
        unit="op",
        units_per_step=5,
    ),
    Workload(
        name="matmul_1024",
        description="c = a @ b; c.backward(g) with 1024x1024 float32 (3 matrix products); time per step",
        setups={
            "minitorch": _matmul_autograd("minitorch"),
            "pytorch": _matmul_autograd("torch"),
            "numpy": _matmul_numpy,
        },
        steps=3,
        quick_steps=1,
        target=Target("numpy", 1.15),
        unit="step",
        # float32 sums of 1024 products in different BLAS libraries (OpenBLAS, MKL) agree to
        # about 1e-5 relative; compare loosely, the check is there to catch wrong results.
        rtol=1e-3,
    ),
]
