"""Chapter 1's GPU kernel build-it (``ch01.gpu_kernel``): the learner's CuPy ``ElementwiseKernel`` for
gelu_tanh(x + bias), checked on the stand-in where there is no GPU.

The stand-in (grading/library/elementwise.py) follows CuPy's rules around the kernel's body (``_kernel.pyx``:
placeholders, "Type is mismatched", broadcasting, the output made or given) and interprets a documented subset of
CUDA C with NumPy. These tests hold it to C's and CuPy's behaviour, run the learner's kernel on both stand-ins (the
learner's, and the tests' CuPy stand-in of tests/gpu_standin), and check that a different correct kernel passes while
plausible mistakes fail naming the concept.
"""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

from grading import check
from grading.library import elementwise
from tests.grading.chapter_notebooks import solutions

GELU = "0.5 * v * (1 + tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)))"


def _report_of(make_kernel, cupy=None):
    cupy = cupy or elementwise.standin()
    return lambda *case: elementwise.kernel_report(make_kernel, cupy, *case)


def _kernel(in_params, out_params, body):
    return lambda cupy: cupy.ElementwiseKernel(in_params, out_params, body, "bias_gelu")


def test_the_reference_solution_passes(capsys):
    check("ch01.gpu_kernel", solutions("01_tensors")["gpu_kernel_report"])
    assert "all 3 public cases pass" in capsys.readouterr().out


def test_a_kernel_written_differently_passes(capsys):
    """0.5 (1 + tanh(u)) is the logistic function of 2u: a body with float literals and exp instead of tanh."""
    body = "T v = x + b; T u = 0.7978845608028654f * (v + 0.044715f * v * v * v); y = v / (1 + exp(-2 * u))"
    check("ch01.gpu_kernel", _report_of(_kernel("T x, T b", "T y", body)))
    assert "all 3 public cases pass" in capsys.readouterr().out


MISTAKES = {  # mistake -> (the kernel, what the failure says)
    "fixed float32 types instead of a placeholder": (
        _kernel("float32 x, float32 bias", "float32 y", f"float v = x + bias; y = {GELU}"), "Type is mismatched"),
    "the bias added after the activation, not fused before it": (
        _kernel("T x, T bias", "T y", f"T v = x; y = {GELU} + bias"), "the bias broadcast along every row"),
    "a raw bias indexed by the output's index i (no broadcasting)": (
        _kernel("T x, raw T bias", "T y", f"T v = x + bias[i]; y = {GELU}"), "reads past the end of the raw array"),
    "the exact (erf) GELU instead of the tanh approximation": (
        _kernel("T x, T bias", "T y", "T v = x + bias; y = 0.5 * v * (1 + erf(v / sqrt(2.0)))"),
        "the bias broadcast along every row"),
    "the parameters indexed as arrays": (
        _kernel("T x, T bias", "T y", f"T v = x[i] + bias[i]; y = {GELU}"), "already this thread's element"),
}  # fmt: skip


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_kernel_mistakes_fail_naming_the_concept(mistake, capsys):
    kernel, concept = MISTAKES[mistake]
    with contextlib.suppress(AssertionError):  # a wrong value raises; an error is reported and returned
        assert check("ch01.gpu_kernel", _report_of(kernel)) != "passed"
    out = capsys.readouterr().out
    assert "FAILED" in out and concept in out, out


def test_an_answer_that_calls_minitorchs_gelu_fails_naming_it(capsys):
    with contextlib.suppress(AssertionError):
        check("ch01.gpu_kernel", _report_of(elementwise.minitorch_bias_gelu))
    out = capsys.readouterr().out
    assert "all 3 public cases pass" not in out and "minitorch.nn.functional.gelu" in out, out


def test_the_learners_kernel_gives_the_same_on_the_tests_cupy_stand_in():
    from tests import gpu_standin

    make_kernel = solutions("01_tensors")["bias_gelu_kernel"]
    rng = np.random.default_rng(5)
    case = (rng.standard_normal((3, 4, 5)), 1, rng.standard_normal(3), 1)
    with gpu_standin.installed() as cupy:
        theirs = elementwise.kernel_report(make_kernel, cupy, *case)
        result = make_kernel(cupy)(cupy.asarray(case[0]), cupy.asarray(np.zeros(5)))
        assert isinstance(result, cupy.ndarray)
        with pytest.raises(TypeError, match="Implicit conversion to a NumPy array is not allowed"):
            np.asarray(result)
    mine = elementwise.kernel_report(make_kernel, elementwise.standin(), *case)
    for got, expected in zip(theirs, mine):
        np.testing.assert_array_equal(got, expected)
    expected = elementwise.kernel_report(elementwise.minitorch_bias_gelu, elementwise.standin(), *case)
    np.testing.assert_allclose(theirs[0], expected[0], rtol=1e-12, atol=1e-12)


