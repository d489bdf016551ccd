"""``minitorch.functional`` mirrors ``torch.functional``: the same functions as the top level."""

import minitorch
import minitorch.functional
from tests.support import require, require_torch

# Members of torch.functional that minitorch does not implement (its docstring says so).
NOT_IN_MINITORCH = {"stft", "istft", "lu", "pca_lowrank", "svd_lowrank", "chain_matmul"}


def test_each_name_is_the_top_level_function():
    for name in minitorch.functional.__all__:
        assert getattr(minitorch.functional, name) is getattr(minitorch, name), name


def test_names_match_pytorch():
    torch_functional = require("torch.functional", "PyTorch is the reference")
    assert set(minitorch.functional.__all__) == set(torch_functional.__all__) - NOT_IN_MINITORCH


def test_einsum_through_the_module_matches_pytorch():
    torch = require_torch()
    torch_functional = require("torch.functional", "PyTorch is the reference")
    a = [[1.0, 2.0], [3.0, 4.0]]
    expected = torch_functional.einsum("ij,jk->ik", torch.tensor(a), torch.tensor(a))
    got = minitorch.functional.einsum("ij,jk->ik", minitorch.tensor(a), minitorch.tensor(a))
    assert got.tolist() == expected.tolist()
