"""The corpus's output comparison (``tests/corpus/compare.py``), on hand-written outputs."""

from tests.corpus.compare import Tolerance, as_torch_names, first_difference, tokens, tolerance_of


def test_numbers_are_cut_out_of_text_but_names_keep_their_digits():
    assert tokens("conv1 float32 in_features=784 x: -2.5e-03, nan") == [
        ("text", "conv1 float32 in_features="), ("number", "784"), ("text", "x:"), ("number", "-2.5e-03"),
        ("text", ","), ("number", "nan"), ("text", ""),
    ]


def test_a_neighbouring_last_digit_is_accepted_and_two_apart_is_not():
    assert first_difference("loss 0.12345\n", "loss 0.12346\n", Tolerance()) is None
    difference = first_difference("loss 0.12344\n", "loss 0.12346\n", Tolerance())
    assert "'0.12344' where PyTorch printed '0.12346'" in difference
    assert "minitorch line: loss 0.12344" in difference


def test_integers_match_exactly():
    assert first_difference("torch.Size([3, 4])", "torch.Size([3, 5])", Tolerance(rtol=1.0)) is not None


def test_text_matches_exactly_except_space_runs_and_addresses():
    assert first_difference("tensor([ 1.0000,  -2.0000])", "tensor([1.0000, -2.0000])", Tolerance()) is None
    assert first_difference("<AddBackward0 object at 0x7f1>", "<AddBackward0 object at 0x55aa>", Tolerance()) is None
    assert first_difference("grad_fn=<MeanBackward0>", "grad_fn=<MseLossBackward0>", Tolerance()) is not None
    assert first_difference("a\nb", "a b", Tolerance()) is not None
    assert first_difference("Epoch 1  done", "Epoch 1 done", Tolerance()) is None
    assert first_difference("Epoch  one", "Epochone", Tolerance()) is not None


def test_a_tensor_suffix_may_wrap_onto_the_next_line():
    wrapped = "tensor([[1.0000, 2.0000]], dtype=torch.float64,\n       grad_fn=<SubBackward0>)"
    assert first_difference(wrapped, "tensor([[1.0000, 2.0000]], dtype=torch.float64, grad_fn=<SubBackward0>)",
                            Tolerance()) is None
    assert first_difference("tensor([1.,\n        2.])", "tensor([1., 2.])", Tolerance()) is not None


def test_declared_tolerance_widens_and_never_narrows():
    source = "# corpus-tolerance: rtol=1e-3 atol=1e-6 -- the reason\nimport torch\n"
    tolerance = tolerance_of(source)
    assert tolerance == Tolerance(rtol=1e-3, atol=1e-6)
    assert first_difference("100.05", "100.00", tolerance) is None
    assert first_difference("0.1235", "0.1234", tolerance) is None  # 1.5 units of the last place still apply
    assert tolerance_of("import torch\n") == Tolerance()


def test_missing_or_extra_output_is_a_difference():
    assert "pieces" in first_difference("a 1.0 b", "a 1.0 b 2.0", Tolerance())
    assert first_difference("a 1.0", "a 1.0 b", Tolerance()) is not None


def test_minitorch_names_are_spelled_as_pytorch_names():
    assert as_torch_names("minitorch.Size([2]) minitorch.float32 minitorch.vision.x") == (
        "torch.Size([2]) torch.float32 torchvision.x"
    )