# -- the stand-in keeps CuPy's rules around the body ------------------------------------------------------------------
def test_the_stand_in_keeps_cupys_rules_around_the_body():
    cupy = elementwise.standin()
    add = cupy.ElementwiseKernel("T a, T b", "T c", "c = a + b", "add")
    a32, b64 = cupy.asarray(np.ones((2, 3), np.float32)), cupy.asarray(np.ones(3))
    with pytest.raises(TypeError, match=r"Type is mismatched\. b <class 'numpy.float64'> <class 'numpy.float32'> T"):
        add(a32, b64)
    with pytest.raises(TypeError, match="Unsupported type <class 'numpy.ndarray'>"):
        add(np.ones(3), np.ones(3))
    with pytest.raises(TypeError, match="Wrong number of arguments for add"):
        add(a32)
    with pytest.raises(ValueError, match=r"Out shape is mismatched: \(3,\) while \(2, 3\) is expected\."):
        add(a32, cupy.asarray(np.ones(3, np.float32)), cupy.empty((3,), dtype=np.float32))
    with pytest.raises(ValueError, match="Can not use 'i' as a parameter name"):
        cupy.ElementwiseKernel("T i", "T c", "c = i", "k")
    out = cupy.empty((2, 3), dtype=np.float32)
    assert add(a32, cupy.asarray(np.arange(3, dtype=np.float32)), out) is out
    np.testing.assert_array_equal(cupy.asnumpy(out), np.ones((2, 3)) + np.arange(3))
    scaled = cupy.ElementwiseKernel("T x, T alpha", "T y", "y = alpha * x", "scale")(a32, 2.5)  # a scalar cast to T
    assert cupy.asnumpy(scaled).dtype == np.float32 and float(cupy.asnumpy(scaled)[0, 0]) == 2.5


@pytest.mark.parametrize(
    "body, expected",
    [
        ("y = 1 + 2 * x - 6 / 3", lambda x: 1 + 2 * x - 2),
        ("y = (int)(x / 2)", lambda x: np.trunc(x / 2)),  # a cast truncates toward zero
        ("int n = -7; y = n / 2 + n % 2", lambda x: np.full_like(x, -3 + -1)),  # C's integer / and %
        ("y = x > 0 && x < 2 ? x : -x", lambda x: np.where((x > 0) & (x < 2), x, -x)),
        ("y = !(x > 0) || x == 1.5 ? 1.0f : 0.0f", lambda x: ((x <= 0) | (x == 1.5)).astype(float)),
        ("y = x; y += 1; y *= 2; y /= 4; y -= 1", lambda x: (x + 1) * 2 / 4 - 1),
        ("y = pow(fabs(x), 0.5) + max(x, 0.0) + i + _ind.size()", lambda x: np.abs(x) ** 0.5 + np.maximum(x, 0)
         + np.arange(x.size) + x.size),
        ("y = x < 0 ? x < -1 ? -2 : -1 : 1", lambda x: np.where(x < 0, np.where(x < -1, -2, -1), 1)),
    ],
)
def test_the_interpreted_subset_computes_what_c_computes(body, expected):
    cupy = elementwise.standin()
    x = np.array([-3.5, -1.0, -0.25, 0.0, 1.5, 2.0, 4.75])
    got = cupy.asnumpy(cupy.ElementwiseKernel("float64 x", "float64 y", body, "k")(cupy.asarray(x)))
    np.testing.assert_allclose(got, expected(x), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    "body, says",
    [
        ("if (x > 0) { y = x; }", "no 'if' statement"),
        ("for (int k = 0; k < 3; k++) y = x", "no 'for' statement"),
        ("y = sinh(x)", "no function sinh()"),
        ("x = 2", "an input of the kernel"),
        ("z = x", 'identifier "z" is undefined'),
        ("y = *x", "unexpected '*'"),
        ("T v = x", "never assigns the output y"),
    ],
)
def test_a_body_outside_the_subset_is_refused_saying_so(body, says):
    cupy = elementwise.standin()
    with pytest.raises((elementwise.UnsupportedC, SyntaxError), match=says.replace("(", r"\(").replace(")", r"\)")):
        cupy.ElementwiseKernel("T x", "T y", body, "k")(cupy.asarray(np.ones(2)))


