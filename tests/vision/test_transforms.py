"""Transforms against the same operations done directly with NumPy and Pillow (and PyTorch where it has them).

torchvision cannot be installed beside the pinned PyTorch, so the oracles are: NumPy code
written out here, Pillow's own calls, ``torch.nn.functional.interpolate(antialias=True)``
for tensor resizing and ``torch.nn.functional.grid_sample`` for rotations, as torchvision
itself computes them.
"""

from __future__ import annotations

import colorsys
import math

import numpy as np
import pytest
from PIL import Image, ImageEnhance

import minitorch
from minitorch.vision import transforms as T
from minitorch.vision.transforms import functional as F
from tests.support import require_torch


def _rgb_array(height=9, width=11, seed=0):
    return np.random.default_rng(seed).integers(0, 256, size=(height, width, 3), dtype=np.uint8)


def _float_image(channels=3, height=9, width=11, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).random((channels, height, width)).astype(dtype)


def _tensor(array):
    return minitorch.from_numpy(np.ascontiguousarray(array))


# -- conversion ----------------------------------------------------------------------------------
def test_to_tensor_scales_8_bit_images_and_moves_channels_first():
    array = _rgb_array()
    for source in (Image.fromarray(array), array):
        result = T.ToTensor()(source)
        assert result.dtype == minitorch.float32 and result.shape == (3, 9, 11)
        np.testing.assert_array_equal(result.numpy(), array.transpose(2, 0, 1).astype(np.float32) / np.float32(255))
    gray = array[:, :, 0]
    np.testing.assert_array_equal(T.ToTensor()(gray).numpy()[0], gray / np.float32(255))
    np.testing.assert_array_equal(T.ToTensor()(Image.fromarray(gray, mode="L")).numpy()[0], gray / np.float32(255))


def test_to_tensor_keeps_non_8_bit_modes_and_expands_1_bit():
    values = np.arange(12, dtype=np.float32).reshape(3, 4) * 1.5
    np.testing.assert_array_equal(T.ToTensor()(Image.fromarray(values, mode="F")).numpy()[0], values)
    integers = (np.arange(12, dtype=np.int32).reshape(3, 4) - 5) * 1000
    result = T.ToTensor()(Image.fromarray(integers, mode="I"))
    assert result.dtype == minitorch.int32
    np.testing.assert_array_equal(result.numpy()[0], integers)
    bits = Image.fromarray(np.array([[0, 255], [255, 0]], dtype=np.uint8)).convert("1")
    np.testing.assert_array_equal(T.ToTensor()(bits).numpy()[0], [[0, 1], [1, 0]])
    floats = np.random.default_rng(0).random((4, 5, 2))
    np.testing.assert_array_equal(T.ToTensor()(floats).numpy(), floats.transpose(2, 0, 1))  # not rescaled


def test_pil_to_tensor_keeps_values_and_dtype():
    array = _rgb_array()
    result = T.PILToTensor()(Image.fromarray(array))
    assert result.dtype == minitorch.uint8 and result.shape == (3, 9, 11)
    np.testing.assert_array_equal(result.numpy(), array.transpose(2, 0, 1))


@pytest.mark.parametrize("mode", ["L", "RGB", "RGBA", "LA"])
def test_to_pil_image_round_trips_8_bit_images(mode):
    image = Image.fromarray(_rgb_array()).convert(mode)
    back = T.ToPILImage()(T.ToTensor()(image))
    assert back.mode == mode
    np.testing.assert_array_equal(np.asarray(back), np.asarray(image))
    assert T.ToPILImage()(T.PILToTensor()(image)).tobytes() == image.tobytes()


def test_to_pil_image_chooses_modes_by_dtype():
    assert T.ToPILImage()(np.zeros((3, 4), dtype=np.int32)).mode == "I"
    assert T.ToPILImage()(np.zeros((3, 4), dtype=np.int16)).mode == "I;16"
    assert T.ToPILImage(mode="F")(np.ones((3, 4), dtype=np.float32)).mode == "F"
    assert T.ToPILImage()(minitorch.full((1, 3, 4), 0.5)).getpixel((0, 0)) == 127  # 0.5 * 255 truncates


