"""minitorch.vision.utils (make_grid, save_image) and minitorch.vision.io against torchvision's rules.

torchvision is not a dependency of the kit, so the oracle for make_grid is torchvision's own
algorithm written out here in NumPy (a loop that copies each image into its cell), and the oracle
for the image files is Pillow reading what was written.
"""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

import minitorch
from minitorch.vision import io, utils


def _torchvision_make_grid(batch: np.ndarray, nrow=8, padding=2, normalize=False, value_range=None,
                           scale_each=False, pad_value=0.0) -> np.ndarray:
    """torchvision.utils.make_grid, as torchvision 0.2x writes it, on a B x C x H x W NumPy batch."""
    batch = batch.astype(np.float64)
    if batch.shape[1] == 1:
        batch = np.concatenate([batch] * 3, axis=1)
    if normalize:
        def norm(image):
            low, high = value_range if value_range is not None else (image.min(), image.max())
            return (np.clip(image, low, high) - low) / max(high - low, 1e-5)
        batch = np.stack([norm(image) for image in batch]) if scale_each else norm(batch)
    if batch.shape[0] == 1:
        return batch[0]
    count, channels, height, width = batch.shape
    columns = min(nrow, count)
    rows = math.ceil(count / columns)
    cell_height, cell_width = height + padding, width + padding
    grid = np.full((channels, cell_height * rows + padding, cell_width * columns + padding), pad_value)
    for k in range(count):
        y, x = divmod(k, columns)
        top, left = y * cell_height + padding, x * cell_width + padding
        grid[:, top:top + height, left:left + width] = batch[k]
    return grid


@pytest.mark.parametrize("count, channels, nrow, padding, pad_value", [
    (10, 3, 4, 1, -1.0), (7, 1, 8, 2, 0.0), (8, 3, 8, 0, 0.5), (5, 3, 2, 3, 1.0), (2, 1, 1, 2, 0.25),
])
def test_make_grid_lays_images_out_as_torchvision(count, channels, nrow, padding, pad_value):
    batch = np.random.default_rng(count).random((count, channels, 4, 5))
    grid = utils.make_grid(minitorch.tensor(batch), nrow=nrow, padding=padding, pad_value=pad_value)
    expected = _torchvision_make_grid(batch, nrow, padding, pad_value=pad_value)
    np.testing.assert_array_equal(grid.numpy(), expected)


@pytest.mark.parametrize("value_range, scale_each", [(None, False), (None, True), ((0.2, 0.7), False),
                                                     ((0.2, 0.7), True)])
def test_make_grid_normalizes_as_torchvision(value_range, scale_each):
    batch = np.random.default_rng(1).normal(size=(6, 3, 3, 3))
    grid = utils.make_grid(minitorch.tensor(batch), nrow=3, normalize=True, value_range=value_range,
                           scale_each=scale_each)
    expected = _torchvision_make_grid(batch, 3, normalize=True, value_range=value_range, scale_each=scale_each)
    np.testing.assert_allclose(grid.numpy(), expected, rtol=1e-12)


def test_make_grid_accepts_lists_single_images_and_passes_gradients():
    images = [minitorch.rand(1, 4, 4, requires_grad=True) for _ in range(3)]
    grid = utils.make_grid(images, nrow=2)
    assert grid.shape == (3, 14, 14)
    (grid * 2).sum().backward()
    for image in images:  # each gray pixel was copied into 3 channels, each weighted 2
        np.testing.assert_array_equal(image.grad.numpy(), np.full((1, 4, 4), 6.0))
    single = minitorch.rand(4, 5)
    assert utils.make_grid(single).shape == (3, 4, 5)
    with pytest.raises(TypeError, match="tensor or list of tensors expected"):
        utils.make_grid(np.zeros((2, 3, 4, 4)))
    with pytest.raises(TypeError, match="value_range has to be a tuple"):
        utils.make_grid(minitorch.rand(2, 3, 4, 4), normalize=True, value_range=[0, 1])


def test_save_image_writes_the_grid_rounded_to_8_bits(tmp_path):
    batch = minitorch.rand(4, 3, 5, 6, generator=minitorch.Generator().manual_seed(0))
    utils.save_image(batch, tmp_path / "grid.png", nrow=2)
    written = np.asarray(Image.open(tmp_path / "grid.png"))
    grid = _torchvision_make_grid(batch.numpy(), 2)
    expected = np.clip(grid * 255 + 0.5, 0, 255).astype(np.uint8).transpose(1, 2, 0)
    np.testing.assert_array_equal(written, expected)


@pytest.mark.parametrize("channels", [1, 3])
def test_png_round_trip_through_files_and_bytes(tmp_path, channels):
    image = minitorch.from_numpy(np.random.default_rng(channels).integers(0, 256, (channels, 7, 9), dtype=np.uint8))
    io.write_png(image, tmp_path / "image.png")
    again = io.read_image(tmp_path / "image.png")
    assert again.dtype == minitorch.uint8 and again.shape == (channels, 7, 9)
    np.testing.assert_array_equal(again.numpy(), image.numpy())
    np.testing.assert_array_equal(np.asarray(Image.open(tmp_path / "image.png")).reshape(7, 9, channels),
                                  image.numpy().transpose(1, 2, 0))
    np.testing.assert_array_equal(io.decode_image(io.encode_png(image)).numpy(), image.numpy())
    assert io.read_image(tmp_path / "image.png", io.ImageReadMode.RGB).shape == (3, 7, 9)
    assert io.read_image(tmp_path / "image.png", io.ImageReadMode.GRAY).shape == (1, 7, 9)


def test_jpeg_encodes_close_to_the_image_and_errors_name_the_problem(tmp_path):
    smooth = np.tile(np.linspace(0, 255, 16, dtype=np.uint8), (3, 16, 1))
    image = minitorch.from_numpy(np.ascontiguousarray(smooth))
    io.write_jpeg(image, tmp_path / "image.jpg", quality=95)
    again = io.read_image(tmp_path / "image.jpg").numpy().astype(int)
    assert np.abs(again - smooth).max() <= 8  # lossy, but close at quality 95
    with pytest.raises(RuntimeError, match="Input tensor dtype should be uint8"):
        io.encode_png(minitorch.rand(3, 4, 4))
    with pytest.raises(RuntimeError, match="The number of channels should be 1 or 3"):
        io.encode_png(minitorch.zeros(2, 4, 4, dtype=minitorch.uint8))
    with pytest.raises(ValueError, match="Image quality should be a positive number between 1 and 100"):
        io.encode_jpeg(image, quality=0)


def test_importing_vision_loads_every_part_as_torchvision_does():
    # A fresh interpreter: nothing else imported the submodules first.
    code = "import minitorch.vision as v; print(v.models.lenet5.__name__, v.utils.make_grid.__name__, " \
           "v.io.read_image.__name__, v.datasets.Digits.__name__, v.transforms.ToTensor.__name__)"
    printed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert printed.split() == ["lenet5", "make_grid", "read_image", "Digits", "ToTensor"]