def test_the_hidden_check_nbgrader_runs_refuses_minitorchs_gelu_and_passes_the_reference(capsys):
    """nbgrader autograde runs the hidden test cell, whose check_hidden withholds the exercise's pieces."""
    from grading import check_hidden

    hidden = [(np.random.default_rng(7).standard_normal((3, 2)).astype(np.float32), 0,
               np.random.default_rng(8).standard_normal(2).astype(np.float32), 1)]  # fmt: skip
    check_hidden("ch01.gpu_kernel", solutions("01_tensors")["gpu_kernel_report"], hidden)
    capsys.readouterr()
    with pytest.raises(AssertionError):
        check_hidden("ch01.gpu_kernel", _report_of(elementwise.minitorch_bias_gelu), hidden)
    assert "minitorch.nn.functional.gelu" in capsys.readouterr().out


def test_without_a_gpu_the_kernel_runs_on_the_stand_in_and_says_so():
    from tests import gpu_standin

    assert elementwise.gpu().__name__ == "cupy (stand-in)"  # no GPU on this machine
    with gpu_standin.installed():  # the tests' CuPy stand-in is no GPU either
        assert elementwise.gpu().__name__ == "cupy (stand-in)"
        assert elementwise.which(gpu_standin.cupy).startswith("no GPU here")
    assert elementwise.which(elementwise.standin()).startswith("no GPU here: your kernel runs on the stand-in")


# -- the kernel as a piece of the learner's library (grading/library: "bias_gelu_kernel") -------------------------
def _gelu_tanh(values):
    """The tanh approximation by hand (float64): the independent reference of the fallback's values."""
    return 0.5 * values * (1 + np.tanh(np.sqrt(2 / np.pi) * (values + 0.044715 * values**3)))


def test_the_reference_kernel_is_the_learners_piece(capsys):
    import grading.library as library

    names = dict(solutions("01_tensors"))
    assert library.use("bias_gelu_kernel", names) is names["bias_gelu_kernel"]
    assert capsys.readouterr().out == "using your bias_gelu_kernel (this notebook)\n"
    assert library.my_library("01_tensors", names)["bias_gelu_kernel"] == "yours"


def test_a_blank_kernel_falls_back_to_minitorchs_in_one_line(capsys):
    import grading.library as library
    from tests.grading.chapter_notebooks import namespace

    fallback = library.use("bias_gelu_kernel", namespace("01_tensors", "release"))
    assert fallback is elementwise.minitorch_bias_gelu
    assert capsys.readouterr().out == "your bias_gelu_kernel is still blank: using minitorch's\n"
    # the fallback has the kernel's interface, and computes gelu_tanh(x + bias) with the bias broadcast
    cupy = elementwise.standin()
    rng = np.random.default_rng(7)
    x, bias = rng.standard_normal((3, 5)), rng.standard_normal(5)
    got = cupy.asnumpy(fallback(cupy)(cupy.asarray(x), cupy.asarray(bias)))
    np.testing.assert_allclose(got, _gelu_tanh(x + bias), rtol=1e-12, atol=1e-12)


def test_a_wrong_kernel_is_reported_as_failing_its_check(capsys):
    """The exact (erf) GELU where the tanh approximation is asked: the piece is not the learner's yet."""
    import grading.library as library

    names = dict(solutions("01_tensors"))
    wrong = _kernel("T x, T bias", "T y", "T v = x + bias; y = 0.5 * v * (1 + erf(v / sqrt(2.0)))")
    names["bias_gelu_kernel"] = wrong
    names["gpu_kernel_report"] = _report_of(wrong)
    assert library.use("bias_gelu_kernel", names) is elementwise.minitorch_bias_gelu
    assert capsys.readouterr().out == (
        "your bias_gelu_kernel does not pass its public checks yet (ch01.gpu_kernel): using minitorch's\n")