def test_conversion_errors_name_the_problem():
    with pytest.raises(TypeError, match="pic should be PIL Image or ndarray. Got <class 'list'>"):
        T.ToTensor()([[1, 2]])
    with pytest.raises(ValueError, match="pic should be 2/3 dimensional. Got 4 dimensions."):
        T.ToTensor()(np.zeros((1, 2, 3, 4), dtype=np.uint8))
    with pytest.raises(TypeError, match="pic should be PIL Image. Got <class 'numpy.ndarray'>"):
        T.PILToTensor()(np.zeros((2, 2), dtype=np.uint8))
    with pytest.raises(ValueError, match=r"Incorrect mode \(RGB\) supplied for input type uint8. Should be L"):
        T.ToPILImage(mode="RGB")(np.zeros((2, 2, 1), dtype=np.uint8))
    with pytest.raises(ValueError, match=r"Only modes \['RGB', 'YCbCr', 'HSV'\] are supported for 3D inputs"):
        T.ToPILImage(mode="LA")(np.zeros((2, 2, 3), dtype=np.uint8))
    with pytest.raises(ValueError, match="pic should not have > 4 channels. Got 5 channels."):
        T.ToPILImage()(np.zeros((2, 2, 5), dtype=np.uint8))
    with pytest.raises(TypeError, match="pic should be Tensor or ndarray"):
        T.ToPILImage()(Image.new("L", (2, 2)))


# -- normalize -----------------------------------------------------------------------------------
def test_normalize_matches_numpy_per_channel():
    image = _float_image()
    mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
    result = T.Normalize(mean, std)(_tensor(image))
    expected = (image - np.array(mean, np.float32)[:, None, None]) / np.array(std, np.float32)[:, None, None]
    np.testing.assert_array_equal(result.numpy(), expected)
    batch = np.stack([image, image * 0.5])  # (N, C, H, W) works too
    np.testing.assert_allclose(T.Normalize(mean, std)(_tensor(batch)).numpy()[1],
                               (batch[1] - np.array(mean, np.float32)[:, None, None])
                               / np.array(std, np.float32)[:, None, None], rtol=1e-6)


def test_normalize_inplace_and_gradient():
    image = _tensor(_float_image(1))
    original = image.numpy().copy()
    returned = T.Normalize([0.5], [0.25], inplace=True)(image)
    assert returned is image
    np.testing.assert_allclose(image.numpy(), (original - 0.5) / 0.25, rtol=1e-6)
    leaf = minitorch.tensor(original, requires_grad=True)
    T.Normalize([0.5], [0.25])(leaf).sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy(), np.full_like(original, 4.0))


def test_normalize_rejects_wrong_inputs():
    with pytest.raises(TypeError, match="img should be Tensor Image. Got <class 'PIL.Image.Image'>"):
        T.Normalize([0.5], [0.5])(Image.new("L", (2, 2)))
    with pytest.raises(TypeError, match="Input tensor should be a float tensor. Got minitorch.uint8."):
        T.Normalize([0.5], [0.5])(minitorch.zeros(1, 2, 2, dtype=minitorch.uint8))
    with pytest.raises(ValueError, match="std evaluated to zero after conversion to minitorch.float32"):
        T.Normalize([0.5], [0.0])(minitorch.zeros(1, 2, 2))
    with pytest.raises(ValueError, match=r"Expected tensor to be a tensor image of size \(..., C, H, W\)"):
        T.Normalize([0.5], [0.5])(minitorch.zeros(2, 2))


# -- resize --------------------------------------------------------------------------------------
@pytest.mark.parametrize("interpolation", [T.InterpolationMode.BILINEAR, T.InterpolationMode.BICUBIC,
                                           T.InterpolationMode.NEAREST, T.InterpolationMode.LANCZOS])
