"""The image operations behind the transforms, one function each (``torchvision.transforms.functional``).

Every function takes a PIL image or a tensor image of shape ``(..., C, H, W)`` and returns the
same kind. PIL images are handed to Pillow, so the result is exactly Pillow's; tensors are
computed with the array module of their device (NumPy or CuPy), vectorised over all pixels.

Which tensor results keep autograd history: ``normalize``, ``crop`` / ``center_crop``,
``pad``, ``resize`` (bilinear and bicubic), the flips, ``erase`` and the colour blends are
written with tensor operations, so gradients flow through them (as in torchvision, where
one can back-propagate into an input image). ``rotate`` / ``affine``, ``adjust_hue`` and
nearest-neighbour resizing compute on the raw array and return a tensor without history.

The random transforms in ``transforms.py`` draw their parameters and call these functions,
so ``F.hflip(img)`` is what ``RandomHorizontalFlip`` does when its coin says "flip".
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from enum import Enum
from functools import lru_cache

import numpy as np
from PIL import Image, ImageEnhance, ImageOps

from ... import _dtype
from ..._creation import from_numpy
from ..._tensor import Tensor
from ...autograd.grad_mode import is_grad_enabled
from ...nn.functional import _interpolation_matrix, pad as tensor_pad
from ...nn.functional._antialias import antialias_matrix

__all__ = [
    "InterpolationMode", "get_dimensions", "get_image_size", "get_image_num_channels", "to_tensor", "pil_to_tensor",
    "to_pil_image", "normalize", "resize", "pad", "crop", "center_crop", "resized_crop", "hflip", "vflip", "rotate",
    "affine", "rgb_to_grayscale", "to_grayscale", "adjust_brightness", "adjust_contrast", "adjust_saturation",
    "adjust_hue", "erase",
]


class InterpolationMode(Enum):
    """How to compute a pixel that falls between source pixels (``torchvision.transforms.InterpolationMode``)."""

    NEAREST = "nearest"
    NEAREST_EXACT = "nearest-exact"
    BILINEAR = "bilinear"
    BICUBIC = "bicubic"
    BOX = "box"
    HAMMING = "hamming"
    LANCZOS = "lanczos"


_PIL_FILTERS = {
    InterpolationMode.NEAREST: Image.Resampling.NEAREST,
    InterpolationMode.NEAREST_EXACT: Image.Resampling.NEAREST,
    InterpolationMode.BILINEAR: Image.Resampling.BILINEAR,
    InterpolationMode.BICUBIC: Image.Resampling.BICUBIC,
    InterpolationMode.BOX: Image.Resampling.BOX,
    InterpolationMode.HAMMING: Image.Resampling.HAMMING,
    InterpolationMode.LANCZOS: Image.Resampling.LANCZOS,
}


def _interpolation(mode) -> InterpolationMode:
    if isinstance(mode, InterpolationMode):
        return mode
    if isinstance(mode, int):  # a Pillow filter constant, as older torchvision code passes
        for name, pil_filter in _PIL_FILTERS.items():
            if pil_filter == mode:
                return name
    raise TypeError("Argument interpolation should be of type InterpolationMode or int")


# -- what an image is ------------------------------------------------------------------------
def _is_pil_image(img) -> bool:
    return isinstance(img, Image.Image)


def _check_image(img) -> None:
    """Tensors and PIL images are images; anything else (a NumPy array, a list) is a mistake to name."""
    if not isinstance(img, Tensor) and not _is_pil_image(img):
        raise TypeError(f"img should be PIL Image or Tensor. Got {type(img)}")


def _check_tensor_image(img: Tensor) -> None:
    if img.ndim < 2:
        raise TypeError(f"Tensor is not a torch image: it has {img.ndim} dimensions, an image needs at least 2")


def get_dimensions(img) -> list[int]:
    """``[channels, height, width]`` of a PIL image or a tensor image."""
    _check_image(img)
    if isinstance(img, Tensor):
        _check_tensor_image(img)
        channels = 1 if img.ndim == 2 else img.shape[-3]
        return [channels, img.shape[-2], img.shape[-1]]
    return [len(img.getbands()), img.height, img.width]


def get_image_size(img) -> list[int]:
    """``[width, height]`` (PIL's order, as torchvision returns it)."""
    _, height, width = get_dimensions(img)
    return [width, height]


def get_image_num_channels(img) -> int:
    return get_dimensions(img)[0]


def _tracks_grad(tensor: Tensor) -> bool:
    return tensor.requires_grad and is_grad_enabled()


def _max_value(dtype) -> float:
    """The brightest value of an image of this dtype: 1.0 for floats, the top of the range for integers."""
    if dtype.is_floating_point:
        return 1.0
    return float(np.iinfo(dtype.numpy_dtype).max)


def _wrap(array, like: Tensor) -> Tensor:
    """A tensor around an array computed from ``like``'s data (same device, no history)."""
    return Tensor._make(array, like.device)


# -- conversion --------------------------------------------------------------------------------
# PIL modes whose pixels are not 8-bit; every other mode converts through uint8.
_MODE_TO_NUMPY = {"I": np.int32, "I;16": np.int16, "I;16B": np.int16, "I;16L": np.int16, "F": np.float32}


def to_tensor(pic) -> Tensor:
    """A PIL image or an ``H x W x C`` array as a ``C x H x W`` tensor; 8-bit values scaled to [0, 1].

        >>> import numpy as np
        >>> to_tensor(np.full((2, 2, 3), 255, dtype=np.uint8)).shape
        minitorch.Size([3, 2, 2])
    """
    if isinstance(pic, np.ndarray):
        if pic.ndim not in (2, 3):
            raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
        array = pic[:, :, None] if pic.ndim == 2 else pic
        array = np.ascontiguousarray(array.transpose(2, 0, 1))
    elif _is_pil_image(pic):
        array = np.array(pic, dtype=_MODE_TO_NUMPY.get(pic.mode, np.uint8), copy=True)
        if pic.mode == "1":  # 1-bit images read as 0/1: make them 0/255 like every other 8-bit image
            array = 255 * array
        array = np.ascontiguousarray(array.reshape(pic.height, pic.width, len(pic.getbands())).transpose(2, 0, 1))
    else:
        raise TypeError(f"pic should be PIL Image or ndarray. Got {type(pic)}")
    if array.dtype == np.uint8:
        # Divide in the default float dtype, as PyTorch does (float32 / float32, not float64).
        float_dtype = _dtype.get_default_dtype().numpy_dtype
        array = array.astype(float_dtype) / float_dtype.type(255)
    return from_numpy(array)


def pil_to_tensor(pic) -> Tensor:
    """A PIL image as a ``C x H x W`` tensor of its own dtype (uint8 for 8-bit images), values unchanged."""
    if not _is_pil_image(pic):
        raise TypeError(f"pic should be PIL Image. Got {type(pic)}")
    array = np.array(pic, copy=True)
    return from_numpy(array.reshape(pic.height, pic.width, len(pic.getbands()))).permute(2, 0, 1)


def to_pil_image(pic, mode: str | None = None) -> Image.Image:
    """A ``C x H x W`` tensor or ``H x W x C`` array as a PIL image; floats are taken as [0, 1] and scaled by 255.

    Without ``mode`` the mode follows the channels and dtype: one uint8 channel is ``"L"``,
    int16 ``"I;16"``, int32 ``"I"``, float32 ``"F"``; two channels ``"LA"``, three ``"RGB"``,
    four ``"RGBA"``.
    """
    if isinstance(pic, Tensor):
        if pic.ndim == 3:
            pic = pic.permute(1, 2, 0)
        pic = pic.detach().numpy(force=True)
    elif not isinstance(pic, np.ndarray):
        raise TypeError(f"pic should be Tensor or ndarray. Got {type(pic)}.")
    if pic.ndim == 2:
        pic = pic[:, :, None]
    if pic.ndim != 3:
        raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
    if pic.shape[-1] > 4:
        raise ValueError(f"pic should not have > 4 channels. Got {pic.shape[-1]} channels.")
    array = pic
    if np.issubdtype(array.dtype, np.floating) and mode != "F":
        array = (array * 255).astype(np.uint8)  # truncates, as torchvision does
    channels = array.shape[2]
    if channels == 1:
        array = array[:, :, 0]
        expected = {np.dtype(np.uint8): "L", np.dtype(np.int16): "I;16", np.dtype(np.int32): "I",
                    np.dtype(np.float32): "F"}.get(array.dtype)
        if mode is not None and mode != expected:
            raise ValueError(f"Incorrect mode ({mode}) supplied for input type {array.dtype}. Should be {expected}")
        mode = expected
    else:
        permitted = {2: ["LA"], 3: ["RGB", "YCbCr", "HSV"], 4: ["RGBA", "CMYK", "RGBX"]}[channels]
        if mode is not None and mode not in permitted:
            raise ValueError(f"Only modes {permitted} are supported for {channels}D inputs")
        if mode is None and array.dtype == np.uint8:
            mode = permitted[0]
    if mode is None:
        raise TypeError(f"Input type {array.dtype} is not supported")
    if mode == "I;16":  # Pillow reads 16-bit images from unsigned little-endian data
        return Image.frombytes(mode, (array.shape[1], array.shape[0]), array.astype("<u2").tobytes())
    return Image.fromarray(np.ascontiguousarray(array), mode=mode)


def normalize(tensor: Tensor, mean: Sequence[float], std: Sequence[float], inplace: bool = False) -> Tensor:
    """``(tensor - mean) / std`` per channel: ``output[c] = (input[c] - mean[c]) / std[c]``.

        >>> import minitorch
        >>> normalize(minitorch.ones(1, 2, 2), [0.5], [0.25]).tolist()
        [[[2.0, 2.0], [2.0, 2.0]]]
    """
    if not isinstance(tensor, Tensor):
        raise TypeError(f"img should be Tensor Image. Got {type(tensor)}")
    if not tensor.is_floating_point():
        raise TypeError(f"Input tensor should be a float tensor. Got {tensor.dtype}.")
    if tensor.ndim < 3:
        raise ValueError(
            f"Expected tensor to be a tensor image of size (..., C, H, W). Got tensor.size() = {tensor.size()}"
        )
    xp = tensor._xp
    numpy_dtype = tensor._data.dtype
    mean_array = xp.asarray(mean, dtype=numpy_dtype)
    std_array = xp.asarray(std, dtype=numpy_dtype)
    if bool((std_array == 0).any()):
        raise ValueError(f"std evaluated to zero after conversion to {tensor.dtype}, leading to division by zero.")
    # One value per channel, broadcast over the pixels of that channel.
    if mean_array.ndim == 1:
        mean_array = mean_array.reshape(-1, 1, 1)
    if std_array.ndim == 1:
        std_array = std_array.reshape(-1, 1, 1)
    if inplace:
        return tensor.sub_(_wrap(mean_array, tensor)).div_(_wrap(std_array, tensor))
    if _tracks_grad(tensor):
        return (tensor - _wrap(mean_array, tensor)) / _wrap(std_array, tensor)
    return _wrap((tensor._data - mean_array) / std_array, tensor)


# -- size, cropping and padding ----------------------------------------------------------------
def _resized_output_size(height: int, width: int, size, max_size: int | None) -> list[int]:
    """``[new_height, new_width]``: an int (or 1-sequence) sets the *smaller* edge, keeping the aspect ratio."""
    if isinstance(size, numbers.Number):
        size = [int(size)]
    if size is None or len(size) == 1:
        short, long = (width, height) if width <= height else (height, width)
        if size is None:
            if max_size is None:
                raise ValueError("If size is None, then max_size must be a positive integer.")
            new_short, new_long = int(max_size * short / long), max_size
        else:
            requested = size[0]
            new_short, new_long = requested, int(requested * long / short)
            if max_size is not None:
                if max_size <= requested:
                    raise ValueError(
                        f"max_size = {max_size} must be strictly greater than the requested size for the smaller "
                        f"edge size = {list(size)}"
                    )
                if new_long > max_size:
                    new_short, new_long = int(max_size * new_short / new_long), max_size
        new_width, new_height = (new_short, new_long) if width <= height else (new_long, new_short)
        return [new_height, new_width]
    if max_size is not None:
        raise ValueError(
            "max_size should only be passed if size specifies the length of the smaller edge, i.e. size should be an "
            f"int or a sequence of length 1 in torchscript mode, got {list(size)}."
        )
    return [int(size[0]), int(size[1])]


@lru_cache(maxsize=256)
def _antialias_matrix(source_size: int, output_size: int, cubic: bool) -> np.ndarray:
    """``(output_size, source_size)`` matrix ``A`` with ``resized = A @ column``: Pillow's resampling, which is
    ``torch.nn.functional.interpolate(..., antialias=True)`` (the weights live in nn/functional/_antialias.py)."""
    return antialias_matrix(source_size, output_size, source_size / output_size, cubic)


def resize(img, size, interpolation=InterpolationMode.BILINEAR, max_size: int | None = None, antialias: bool = True):
    """Resize to ``size`` (``(h, w)``, or an int for the smaller edge). Tensors use Pillow's antialiased kernels."""
    _check_image(img)
    interpolation = _interpolation(interpolation)
    _, height, width = get_dimensions(img)
    new_height, new_width = _resized_output_size(height, width, size, max_size)
    if [new_height, new_width] == [height, width]:
        return img
    if _is_pil_image(img):
        return img.resize((new_width, new_height), _PIL_FILTERS[interpolation])
    if interpolation in (InterpolationMode.NEAREST, InterpolationMode.NEAREST_EXACT):
        # PyTorch's nearest picks source pixel floor(i * scale) ("nearest-exact": floor((i + 0.5) * scale)).
        exact = interpolation == InterpolationMode.NEAREST_EXACT
        xp = img._xp
        rows = _nearest_index(height, new_height, exact)
        columns = _nearest_index(width, new_width, exact)
        return _wrap(img._data[..., xp.asarray(rows)[:, None], xp.asarray(columns)], img)
    if interpolation not in (InterpolationMode.BILINEAR, InterpolationMode.BICUBIC):
        raise ValueError(
            f"Interpolation mode {interpolation.value} is not supported for tensors: use nearest, nearest-exact, "
            "bilinear or bicubic"
        )
    cubic = interpolation == InterpolationMode.BICUBIC
    compute = img if img.is_floating_point() else img.float()
    numpy_dtype = compute._data.dtype
    xp = img._xp
    if antialias:
        row_matrix = _antialias_matrix(height, new_height, cubic)
        column_matrix = _antialias_matrix(width, new_width, cubic)
    else:
        row_matrix = _plain_matrix(height, new_height, cubic)
        column_matrix = _plain_matrix(width, new_width, cubic)
    row_tensor = _wrap(xp.asarray(row_matrix.astype(numpy_dtype)), img)
    column_tensor = _wrap(xp.asarray(column_matrix.T.astype(numpy_dtype)), img)
    # Separable: resize the columns (rows @ image), then the rows (image @ columns^T).
    resized = row_tensor.matmul(compute).matmul(column_tensor)
    if not img.is_floating_point():  # integer images: round and clamp back into their range
        resized = resized.round().clamp(0, _max_value(img.dtype)).to(img.dtype)
    return resized


def _nearest_index(source_size: int, output_size: int, exact: bool) -> np.ndarray:
    scale = np.float32(source_size / output_size)
    positions = np.arange(output_size, dtype=np.float32) + (np.float32(0.5) if exact else np.float32(0))
    return np.minimum(np.floor(positions * scale).astype(np.int64), source_size - 1)


def _plain_matrix(source_size: int, output_size: int, cubic: bool) -> np.ndarray:
    """Interpolation without antialiasing (``antialias=False``): the kernel is never stretched."""
    return _interpolation_matrix(source_size, output_size, source_size / output_size, False, cubic)


def _padding_ltrb(padding) -> list[int]:
    """``[left, top, right, bottom]`` from an int or a 1-, 2- (left/right, top/bottom) or 4-sequence."""
    if not isinstance(padding, (numbers.Number, tuple, list)):
        raise TypeError("Got inappropriate padding arg")
    if isinstance(padding, numbers.Number):
        padding = [padding]
    if len(padding) not in (1, 2, 4):
        raise ValueError(f"Padding must be an int or a 1, 2, or 4 element tuple, not a {len(padding)} element tuple")
    padding = [int(p) for p in padding]
    if len(padding) == 1:
        return padding * 4
    if len(padding) == 2:
        return [padding[0], padding[1], padding[0], padding[1]]
    return padding


def _pil_fill(fill, img: Image.Image, name: str = "fillcolor") -> dict:
    """Pillow's fill argument for ``img``: one value per band (ints unless the image is float)."""
    bands = len(img.getbands())
    if fill is None:
        fill = 0
    if isinstance(fill, (int, float)) and bands > 1:
        fill = tuple([fill] * bands)
    if isinstance(fill, (list, tuple)):
        if len(fill) == 1:
            fill = tuple(fill) * bands
        elif len(fill) != bands:
            raise ValueError(f"The number of elements in 'fill' does not match the number of bands of the image "
                             f"({len(fill)} != {bands})")
        fill = tuple(fill)
    if img.mode != "F":
        fill = tuple(int(value) for value in fill) if isinstance(fill, tuple) else int(fill)
    return {name: fill}


def pad(img, padding, fill=0, padding_mode: str = "constant"):
    """Pad the borders: ``constant`` (with ``fill``), ``edge``, ``reflect`` (no edge repeat) or ``symmetric``."""
    _check_image(img)
    left, top, right, bottom = _padding_ltrb(padding)
    if not isinstance(fill, (numbers.Number, tuple, list)):
        raise TypeError("Got inappropriate fill arg")
    if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
        raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
    if _is_pil_image(img):
        if padding_mode == "constant":
            return ImageOps.expand(img, border=(left, top, right, bottom), **_pil_fill(fill, img, name="fill"))
        array = np.asarray(img)
        widths = ((top, bottom), (left, right)) + (((0, 0),) if array.ndim == 3 else ())
        padded = np.pad(array, widths, padding_mode)
        result = Image.fromarray(padded, mode=img.mode)
        if img.mode == "P":
            result.putpalette(img.getpalette())
        return result
    if min(left, top, right, bottom) < 0:  # negative padding crops, as in torchvision
        height, width = img.shape[-2:]
        img = img[..., max(-top, 0):height - max(-bottom, 0), max(-left, 0):width - max(-right, 0)]
        left, top, right, bottom = (max(p, 0) for p in (left, top, right, bottom))
    if padding_mode == "constant":
        if isinstance(fill, (tuple, list)):
            if len(fill) != 1:
                raise TypeError("Got inappropriate fill arg: tensors take one fill value")
            fill = fill[0]
        squeezed = img.ndim == 2
        padded = tensor_pad(img.unsqueeze(0) if squeezed else img, (left, right, top, bottom), value=float(fill))
        return padded.squeeze(0) if squeezed else padded
    height, width = img.shape[-2:]
    if padding_mode == "reflect" and (max(top, bottom) >= height or max(left, right) >= width):
        raise ValueError(
            f"Padding size should be less than the corresponding input dimension, but got: padding "
            f"({left}, {right}, {top}, {bottom}) for an image of size ({height}, {width})"
        )
    # edge / reflect / symmetric all copy existing pixels: gather rows and columns at padded indices.
    # np.pad applied to the index range 0..n-1 says which source pixel each padded position reads.
    xp = img._xp
    rows = np.pad(np.arange(height), (top, bottom), padding_mode)
    columns = np.pad(np.arange(width), (left, right), padding_mode)
    return img[..., xp.asarray(rows)[:, None], xp.asarray(columns)]


def crop(img, top: int, left: int, height: int, width: int):
    """The ``height x width`` window whose top-left pixel is ``(top, left)``; outside the image reads 0."""
    _check_image(img)
    if _is_pil_image(img):
        return img.crop((left, top, left + width, top + height))
    _, image_height, image_width = get_dimensions(img)
    right, bottom = left + width, top + height
    if left < 0 or top < 0 or right > image_width or bottom > image_height:
        # Part of the window is outside: pad with zeros so it exists, then cut it out.
        padding = [max(-left, 0), max(-top, 0), max(right - image_width, 0), max(bottom - image_height, 0)]
        img = pad(img[..., max(top, 0):min(bottom, image_height), max(left, 0):min(right, image_width)], padding)
        return img
    return img[..., top:bottom, left:right]


def center_crop(img, output_size):
    """The centre ``output_size`` window; a window larger than the image is padded with zeros first."""
    if isinstance(output_size, numbers.Number):
        output_size = (int(output_size), int(output_size))
    elif isinstance(output_size, (tuple, list)) and len(output_size) == 1:
        output_size = (output_size[0], output_size[0])
    _, image_height, image_width = get_dimensions(img)
    crop_height, crop_width = output_size
    if crop_width > image_width or crop_height > image_height:
        padding_ltrb = [
            (crop_width - image_width) // 2 if crop_width > image_width else 0,
            (crop_height - image_height) // 2 if crop_height > image_height else 0,
            (crop_width - image_width + 1) // 2 if crop_width > image_width else 0,
            (crop_height - image_height + 1) // 2 if crop_height > image_height else 0,
        ]
        img = pad(img, padding_ltrb, fill=0)
        _, image_height, image_width = get_dimensions(img)
        if crop_width == image_width and crop_height == image_height:
            return img
    crop_top = int(round((image_height - crop_height) / 2.0))
    crop_left = int(round((image_width - crop_width) / 2.0))
    return crop(img, crop_top, crop_left, crop_height, crop_width)


def resized_crop(img, top: int, left: int, height: int, width: int, size,
                 interpolation=InterpolationMode.BILINEAR, antialias: bool = True):
    """``crop`` then ``resize`` (what ``RandomResizedCrop`` does with its random window)."""
    return resize(crop(img, top, left, height, width), size, interpolation, antialias=antialias)


def hflip(img):
    """Mirror left to right."""
    _check_image(img)
    if _is_pil_image(img):
        return img.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    return img.flip(-1)


def vflip(img):
    """Mirror top to bottom."""
    _check_image(img)
    if _is_pil_image(img):
        return img.transpose(Image.Transpose.FLIP_TOP_BOTTOM)
    return img.flip(-2)


# -- rotation and affine maps --------------------------------------------------------------------
def _get_inverse_affine_matrix(center, angle: float, translate, scale: float, shear) -> list[float]:
    """The 2x3 matrix mapping an *output* pixel to the *input* pixel it reads (torchvision's convention).

    The forward map is ``M = T * C * R * S * Sh * C^-1``: shear, scale and rotate (clockwise in
    image coordinates, y pointing down) about ``center``, then translate. Sampling needs
    the inverse, ``M^-1 = C * Sh^-1 * S^-1 * R^-1 * C^-1 * T^-1``.
    """
    rotation = math.radians(angle)
    shear_x, shear_y = math.radians(shear[0]), math.radians(shear[1])
    center_x, center_y = center
    translate_x, translate_y = translate
    # R * Sh as [[a, b], [c, d]], then its inverse divided by the scale.
    a = math.cos(rotation - shear_y) / math.cos(shear_y)
    b = -math.cos(rotation - shear_y) * math.tan(shear_x) / math.cos(shear_y) - math.sin(rotation)
    c = math.sin(rotation - shear_y) / math.cos(shear_y)
    d = -math.sin(rotation - shear_y) * math.tan(shear_x) / math.cos(shear_y) + math.cos(rotation)
    matrix = [d / scale, -b / scale, 0.0, -c / scale, a / scale, 0.0]
    matrix[2] += matrix[0] * (-center_x - translate_x) + matrix[1] * (-center_y - translate_y)
    matrix[5] += matrix[3] * (-center_x - translate_x) + matrix[4] * (-center_y - translate_y)
    matrix[2] += center_x
    matrix[5] += center_y
    return matrix


def _affine_output_size(matrix: list[float], width: int, height: int) -> tuple[int, int]:
    """``(width, height)`` of the box that holds the whole transformed image (``expand=True``)."""
    corners = np.array([[-0.5 * width, -0.5 * height, 1.0], [-0.5 * width, 0.5 * height, 1.0],
                        [0.5 * width, 0.5 * height, 1.0], [0.5 * width, -0.5 * height, 1.0]], dtype=np.float32)
    theta = np.asarray(matrix, dtype=np.float32).reshape(2, 3)
    moved = corners @ theta.T
    low = moved.min(axis=0) + np.array([width * 0.5, height * 0.5], dtype=np.float32)
    high = moved.max(axis=0) + np.array([width * 0.5, height * 0.5], dtype=np.float32)
    tolerance = 1e-4  # so 1e-15 above an integer does not round up to one more pixel
    size = np.ceil(np.trunc(high / tolerance) * tolerance) - np.floor(np.trunc(low / tolerance) * tolerance)
    return int(size[0]), int(size[1])


def _sample_affine(img: Tensor, matrix: list[float], output_width: int, output_height: int,
                   interpolation: InterpolationMode, fill) -> Tensor:
    """Each output pixel reads the input at ``matrix @ (x, y, 1)`` (coordinates centred on the image).

    This is ``grid_sample(align_corners=False)`` on torchvision's affine grid, computed in
    float32 in the same order so that nearest-neighbour picks the same pixels. Pixels that
    read outside the image get ``fill``.
    """
    xp = img._xp
    height, width = img.shape[-2:]
    float_dtype = img._data.dtype if img.is_floating_point() else np.dtype(np.float32)
    theta = np.asarray(matrix, dtype=float_dtype).reshape(2, 3)
    # Output pixel centres, relative to the output's centre.
    xs = np.linspace(-output_width * 0.5 + 0.5, output_width * 0.5 - 0.5, output_width, dtype=float_dtype)
    ys = np.linspace(-output_height * 0.5 + 0.5, output_height * 0.5 - 0.5, output_height, dtype=float_dtype)
    half = np.array([0.5 * width, 0.5 * height], dtype=float_dtype)
    scaled = theta.T / half  # (3, 2): maps (x, y, 1) to grid_sample's [-1, 1] coordinates
    grid_x = xs[None, :] * scaled[0, 0] + ys[:, None] * scaled[1, 0] + scaled[2, 0]
    grid_y = xs[None, :] * scaled[0, 1] + ys[:, None] * scaled[1, 1] + scaled[2, 1]
    # grid_sample's unnormalisation for align_corners=False: [-1, 1] -> pixel coordinates.
    source_x = xp.asarray(((grid_x + 1) * width - 1) / 2)
    source_y = xp.asarray(((grid_y + 1) * height - 1) / 2)
    data = img._data.astype(float_dtype, copy=False)

    def read(rows, columns):
        """Pixels at integer positions, zero outside, and a mask of which were inside."""
        inside = (rows >= 0) & (rows < height) & (columns >= 0) & (columns < width)
        values = data[..., xp.clip(rows, 0, height - 1), xp.clip(columns, 0, width - 1)]
        return values * inside, inside.astype(float_dtype)

    if interpolation == InterpolationMode.NEAREST:
        values, mask = read(xp.rint(source_y).astype(np.int64), xp.rint(source_x).astype(np.int64))
    elif interpolation == InterpolationMode.BILINEAR:
        x0, y0 = xp.floor(source_x), xp.floor(source_y)
        fx, fy = source_x - x0, source_y - y0
        x0, y0 = x0.astype(np.int64), y0.astype(np.int64)
        values = 0
        mask = 0
        for dy, wy in ((0, 1 - fy), (1, fy)):
            for dx, wx in ((0, 1 - fx), (1, fx)):
                corner, inside = read(y0 + dy, x0 + dx)
                values = values + corner * (wy * wx)
                mask = mask + inside * (wy * wx)
    else:
        raise ValueError(f"Interpolation mode {interpolation.value} is not supported for tensor rotation and affine "
                         "maps: use nearest or bilinear")
    if fill is not None:
        fill_values = xp.asarray(fill if isinstance(fill, (list, tuple)) else [fill], dtype=float_dtype)
        fill_values = fill_values.reshape(-1, 1, 1) if data.ndim >= 3 else fill_values.reshape(1, 1)
        if interpolation == InterpolationMode.NEAREST:
            values = xp.where(mask < 0.5, fill_values, values)
        else:  # torchvision blends with the sampled mask of ones (a soft edge)
            values = values * mask + (1.0 - mask) * fill_values
    if not img.is_floating_point():
        values = xp.clip(xp.round(values), 0, _max_value(img.dtype))
    return _wrap(values.astype(img._data.dtype), img)


def _check_shear(shear) -> list[float]:
    if isinstance(shear, numbers.Number):
        return [float(shear), 0.0]
    if isinstance(shear, (list, tuple)) and len(shear) in (1, 2):
        return [float(shear[0]), float(shear[1]) if len(shear) == 2 else 0.0]
    raise ValueError(f"Shear should be a sequence containing two values. Got {shear}")


def rotate(img, angle: float, interpolation=InterpolationMode.NEAREST, expand: bool = False, center=None, fill=None):
    """Rotate counter-clockwise by ``angle`` degrees about ``center`` (default: the image centre)."""
    _check_image(img)
    interpolation = _interpolation(interpolation)
    if center is not None and not (isinstance(center, (list, tuple)) and len(center) == 2):
        raise ValueError("Argument center should be a sequence of length 2")
    if _is_pil_image(img):
        return img.rotate(angle, _PIL_FILTERS[interpolation], expand, center, **_pil_fill(fill, img))
    height, width = img.shape[-2:]
    center_offset = [0.0, 0.0]
    if center is not None:
        center_offset = [1.0 * (c - s * 0.5) for c, s in zip(center, [width, height])]
    # The image is drawn with y pointing down, so a counter-clockwise turn is -angle in the matrix.
    matrix = _get_inverse_affine_matrix(center_offset, -angle, [0.0, 0.0], 1.0, [0.0, 0.0])
    output_width, output_height = _affine_output_size(matrix, width, height) if expand else (width, height)
    return _sample_affine(img, matrix, output_width, output_height, interpolation, fill)


def affine(img, angle: float, translate, scale: float, shear, interpolation=InterpolationMode.NEAREST, fill=None,
           center=None):
    """Rotate by ``angle``, translate by ``translate`` pixels, scale and shear, keeping the image centre fixed."""
    _check_image(img)
    interpolation = _interpolation(interpolation)
    if not isinstance(translate, (list, tuple)) or len(translate) != 2:
        raise ValueError("Argument translate should be a sequence of length 2")
    if scale <= 0.0:
        raise ValueError("Argument scale should be positive")
    shear = _check_shear(shear)
    _, height, width = get_dimensions(img)
    if _is_pil_image(img):
        center = [width * 0.5, height * 0.5] if center is None else center
        matrix = _get_inverse_affine_matrix(center, angle, translate, scale, shear)
        return img.transform(img.size, Image.Transform.AFFINE, matrix, _PIL_FILTERS[interpolation],
                             **_pil_fill(fill, img))
    center_offset = [0.0, 0.0]
    if center is not None:
        center_offset = [1.0 * (c - s * 0.5) for c, s in zip(center, [width, height])]
    matrix = _get_inverse_affine_matrix(center_offset, angle, [1.0 * t for t in translate], scale, shear)
    return _sample_affine(img, matrix, width, height, interpolation, fill)


# -- colour ------------------------------------------------------------------------------------
def _check_channels(img: Tensor, permitted: list[int]) -> int:
    if img.ndim < 3:
        raise TypeError(f"Input image tensor should have at least 3 dimensions, but found {img.ndim}")
    channels = img.shape[-3]
    if channels not in permitted:
        raise TypeError(f"Input image tensor permitted channel values are {permitted}, but found {channels}")
    return channels


def rgb_to_grayscale(img, num_output_channels: int = 1):
    """Luma ``L = 0.2989 R + 0.587 G + 0.114 B`` (ITU-R 601-2), repeated to ``num_output_channels``."""
    _check_image(img)
    if num_output_channels not in (1, 3):
        raise ValueError("num_output_channels should be either 1 or 3")
    if _is_pil_image(img):
        gray = img.convert("L")
        if num_output_channels == 3:
            gray = Image.merge("RGB", (gray, gray, gray))
        return gray
    channels = _check_channels(img, [1, 3])
    if channels == 3:
        red, green, blue = img.unbind(-3)
        gray = (0.2989 * red + 0.587 * green + 0.114 * blue).to(img.dtype).unsqueeze(-3)
    else:
        gray = img.clone()
    if num_output_channels == 3:
        return gray.expand(*gray.shape[:-3], 3, *gray.shape[-2:]).contiguous()
    return gray


to_grayscale = rgb_to_grayscale


def _blend(image: Tensor, other, ratio: float) -> Tensor:
    """``ratio * image + (1 - ratio) * other``, clamped to the image's range and kept in its dtype."""
    bound = _max_value(image.dtype)
    blended = (ratio * image + (1.0 - ratio) * other).clamp(0, bound)
    return blended.to(image.dtype)


def _check_factor(factor: float, name: str) -> None:
    if factor < 0:
        raise ValueError(f"{name} ({factor}) is not non-negative.")


def adjust_brightness(img, brightness_factor: float):
    """Multiply by ``brightness_factor`` (0 gives black, 1 the original)."""
    _check_image(img)
    _check_factor(brightness_factor, "brightness_factor")
    if _is_pil_image(img):
        return ImageEnhance.Brightness(img).enhance(brightness_factor)
    _check_channels(img, [1, 3])
    return _blend(img, 0.0, brightness_factor)


def adjust_contrast(img, contrast_factor: float):
    """Blend with the mean gray level (0 gives a flat gray image, 1 the original)."""
    _check_image(img)
    _check_factor(contrast_factor, "contrast_factor")
    if _is_pil_image(img):
        return ImageEnhance.Contrast(img).enhance(contrast_factor)
    channels = _check_channels(img, [1, 3])
    float_dtype = img.dtype if img.is_floating_point() else None
    gray = rgb_to_grayscale(img) if channels == 3 else img
    gray = gray.float() if float_dtype is None else gray
    mean = gray.mean(dim=(-3, -2, -1), keepdim=True)
    return _blend(img, mean, contrast_factor)


def adjust_saturation(img, saturation_factor: float):
    """Blend with the grayscale image (0 gives gray, 1 the original, 2 doubles the saturation)."""
    _check_image(img)
    _check_factor(saturation_factor, "saturation_factor")
    if _is_pil_image(img):
        return ImageEnhance.Color(img).enhance(saturation_factor)
    if _check_channels(img, [1, 3]) == 1:
        return img
    return _blend(img, rgb_to_grayscale(img), saturation_factor)


def _rgb_to_hsv(rgb, xp):
    """HSV with every component in [0, 1], computed for all pixels at once (channel axis -3)."""
    red, green, blue = rgb[..., 0, :, :], rgb[..., 1, :, :], rgb[..., 2, :, :]
    value = xp.maximum(xp.maximum(red, green), blue)
    chroma = value - xp.minimum(xp.minimum(red, green), blue)
    gray = chroma == 0
    saturation = chroma / xp.where(value == 0, 1, value)
    safe_chroma = xp.where(gray, 1, chroma)
    # Hue: which channel is the maximum decides the sector of the colour wheel.
    red_hue = (green - blue) / safe_chroma
    green_hue = 2.0 + (blue - red) / safe_chroma
    blue_hue = 4.0 + (red - green) / safe_chroma
    hue = xp.where(value == red, red_hue, xp.where(value == green, green_hue, blue_hue))
    hue = xp.where(gray, 0, (hue / 6.0) % 1.0)
    return hue, saturation, value


def _hsv_to_rgb(hue, saturation, value, xp):
    sector = xp.floor(hue * 6.0)
    fraction = hue * 6.0 - sector
    sector = sector.astype(np.int64) % 6
    p = xp.clip(value * (1.0 - saturation), 0.0, 1.0)
    q = xp.clip(value * (1.0 - saturation * fraction), 0.0, 1.0)
    t = xp.clip(value * (1.0 - saturation * (1.0 - fraction)), 0.0, 1.0)
    # For each sector, which of (v, q, p, t) is red, green and blue.
    choices = xp.stack([value, q, p, t])
    red_pick = xp.asarray([0, 1, 2, 2, 3, 0])[sector]
    green_pick = xp.asarray([3, 0, 0, 1, 2, 2])[sector]
    blue_pick = xp.asarray([2, 2, 3, 0, 0, 1])[sector]
    red = xp.take_along_axis(choices, red_pick[None], axis=0)[0]
    green = xp.take_along_axis(choices, green_pick[None], axis=0)[0]
    blue = xp.take_along_axis(choices, blue_pick[None], axis=0)[0]
    return xp.stack([red, green, blue], axis=-3)


def adjust_hue(img, hue_factor: float):
    """Turn the hue by ``hue_factor`` of a full circle (in [-0.5, 0.5]), keeping saturation and value."""
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"hue_factor ({hue_factor}) is not in [-0.5, 0.5].")
    _check_image(img)
    if _is_pil_image(img):
        if img.mode in ("L", "1", "I", "F"):
            return img
        hue, saturation, value = img.convert("HSV").split()
        # Pillow's hue is one byte: add the turn modulo 256.
        shifted = (np.asarray(hue, dtype=np.int64) + int(hue_factor * 255)) % 256
        hue = Image.fromarray(shifted.astype(np.uint8), mode="L")
        return Image.merge("HSV", (hue, saturation, value)).convert(img.mode)
    if _check_channels(img, [1, 3]) == 1:
        return img
    xp = img._xp
    data = img._data
    floats = data if img.is_floating_point() else data.astype(np.float32) / 255.0
    hue, saturation, value = _rgb_to_hsv(floats, xp)
    rgb = _hsv_to_rgb((hue + hue_factor) % 1.0, saturation, value, xp)
    if not img.is_floating_point():
        # torchvision's float -> uint8 conversion: scale by 256 - 0.001 and truncate.
        rgb = rgb * (_max_value(img.dtype) + 1.0 - 1e-3)
    return _wrap(rgb.astype(data.dtype), img)


def erase(img: Tensor, i: int, j: int, h: int, w: int, v, inplace: bool = False) -> Tensor:
    """Overwrite the ``h x w`` window at ``(i, j)`` with ``v`` (a tensor that broadcasts to the window)."""
    if not isinstance(img, Tensor):
        raise TypeError(f"img should be Tensor Image. Got {type(img)}")
    if not inplace:
        img = img.clone()
    img[..., i:i + h, j:j + w] = v
    return img
