"""The learner's instant checks: grading.check, check_hidden, hint and summary, on the demo exercises.

``check`` reports and never raises (Run All goes on); ``check_hidden`` decides the grade and raises.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch
from grading import check, check_hidden, checks, hint, randn, registry, summary
from grading.compare import compare, output_arrays


def relu(x):
    return minitorch.where(x > 0, x, minitorch.zeros_like(x))


def linear(x, weight, bias):
    return x @ weight.T + bias


@pytest.fixture(autouse=True)
def fresh_results(monkeypatch):
    monkeypatch.setattr(checks, "_results", {})
    monkeypatch.setattr(checks, "_hints_shown", {})


def test_correct_solution_passes_every_public_case(capsys):
    check("demo.relu", relu)
    check("demo.linear", linear)
    printed = capsys.readouterr()
    assert "demo.relu: all 2 public cases pass" in printed.out
    assert "demo.linear: all 2 public cases pass" in printed.out
    assert printed.err == ""


def test_wrong_answer_reports_expected_and_got(capsys):
    def no_bias(x, weight, bias):
        return x @ weight.T

    assert check("demo.linear", no_bias) == "failed"  # reported, not raised: Run All goes on
    out = capsys.readouterr().out
    assert "public case 1 of 2 FAILED: wrong values in 8 of 8 entries; largest difference" in out
    assert "input x = array of shape (4, 3), dtype float32" in out
    assert "input bias = array of shape (2,)" in out
    assert "expected: shape (4, 2), dtype float32" in out
    # where help is, not the help: no hint step is printed unasked
    assert 'stuck? hint("demo.linear") shows hint step 1 of' in out
    assert all(step not in out for step in registry.get("demo.linear").hints)
    # the first failing case only, and no input's values
    assert "public case 2 of 2" not in out and "1 more public case fails too" in out
    assert "[" not in out and "Traceback" not in out


def test_wrong_shape_and_dtype(capsys):
    assert check("demo.relu", lambda x: relu(x).reshape(-1)) == "failed"
    assert "wrong shape: expected (3, 4), got (12,)" in capsys.readouterr().out
    assert check("demo.relu", lambda x: relu(x).double()) == "failed"
    assert "wrong dtype: expected float32, got float64" in capsys.readouterr().out


def test_blank_exercise_is_not_implemented_yet(capsys):
    def stub(x):
        # YOUR CODE HERE
        raise NotImplementedError()

    assert check("demo.relu", stub) == "not implemented yet"
    out = capsys.readouterr().out
    assert "demo.relu: not implemented yet. Write stub in the cell above" in out  # the function whose stub raised
    assert "Traceback" not in out

    def empty(x):
        pass

    assert check("demo.relu", empty) == "not implemented yet"
    assert "Write relu in the cell above" in capsys.readouterr().out  # no stub raised: the exercise's function


def test_not_implemented_names_the_learners_function_not_the_given_wrapper(capsys):
    class MyRelu:
        def forward(self, x):
            # YOUR CODE HERE
            raise NotImplementedError()

    def relu_report_of_my_relu(x):  # a wrapper the notebook gives, calling the learner's piece
        return MyRelu().forward(x)

    assert check("demo.relu", relu_report_of_my_relu) == "not implemented yet"
    out = capsys.readouterr().out
    assert "Write MyRelu.forward in the cell above" in out
    assert "relu_report_of_my_relu" not in out

    # a NotImplementedError raised inside grading or minitorch (a withheld piece) is no stub of the learner's:
    # the message then names the exercise's function
    inside = {}
    exec(compile("def withheld(x):\n    raise NotImplementedError()\n", checks.__file__, "exec"), inside)
    assert check("demo.relu", lambda x: inside["withheld"](x)) == "not implemented yet"
    assert "Write relu in the cell above" in capsys.readouterr().out


def test_nan_is_reported_as_nan_with_its_place(capsys):
    def unstable_relu(x):
        return relu(x) * (x / x)  # 0 / 0 at an exact zero

    out_case = registry.get("demo.relu").public[1][0]
    assert (out_case == 0).any()
    check("demo.relu", unstable_relu)
    out = capsys.readouterr().out
    assert "public case 2 of 2" in out and "NaN in 1 of 5 entries where the reference is finite" in out
    assert "first at index (0, 2): expected 0, got nan" in out and "largest difference" not in out


def test_exception_in_learner_code_names_its_line(capsys):
    def broken(x, weight, bias):
        return x @ weight + bias  # forgot the transpose

    check("demo.linear", broken)
    out = capsys.readouterr().out
    assert "raised RuntimeError: mat1 and mat2 shapes cannot be multiplied" in out
    assert "(in broken, line" in out and "return x @ weight + bias" in out


def test_returning_an_array_instead_of_a_tensor(capsys):
    check("demo.relu", lambda x: np.maximum(x.numpy(), 0))
    assert "asks for a minitorch Tensor" in capsys.readouterr().out


def test_not_a_function(capsys):
    assert check("demo.relu", 3) == "failed"
    assert "expected the function relu, got int" in capsys.readouterr().out


def test_warnings_are_silenced(capsys):
    def noisy(x):
        warnings.warn("a library warning", UserWarning, stacklevel=1)
        np.log(np.zeros(2))  # RuntimeWarning: divide by zero
        return relu(x)

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning escaping the helper would raise here
        check("demo.relu", noisy)
    assert capsys.readouterr().err == ""


def test_summary_lists_each_exercise(capsys):
    check("demo.relu", relu)
    check("demo.linear", lambda x, weight, bias: None)
    capsys.readouterr()
    table = summary("demo")
    assert table == {"demo.relu": "passed", "demo.linear": "not implemented yet"}
    out = capsys.readouterr().out
    assert "1 of 2 exercises pass" in out
    assert summary("demo") == table
    assert summary() == table  # every chapter checked so far


def test_summary_before_any_check(capsys):
    assert summary("demo") == {"demo.relu": "not checked yet", "demo.linear": "not checked yet"}
    assert summary() == {}
    assert "No exercises checked yet" in capsys.readouterr().out


def test_check_hidden_hides_the_cases(capsys):
    cases = [(randn(5, 7, seed=101),), (randn(2, 3, 4, seed=102),)]
    check_hidden("demo.relu", relu, cases)
    assert "all 2 hidden cases pass" in capsys.readouterr().out
    with pytest.raises(AssertionError, match="4 of 4 cases failed"):  # the public cases count too
        check_hidden("demo.relu", lambda x: x, cases)
    out = capsys.readouterr().out
    assert "hidden case 1 of 2 FAILED: wrong values" in out and " of 35" not in out
    assert "shape" not in out and "input" not in out and f"{cases[0][0][0, 0]:.4f}" not in out


def test_collecting_records_without_running():
    with checks.collecting() as collected:
        check("demo.relu", "not even a function")
        check_hidden("demo.relu", None, [(randn(2, seed=1),)])
    assert collected.checked == ["demo.relu"]
    assert collected.hidden[0][0] == "demo.relu" and collected.hidden[0][1][0][0].shape == (2,)


def test_registry_rejects_bad_entries():
    with pytest.raises(ValueError, match="chapter.exercise"):
        registry.exercise("norelu", function="relu", reference=relu)
    with pytest.raises(TypeError, match="a case is a tuple"):
        registry.exercise("demo.bad", function="f", reference=relu, public=[np.zeros(3)])
    with pytest.raises(TypeError, match="numeric or bool"):
        registry.exercise("demo.bad", function="f", reference=relu, public=[(np.array(["a"]),)])
    with pytest.raises(KeyError, match="no exercise named 'demo.nothing'"):
        registry.get("demo.nothing")
    with pytest.raises(KeyError, match="no exercise named 'nochapter.relu'"):
        registry.get("nochapter.relu")


def test_randn_is_reproducible():
    assert np.array_equal(randn(3, 4, seed=7), randn(3, 4, seed=7))
    assert randn(3, seed=7).dtype == np.float32


def test_compare_handles_nan_inf_and_integers():
    nan = np.array([np.nan, np.inf, 1.0], dtype=np.float32)
    assert compare([nan], [nan.copy()], rtol=1e-5, atol=1e-6, check_dtype=True) is None
    assert compare([np.arange(3)], [np.arange(3)], rtol=0, atol=0, check_dtype=True) is None
    mismatch = compare([np.arange(3)], [np.arange(3) + 1], rtol=0, atol=0, check_dtype=True)
    assert mismatch.kind == "values" and "3 of 3" in mismatch.detail and mismatch.safe_detail == "wrong values"
    assert compare([np.zeros(2)], [np.zeros(2), np.zeros(2)], rtol=0, atol=0, check_dtype=True).kind == "count"


def test_output_arrays_kinds():
    assert output_arrays(minitorch.ones(2))[0] == ["tensor"]
    assert output_arrays((minitorch.ones(2), np.zeros(1)))[0] == ["tensor", "ndarray"]
    assert output_arrays(3.0)[0] == ["number"]
    with pytest.raises(TypeError, match="returned None"):
        output_arrays(None)
    with pytest.raises(TypeError, match="dtype object"):
        output_arrays(np.array([object()]))


def test_check_hidden_fails_a_function_that_fails_only_a_public_case(capsys):
    public = registry.get("demo.relu").public[0][0]

    def only_right_off_the_public_case(x):
        return x if x.shape == public.shape else relu(x)

    with pytest.raises(AssertionError, match="1 of 3 cases failed"):
        check_hidden("demo.relu", only_right_off_the_public_case, [(randn(5, 7, seed=101),)])
    assert "public case 1 of 2 FAILED" in capsys.readouterr().out


def test_an_input_changed_in_place_fails(capsys):
    def relu_in_place(x):
        x[x < 0] = 0
        return x

    assert check("demo.relu", relu_in_place) == "failed"
    assert "changed its input x in place" in capsys.readouterr().out


def test_colours_only_in_a_kernel(capsys, monkeypatch):
    check("demo.relu", lambda x: x)
    assert "\x1b[" not in capsys.readouterr().out
    monkeypatch.setattr(checks, "_in_kernel", lambda: True)
    check("demo.relu", lambda x: x)
    assert "\x1b[31m" in capsys.readouterr().out


def test_hints_come_one_step_at_a_time(capsys, monkeypatch):
    entry = registry.get("demo.relu")
    monkeypatch.setattr(registry, "_EXERCISES", dict(registry._EXERCISES))
    registry._EXERCISES["demo.relu"] = type(entry)(**{**entry.__dict__, "hints": ("idea A", "formula B", "code C")})
    check("demo.relu", lambda x: x)
    out = capsys.readouterr().out
    assert 'hint("demo.relu") shows hint step 1 of 3' in out and "idea A" not in out
    hint("demo.relu")
    hint("demo.relu")
    out = capsys.readouterr().out
    assert "hint 1 of 3: idea A" in out and "hint 2 of 3: formula B" in out and "code C" not in out
    check("demo.relu", lambda x: x)  # the pointer follows the steps already seen
    assert 'hint("demo.relu") shows hint step 3 of 3' in capsys.readouterr().out
    hint("demo.relu", 3)
    hint("demo.relu")
    assert capsys.readouterr().out.count("hint 3 of 3: code C") == 2
    check("demo.relu", lambda x: x)
    assert 'hint("demo.relu", 1) to hint("demo.relu", 3) show the 3 hint steps again' in capsys.readouterr().out


def test_a_cell_ending_with_check_or_summary_shows_the_report_once():
    assert hasattr(check("demo.relu", relu), "_ipython_display_")
    assert hasattr(summary("demo"), "_ipython_display_")


def test_texts_are_compared_and_reported_as_texts():
    from grading.compare import decode_texts, encode_texts

    names = ["gain", "first.weight", "rest.first.bias"]
    assert decode_texts(encode_texts(names)) == names
    same = compare([encode_texts(names)], [encode_texts(list(names))], rtol=0, atol=0, check_dtype=True, texts=(1,))
    assert same is None
    mismatch = compare([encode_texts(names)], [encode_texts(["gain", "weight"])], rtol=0, atol=0, check_dtype=True,
                       texts=(1,))
    assert mismatch.detail == "expected ['gain', 'first.weight', 'rest.first.bias'], got ['gain', 'weight']"
    assert mismatch.safe_detail == "wrong names"
    # without texts=, the same arrays are numbers: a different count of names is a wrong shape
    assert compare([encode_texts(names)], [encode_texts(["gain"])], rtol=0, atol=0, check_dtype=True).kind == "shape"


def test_nan_and_inf_are_named_not_measured():
    want = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)
    nan = compare([want], [np.array([[1.0, np.nan], [np.nan, 4.0]], dtype=np.float32)], rtol=1e-5, atol=1e-6,
                  check_dtype=True)
    assert nan.detail.startswith("NaN in 2 of 4 entries where the reference is finite; first at index (0, 1)")
    assert nan.safe_detail == "NaN where the reference is finite" and "largest difference" not in nan.detail
    inf = compare([want], [np.array([[1.0, 2.0], [3.0, np.inf]], dtype=np.float32)], rtol=1e-5, atol=1e-6,
                  check_dtype=True)
    assert "inf in 1 of 4 entries" in inf.detail and "overflowed" in inf.detail
    # where the reference itself is NaN, a NaN answer is right
    assert compare([np.array([np.nan])], [np.array([np.nan])], rtol=0, atol=0, check_dtype=True) is None