def test_resize_of_pil_images_is_pillows(interpolation):
    image = Image.fromarray(_rgb_array(20, 30))
    pil_filter = F._PIL_FILTERS[interpolation]
    assert T.Resize((7, 12), interpolation)(image).tobytes() == image.resize((12, 7), pil_filter).tobytes()
    # An int sets the smaller edge and keeps the aspect ratio: 20x30 -> 10x15.
    assert T.Resize(10, interpolation)(image).size == (15, 10)


@pytest.mark.parametrize("size", [(5, 7), (23, 31), (9, 40)])
@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_resize_of_tensors_matches_pytorch_antialiased_interpolate(size, mode):
    torch = require_torch()
    image = _float_image(3, 12, 17, dtype=np.float64)
    result = T.Resize(size, T.InterpolationMode(mode))(_tensor(image))
    expected = torch.nn.functional.interpolate(torch.from_numpy(image)[None], size=size, mode=mode,
                                               align_corners=False, antialias=True)[0]
    np.testing.assert_allclose(result.numpy(), expected.numpy(), rtol=1e-10, atol=1e-12)


def test_resize_of_tensors_without_antialias_and_nearest_match_pytorch():
    torch = require_torch()
    image = _float_image(2, 12, 17, dtype=np.float64)
    shrunk = T.Resize((5, 7), antialias=False)(_tensor(image))
    expected = torch.nn.functional.interpolate(torch.from_numpy(image)[None], size=(5, 7), mode="bilinear",
                                               align_corners=False, antialias=False)[0]
    np.testing.assert_allclose(shrunk.numpy(), expected.numpy(), rtol=1e-10)
    nearest = T.Resize((5, 30), T.InterpolationMode.NEAREST)(_tensor(image))
    expected = torch.nn.functional.interpolate(torch.from_numpy(image)[None], size=(5, 30), mode="nearest")[0]
    np.testing.assert_array_equal(nearest.numpy(), expected.numpy())


def test_resize_of_uint8_tensors_agrees_with_pillow():
    array = _rgb_array(20, 30)
    from_tensor = T.Resize((8, 11))(_tensor(array.transpose(2, 0, 1))).numpy().transpose(1, 2, 0)
    from_pil = np.asarray(Image.fromarray(array).resize((11, 8), Image.Resampling.BILINEAR))
    assert np.abs(from_tensor.astype(int) - from_pil.astype(int)).max() <= 1  # Pillow rounds in fixed point


def test_resize_is_differentiable():
    image = minitorch.tensor(_float_image(1, 5, 6, dtype=np.float64), requires_grad=True)
    assert minitorch.autograd.gradcheck(lambda x: F.resize(x, [3, 4]), (image,))


def test_resize_size_checks():
    image = Image.new("RGB", (30, 20))
    assert T.Resize(10, max_size=12)(image).size == (12, 8)
    with pytest.raises(ValueError, match="max_size = 10 must be strictly greater"):
        T.Resize(10, max_size=10)(image)
    with pytest.raises(ValueError, match="If size is a sequence, it should have 1 or 2 values"):
        T.Resize([1, 2, 3])
    with pytest.raises(TypeError, match="Size should be int or sequence"):
        T.Resize(2.5)


# -- cropping and padding ------------------------------------------------------------------------
def test_center_crop_matches_numpy_and_pads_when_too_small():
    array = _rgb_array(9, 11)
    tensor_result = T.CenterCrop(5)(_tensor(array.transpose(2, 0, 1)))
    np.testing.assert_array_equal(tensor_result.numpy(), array[2:7, 3:8].transpose(2, 0, 1))
    assert T.CenterCrop((5, 4))(Image.fromarray(array)).tobytes() == np.ascontiguousarray(array[2:7, 4:8]).tobytes()
    padded = T.CenterCrop((12, 14))(_tensor(array.transpose(2, 0, 1))).numpy()
    expected = np.pad(array, ((1, 2), (1, 2), (0, 0))).transpose(2, 0, 1)
    np.testing.assert_array_equal(padded, expected)
    np.testing.assert_array_equal(np.asarray(T.CenterCrop((12, 14))(Image.fromarray(array))),
                                  expected.transpose(1, 2, 0))


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric"])
def test_pad_matches_numpy_for_tensors_and_pil(mode):
    array = _rgb_array(6, 7)
    padding = (1, 2, 3, 4)  # left, top, right, bottom
    numpy_padding = ((2, 4), (1, 3))
    expected = np.pad(array, (*numpy_padding, (0, 0)), mode)
    tensor_result = T.Pad(padding, padding_mode=mode)(_tensor(array.transpose(2, 0, 1)))
    np.testing.assert_array_equal(tensor_result.numpy(), expected.transpose(2, 0, 1))
    np.testing.assert_array_equal(np.asarray(T.Pad(padding, padding_mode=mode)(Image.fromarray(array))), expected)


