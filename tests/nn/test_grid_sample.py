"""``F.affine_grid`` and ``F.grid_sample`` against PyTorch: values and both gradients, every mode, gradcheck, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from tests.support import require_torch


def _both(build, arrays, differentiable):
    """``build(lib, *tensors)`` in both libraries (float64); the outputs and the gradients of ``differentiable``."""
    torch = require_torch()
    results = []
    for lib in (minitorch, torch):
        tensors = [lib.tensor(a, requires_grad=i in differentiable) for i, a in enumerate(arrays)]
        output = build(lib, *tensors)
        weights = lib.tensor(np.linspace(-1, 2, output.numel()).reshape(tuple(output.shape)))
        (output * weights).sum().backward()
        results.append([output.detach().numpy()] + [tensors[i].grad.numpy() for i in differentiable])
    return results


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (1, 1, 1, 3), (2, 1, 3, 2, 4)])
def test_affine_grid_matches_pytorch(size, align_corners):
    rng = np.random.default_rng(0)
    theta = rng.standard_normal((size[0], len(size) - 2, len(size) - 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the unit-size warning is PyTorch's too
        ours, theirs = _both(lambda lib, t: lib.nn.functional.affine_grid(t, list(size), align_corners=align_corners),
                             [theta], [0])
    for got, expected in zip(ours, theirs):
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_grid_sample_matches_pytorch(mode, padding_mode, align_corners):
    rng = np.random.default_rng(1)
    image = rng.standard_normal((2, 3, 5, 6))
    # Points inside and well outside [-1, 1] (padding and reflection matter), kept off the exact
    # pixel boundaries where bilinear's derivative jumps and nearest's rounding ties.
    grid = rng.uniform(-2.5, 2.5, (2, 4, 7, 2))

    def build(lib, input, grid):
        return lib.nn.functional.grid_sample(input, grid, mode=mode, padding_mode=padding_mode,
                                             align_corners=align_corners)

    ours, theirs = _both(build, [image, grid], [0, 1])
    for name, got, expected in zip(["output", "grad input", "grad grid"], ours, theirs):
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_spatial_transformer_chain_gradcheck(padding_mode):
    """theta -> affine_grid -> grid_sample, differentiated by finite differences in theta and the image."""
    rng = np.random.default_rng(2)
    image = minitorch.tensor(rng.standard_normal((1, 2, 4, 5)), requires_grad=True)
    theta = minitorch.tensor([[[0.9, 0.2, 0.1], [-0.15, 1.1, -0.05]]], dtype=minitorch.float64, requires_grad=True)

    def warp(image, theta):
        grid = F.affine_grid(theta, [1, 2, 3, 4], align_corners=False)
        return F.grid_sample(image, grid, padding_mode=padding_mode, align_corners=False)

    assert minitorch.autograd.gradcheck(warp, (image, theta))


def test_grid_sample_backward_is_once_differentiable():
    image = minitorch.ones(1, 1, 3, 3, requires_grad=True)
    grid = minitorch.zeros(1, 2, 2, 2, requires_grad=True)
    output = F.grid_sample(image, grid, align_corners=False)
    weights = minitorch.ones(1, 1, 2, 2, requires_grad=True)  # a gradient that itself requires grad
    (grad_image,) = minitorch.autograd.grad(output, image, grad_outputs=weights, create_graph=True)
    with pytest.raises(RuntimeError, match="trying to differentiate twice"):
        grad_image.sum().backward()


def test_identity_warp_returns_the_image():
    image = minitorch.arange(12.0).reshape(1, 1, 3, 4)
    identity = minitorch.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    for align_corners in (False, True):
        grid = F.affine_grid(identity, [1, 1, 3, 4], align_corners=align_corners)
        warped = F.grid_sample(image, grid, align_corners=align_corners)
        np.testing.assert_allclose(warped.numpy(), image.numpy(), atol=1e-5)


ERRORS = {
    "mode": lambda lib: lib.nn.functional.grid_sample(lib.zeros(1, 1, 2, 2), lib.zeros(1, 1, 1, 2), mode="linear",
                                                      align_corners=False),
    "padding": lambda lib: lib.nn.functional.grid_sample(lib.zeros(1, 1, 2, 2), lib.zeros(1, 1, 1, 2),
                                                         padding_mode="edge", align_corners=False),
    "batch": lambda lib: lib.nn.functional.grid_sample(lib.zeros(2, 1, 2, 2), lib.zeros(1, 1, 1, 2),
                                                       align_corners=False),
    "last dim": lambda lib: lib.nn.functional.grid_sample(lib.zeros(1, 1, 2, 2), lib.zeros(1, 1, 1, 3),
                                                          align_corners=False),
    "dtype": lambda lib: lib.nn.functional.grid_sample(lib.zeros(1, 1, 2, 2, dtype=lib.float64),
                                                       lib.zeros(1, 1, 1, 2), align_corners=False),
    "theta shape": lambda lib: lib.nn.functional.affine_grid(lib.zeros(1, 3, 3), [1, 1, 2, 2], align_corners=False),
    "theta dtype": lambda lib: lib.nn.functional.affine_grid(lib.zeros(1, 2, 3, dtype=lib.int64), [1, 1, 2, 2],
                                                             align_corners=False),
    "size rank": lambda lib: lib.nn.functional.affine_grid(lib.zeros(1, 2, 3), [1, 2, 2], align_corners=False),
    "empty size": lambda lib: lib.nn.functional.affine_grid(lib.zeros(1, 2, 3), [1, 1, 0, 2], align_corners=False),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_match_pytorch(case):
    torch = require_torch()
    outcomes = []
    for lib in (minitorch, torch):
        with pytest.raises(Exception) as error:
            ERRORS[case](lib)
        outcomes.append((type(error.value).__name__, str(error.value).replace("minitorch.", "torch.")))
    assert outcomes[0] == outcomes[1]


def test_default_align_corners_warns_like_pytorch():
    torch = require_torch()
    messages = []
    for lib in (minitorch, torch):
        with pytest.warns(UserWarning) as record:
            lib.nn.functional.grid_sample(lib.zeros(1, 1, 2, 2), lib.zeros(1, 1, 1, 2))
        messages.append(str(record[0].message))
    assert messages[0] == messages[1]