def test_pad_fill_and_argument_forms():
    array = _rgb_array(3, 4)
    result = np.asarray(T.Pad(2, fill=(10, 20, 30))(Image.fromarray(array)))
    assert result.shape == (7, 8, 3)
    np.testing.assert_array_equal(result[0, 0], [10, 20, 30])
    tensor = T.Pad([1, 2], fill=7)(_tensor(array.transpose(2, 0, 1)))  # left/right 1, top/bottom 2
    assert tensor.shape == (3, 7, 6) and tensor.numpy()[0, 0, 0] == 7
    with pytest.raises(ValueError, match="Padding must be an int or a 1, 2, or 4 element tuple, not a 3 element tuple"):
        T.Pad([1, 2, 3])
    with pytest.raises(ValueError, match="Padding mode should be either constant, edge, reflect or symmetric"):
        T.Pad(1, padding_mode="wrap")
    with pytest.raises(TypeError, match="Got inappropriate padding arg"):
        T.Pad("1")


def test_random_crop_is_the_numpy_crop_at_the_drawn_position():
    array = _rgb_array(10, 12)
    tensor = _tensor(array.transpose(2, 0, 1))
    minitorch.manual_seed(3)
    result = T.RandomCrop((6, 7), padding=2)(tensor)
    minitorch.manual_seed(3)
    top, left, height, width = T.RandomCrop.get_params(_tensor(np.zeros((3, 14, 16), np.uint8)), (6, 7))
    expected = np.pad(array, ((2, 2), (2, 2), (0, 0)))[top:top + height, left:left + width]
    np.testing.assert_array_equal(result.numpy(), expected.transpose(2, 0, 1))
    minitorch.manual_seed(3)
    assert T.RandomCrop((6, 7), padding=2)(Image.fromarray(array)).tobytes() == expected.tobytes()


def test_random_crop_pad_if_needed_and_errors():
    small = minitorch.ones(1, 4, 5)
    assert T.RandomCrop(8, pad_if_needed=True)(small).shape == (1, 8, 8)
    with pytest.raises(ValueError, match=r"Required crop size \(8, 8\) is larger than input image size \(4, 5\)"):
        T.RandomCrop(8)(small)


def test_random_crop_positions_cover_every_offset_uniformly():
    minitorch.manual_seed(0)
    tops = [T.RandomCrop.get_params(minitorch.zeros(1, 6, 6), (4, 4))[0] for _ in range(3000)]
    counts = np.bincount(tops, minlength=3)
    assert counts.min() > 900  # 3 offsets, 1000 each expected


def test_random_resized_crop_is_resized_crop_of_drawn_window():
    array = _rgb_array(20, 24)
    image = Image.fromarray(array)
    minitorch.manual_seed(5)
    result = T.RandomResizedCrop(8)(image)
    minitorch.manual_seed(5)
    top, left, height, width = T.RandomResizedCrop.get_params(image, (0.08, 1.0), (3 / 4, 4 / 3))
    expected = image.crop((left, top, left + width, top + height)).resize((8, 8), Image.Resampling.BILINEAR)
    assert result.tobytes() == expected.tobytes()
    assert 0.08 * 480 * 0.8 <= height * width <= 480
    minitorch.manual_seed(1)
    windows = [T.RandomResizedCrop.get_params(image, (0.5, 0.5), (1.0, 1.0)) for _ in range(20)]
    assert all(h == w == round(math.sqrt(240)) for _, _, h, w in windows)


def test_random_resized_crop_falls_back_to_a_centre_crop():
    image = minitorch.zeros(1, 10, 100)
    # No window with ratio in [1, 1] and at least 99% of the area fits: centre crop at the nearest ratio.
    assert T.RandomResizedCrop.get_params(image, (0.99, 1.0), (1.0, 1.0)) == (0, 45, 10, 10)


# -- flips and maps ------------------------------------------------------------------------------
def test_flips_match_numpy():
    array = _rgb_array()
    tensor = _tensor(array.transpose(2, 0, 1))
    np.testing.assert_array_equal(T.RandomHorizontalFlip(p=1)(tensor).numpy(), tensor.numpy()[..., ::-1])
    np.testing.assert_array_equal(T.RandomVerticalFlip(p=1)(tensor).numpy(), tensor.numpy()[..., ::-1, :])
    assert T.RandomHorizontalFlip(p=0)(tensor) is tensor
    image = Image.fromarray(array)
    np.testing.assert_array_equal(np.asarray(T.RandomHorizontalFlip(p=1)(image)), array[:, ::-1])
    np.testing.assert_array_equal(np.asarray(T.RandomVerticalFlip(p=1)(image)), array[::-1])


def test_flip_probability():
    minitorch.manual_seed(0)
    image = minitorch.arange(2.0).view(1, 1, 2)
    flips = sum(T.RandomHorizontalFlip(p=0.3)(image)[0, 0, 0].item() == 1.0 for _ in range(2000))
    assert 520 < flips < 680  # 600 expected


def test_rotation_by_90_degrees_is_rot90_for_pil_and_tensors():
    array = _rgb_array(8, 8)
    tensor = _tensor(array.transpose(2, 0, 1))
    expected = np.rot90(array)  # counter-clockwise
    np.testing.assert_array_equal(np.asarray(T.RandomRotation((90, 90))(Image.fromarray(array))), expected)
    np.testing.assert_array_equal(T.RandomRotation((90, 90))(tensor).numpy(), expected.transpose(2, 0, 1))


def _torchvision_rotation_oracle(torch, image, angle, mode, fill, expand=False):
    """What torchvision computes for a tensor rotation: its affine grid, then grid_sample (written with torch)."""
    height, width = image.shape[-2:]
    radians = math.radians(-angle)
    # Inverse of a rotation about the centre: [[cos, sin], [-sin, cos]] for y pointing down.
    matrix = [math.cos(radians), math.sin(radians), 0.0, -math.sin(radians), math.cos(radians), 0.0]
    out_w, out_h = F._affine_output_size(matrix, width, height) if expand else (width, height)
    theta = torch.tensor(matrix, dtype=image.dtype).reshape(1, 2, 3)
    base = torch.empty(1, out_h, out_w, 3, dtype=image.dtype)
    base[..., 0].copy_(torch.linspace(-out_w * 0.5 + 0.5, out_w * 0.5 - 0.5, steps=out_w, dtype=image.dtype))
    base[..., 1].copy_(torch.linspace(-out_h * 0.5 + 0.5, out_h * 0.5 - 0.5, steps=out_h,
                                      dtype=image.dtype).unsqueeze(-1))
    base[..., 2].fill_(1)
    scaled = theta.transpose(1, 2) / torch.tensor([0.5 * width, 0.5 * height], dtype=image.dtype)
    grid = base.view(1, out_h * out_w, 3).bmm(scaled).view(1, out_h, out_w, 2)
    batch = image[None]
    mask = torch.ones_like(batch[:, :1])
    sampled = torch.nn.functional.grid_sample(torch.cat([batch, mask], 1), grid, mode=mode, padding_mode="zeros",
                                              align_corners=False)
    values, mask = sampled[:, :-1], sampled[:, -1:].expand_as(sampled[:, :-1])
    fill_image = torch.full_like(values, fill)
    if mode == "nearest":
        values = torch.where(mask < 0.5, fill_image, values)
    else:
        values = values * mask + (1.0 - mask) * fill_image
    return values[0]


@pytest.mark.parametrize("angle", [17.0, -33.5, 135.0])
@pytest.mark.parametrize("mode", ["nearest", "bilinear"])
@pytest.mark.parametrize("expand", [False, True])
def test_tensor_rotation_matches_torchvisions_grid_sample(angle, mode, expand):
    torch = require_torch()
    image = _float_image(2, 9, 12)
    result = F.rotate(_tensor(image), angle, T.InterpolationMode(mode), expand=expand, fill=[0.25, 0.25])
    expected = _torchvision_rotation_oracle(torch, torch.from_numpy(image), angle, mode, 0.25, expand)
    assert result.shape == tuple(expected.shape)
    np.testing.assert_allclose(result.numpy(), expected.numpy(), atol=1e-5)


def test_rotation_of_pil_images_is_pillows():
    image = Image.fromarray(_rgb_array(12, 15))
    minitorch.manual_seed(2)
    result = T.RandomRotation(30, expand=True, fill=(1, 2, 3))(image)
    minitorch.manual_seed(2)
    angle = T.RandomRotation.get_params([-30.0, 30.0])
    assert -30 <= angle <= 30
    expected = image.rotate(angle, Image.Resampling.NEAREST, True, None, fillcolor=(1, 2, 3))
    assert result.tobytes() == expected.tobytes()


def test_affine_translation_moves_pixels_and_fills():
    array = _rgb_array(8, 10)
    expected = np.zeros_like(array)
    expected[2:, :7] = array[:-2, 3:]  # 3 pixels left, 2 down
    tensor_result = F.affine(_tensor(array.transpose(2, 0, 1)), 0.0, [-3, 2], 1.0, [0.0, 0.0])
    np.testing.assert_array_equal(tensor_result.numpy(), expected.transpose(2, 0, 1))
    np.testing.assert_array_equal(np.asarray(F.affine(Image.fromarray(array), 0.0, [-3, 2], 1.0, [0.0, 0.0])),
                                  expected)


def test_random_affine_draws_parameters_in_range_and_reproducibly():
    minitorch.manual_seed(9)
    draws = [T.RandomAffine.get_params([-10, 10], [0.1, 0.2], [0.9, 1.1], [-5, 5, -3, 3], [50, 40])
             for _ in range(200)]
    for angle, (tx, ty), scale, (shear_x, shear_y) in draws:
        assert -10 <= angle <= 10 and abs(tx) <= 5 and abs(ty) <= 8 and 0.9 <= scale <= 1.1
        assert -5 <= shear_x <= 5 and -3 <= shear_y <= 3
    minitorch.manual_seed(9)
    assert T.RandomAffine.get_params([-10, 10], [0.1, 0.2], [0.9, 1.1], [-5, 5, -3, 3], [50, 40]) == draws[0]
    image = _tensor(_float_image())
    minitorch.manual_seed(4)
    first = T.RandomAffine(20, translate=(0.1, 0.1), scale=(0.8, 1.2), shear=10)(image)
    minitorch.manual_seed(4)
    second = T.RandomAffine(20, translate=(0.1, 0.1), scale=(0.8, 1.2), shear=10)(image)
    np.testing.assert_array_equal(first.numpy(), second.numpy())
    with pytest.raises(ValueError, match="translation values should be between 0 and 1"):
        T.RandomAffine(0, translate=(2, 0))


# -- colour ----------------------------------------------------------------------------------------
def _gray(image):
    return 0.2989 * image[0] + 0.587 * image[1] + 0.114 * image[2]


def test_colour_adjustments_of_tensors_match_numpy():
    image = _float_image()
    tensor = _tensor(image)
    np.testing.assert_allclose(F.adjust_brightness(tensor, 1.7).numpy(), np.clip(image * 1.7, 0, 1), rtol=1e-6)
    mean = _gray(image).mean()
    np.testing.assert_allclose(F.adjust_contrast(tensor, 0.4).numpy(), np.clip(0.4 * image + 0.6 * mean, 0, 1),
                               rtol=1e-5)
    np.testing.assert_allclose(F.adjust_saturation(tensor, 1.5).numpy(),
                               np.clip(1.5 * image - 0.5 * _gray(image)[None], 0, 1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(F.rgb_to_grayscale(tensor).numpy()[0], _gray(image), rtol=1e-6)


@pytest.mark.parametrize("hue", [-0.4, 0.13, 0.5])
def test_hue_adjustment_of_tensors_matches_colorsys(hue):
    image = _float_image(3, 4, 5)
    expected = np.empty_like(image)
    for row in range(4):
        for column in range(5):
            h, s, v = colorsys.rgb_to_hsv(*image[:, row, column])
            expected[:, row, column] = colorsys.hsv_to_rgb((h + hue) % 1.0, s, v)
    np.testing.assert_allclose(F.adjust_hue(_tensor(image), hue).numpy(), expected, atol=1e-5)


def test_colour_adjustments_of_pil_images_are_pillows():
    image = Image.fromarray(_rgb_array())
    assert F.adjust_brightness(image, 1.3).tobytes() == ImageEnhance.Brightness(image).enhance(1.3).tobytes()
    assert F.adjust_contrast(image, 0.7).tobytes() == ImageEnhance.Contrast(image).enhance(0.7).tobytes()
    assert F.adjust_saturation(image, 0.2).tobytes() == ImageEnhance.Color(image).enhance(0.2).tobytes()
    hsv = np.asarray(image.convert("HSV")).copy()
    hsv[..., 0] = (hsv[..., 0].astype(int) + int(0.2 * 255)) % 256
    expected = Image.fromarray(hsv, mode="HSV").convert("RGB")
    assert F.adjust_hue(image, 0.2).tobytes() == expected.tobytes()
    assert F.adjust_hue(image.convert("L"), 0.2).tobytes() == image.convert("L").tobytes()  # gray has no hue


def test_color_jitter_applies_the_drawn_factors_in_the_drawn_order():
    image = _tensor(_float_image())
    jitter = T.ColorJitter(brightness=0.4, contrast=0.4, saturation=0.4, hue=0.1)
    minitorch.manual_seed(7)
    result = jitter(image)
    minitorch.manual_seed(7)
    order, brightness, contrast, saturation, hue = T.ColorJitter.get_params(
        jitter.brightness, jitter.contrast, jitter.saturation, jitter.hue
    )
    assert sorted(order) == [0, 1, 2, 3] and 0.6 <= brightness <= 1.4 and -0.1 <= hue <= 0.1
    expected = image
    for index in order:
        adjust = (F.adjust_brightness, F.adjust_contrast, F.adjust_saturation, F.adjust_hue)[index]
        expected = adjust(expected, (brightness, contrast, saturation, hue)[index])
    np.testing.assert_array_equal(result.numpy(), expected.numpy())
    assert T.ColorJitter().brightness is None  # the defaults change nothing
    with pytest.raises(ValueError, match="If brightness is a single number, it must be non negative."):
        T.ColorJitter(brightness=-1)
    with pytest.raises(ValueError, match=r"hue values should be between \(-0.5, 0.5\)"):
        T.ColorJitter(hue=0.7)


def test_grayscale_of_pil_images_and_tensors():
    array = _rgb_array()
    image = Image.fromarray(array)
    assert T.Grayscale()(image).tobytes() == image.convert("L").tobytes()
    three = np.asarray(T.Grayscale(3)(image))
    assert three.shape == (9, 11, 3) and (three[..., 0] == three[..., 2]).all()
    tensor = T.Grayscale(3)(_tensor(_float_image()))
    assert tensor.shape == (3, 9, 11)
    with pytest.raises(TypeError, match=r"Input image tensor permitted channel values are \[1, 3\], but found 2"):
        T.Grayscale()(minitorch.zeros(2, 4, 4))


# -- erasing, lambda, compose ----------------------------------------------------------------------
def test_random_erasing_overwrites_the_drawn_rectangle_only():
    image = _tensor(_float_image(3, 20, 20))
    minitorch.manual_seed(11)
    result = T.RandomErasing(p=1.0, value=(0.1, 0.2, 0.3))(image)
    minitorch.manual_seed(11)
    minitorch.rand(1)  # forward tosses its coin first (torchvision: torch.rand(1) < p), then draws the rectangle
    top, left, height, width, _ = T.RandomErasing.get_params(image, (0.02, 0.33), (0.3, 3.3), [0.1, 0.2, 0.3])
    expected = image.numpy().copy()
    expected[:, top:top + height, left:left + width] = np.array([0.1, 0.2, 0.3], np.float32)[:, None, None]
    np.testing.assert_array_equal(result.numpy(), expected)
    assert not np.array_equal(result.numpy(), image.numpy())  # not in place by default
    assert T.RandomErasing(p=0.0)(image) is image
    noisy = T.RandomErasing(p=1.0, value="random")(image)
    assert noisy.shape == image.shape


def test_random_erasing_errors():
    with pytest.raises(TypeError, match="img should be Tensor Image"):
        T.RandomErasing(p=1.0)(Image.new("RGB", (4, 4)))
    with pytest.raises(ValueError, match="If value is str, it should be 'random'"):
        T.RandomErasing(value="noise")
    with pytest.raises(ValueError, match="Random erasing probability should be between 0 and 1"):
        T.RandomErasing(p=2)
    with pytest.raises(ValueError, match="it should have either a single value or 3"):
        T.RandomErasing(p=1.0, value=(1, 2))(minitorch.zeros(3, 8, 8))


def test_lambda_and_compose():
    composed = T.Compose([T.ToTensor(), T.Lambda(lambda x: x * 2), T.Normalize([1.0], [1.0])])
    result = composed(np.full((2, 2, 1), 255, dtype=np.uint8))
    np.testing.assert_array_equal(result.numpy(), np.ones((1, 2, 2), np.float32))
    assert "Normalize(mean=[1.0], std=[1.0])" in repr(composed)
    with pytest.raises(TypeError, match="Argument lambd should be callable, got 'int'"):
        T.Lambda(3)


def test_augmentation_pipeline_is_reproducible_under_manual_seed():
    pipeline = T.Compose([
        T.RandomResizedCrop(12, scale=(0.5, 1.0)), T.RandomHorizontalFlip(), T.RandomRotation(15),
        T.ColorJitter(0.3, 0.3, 0.3, 0.05), T.ToTensor(), T.RandomErasing(p=0.5),
    ])
    images = [Image.fromarray(_rgb_array(16, 16, seed)) for seed in range(6)]

    def run(seed):
        minitorch.manual_seed(seed)
        return np.stack([pipeline(image).numpy() for image in images])

    np.testing.assert_array_equal(run(0), run(0))
    assert not np.array_equal(run(0), run(1))


def test_transforms_name_the_wrong_type():
    array = _rgb_array()
    for transform in (T.Resize(4), T.CenterCrop(4), T.RandomCrop(4), T.RandomHorizontalFlip(p=1), T.Pad(1),
                      T.RandomRotation(10), T.Grayscale(), T.ColorJitter(brightness=0.5)):
        with pytest.raises(TypeError, match="img should be PIL Image or Tensor. Got <class 'numpy.ndarray'>"):
            transform(array)


def test_transforms_are_modules_and_sit_in_sequential():
    assert isinstance(T.Normalize([0.5], [0.5]), minitorch.nn.Module)
    sequential = minitorch.nn.Sequential(T.CenterCrop(4), T.Normalize([0.5], [0.5]))
    assert sequential(minitorch.ones(1, 6, 6)).shape == (1, 4, 4)
