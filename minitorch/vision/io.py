"""Reading and writing image files as tensors (``torchvision.io``), through Pillow.

    >>> import minitorch
    >>> from minitorch.vision import io
    >>> image = minitorch.zeros(3, 4, 5, dtype=minitorch.uint8)
    >>> io.decode_image(io.encode_png(image)).shape
    minitorch.Size([3, 4, 5])

Images are ``uint8`` tensors of shape ``C x H x W``, as in torchvision; encoded files are 1-D
``uint8`` tensors of their bytes.
"""

from __future__ import annotations

import io as _bytes_io
import pathlib
from enum import Enum

import numpy as np
from PIL import Image

from .._creation import from_numpy
from .._dtype import uint8
from .._tensor import Tensor

__all__ = ["ImageReadMode", "read_file", "write_file", "decode_image", "read_image", "encode_png", "write_png",
           "encode_jpeg", "write_jpeg", "decode_png", "decode_jpeg"]


class ImageReadMode(Enum):
    """The channels to decode to (``torchvision.io.ImageReadMode``)."""

    UNCHANGED = 0
    GRAY = 1
    GRAY_ALPHA = 2
    RGB = 3
    RGB_ALPHA = 4


_PIL_MODE = {ImageReadMode.GRAY: "L", ImageReadMode.GRAY_ALPHA: "LA", ImageReadMode.RGB: "RGB",
             ImageReadMode.RGB_ALPHA: "RGBA"}


def read_file(path: str | pathlib.Path) -> Tensor:
    """A file's bytes as a 1-D uint8 tensor."""
    return from_numpy(np.fromfile(path, dtype=np.uint8))


def write_file(filename: str | pathlib.Path, data: Tensor) -> None:
    """Write a 1-D uint8 tensor's bytes to a file."""
    pathlib.Path(filename).write_bytes(_bytes_of(data))


def _bytes_of(data: Tensor) -> bytes:
    if not isinstance(data, Tensor) or data.dtype != uint8 or data.dim() != 1:
        raise RuntimeError("Expected a 1 dimensional uint8 tensor with the encoded bytes")
    return data.cpu().numpy().tobytes()


def decode_image(input, mode: ImageReadMode = ImageReadMode.UNCHANGED, apply_exif_orientation: bool = False) -> Tensor:
    """Decode a PNG, JPEG, GIF, BMP or WebP image (its bytes as a tensor, or a path) into ``C x H x W`` uint8."""
    if isinstance(mode, str):
        mode = ImageReadMode[mode.upper()]
    data = input if isinstance(input, (str, pathlib.Path)) else _bytes_io.BytesIO(_bytes_of(input))
    with Image.open(data) as image:
        if apply_exif_orientation:
            from PIL import ImageOps  # only this option needs it

            image = ImageOps.exif_transpose(image)
        if mode is not ImageReadMode.UNCHANGED:
            image = image.convert(_PIL_MODE[mode])
        elif image.mode not in ("L", "LA", "RGB", "RGBA"):
            image = image.convert("RGBA" if "A" in image.getbands() or "transparency" in image.info else "RGB")
        pixels = np.asarray(image, dtype=np.uint8)
    if pixels.ndim == 2:
        pixels = pixels[:, :, None]
    return from_numpy(np.ascontiguousarray(pixels.transpose(2, 0, 1)))


decode_png = decode_jpeg = decode_image


def read_image(path: str | pathlib.Path, mode: ImageReadMode = ImageReadMode.UNCHANGED,
               apply_exif_orientation: bool = False) -> Tensor:
    """Read an image file into a ``C x H x W`` uint8 tensor."""
    return decode_image(read_file(path), mode, apply_exif_orientation)


def _to_pil(image: Tensor) -> Image.Image:
    if not isinstance(image, Tensor) or image.dtype != uint8:
        raise RuntimeError(f"Input tensor dtype should be uint8, got {getattr(image, 'dtype', type(image))}")
    if image.dim() != 3 or image.size(0) not in (1, 3):
        channels = image.size(0) if image.dim() == 3 else tuple(image.shape)
        raise RuntimeError(f"The number of channels should be 1 or 3, got: {channels}")
    pixels = image.detach().cpu().numpy().transpose(1, 2, 0)
    return Image.fromarray(pixels[:, :, 0] if pixels.shape[2] == 1 else pixels)


def _encode(image: Tensor, format: str, **options) -> Tensor:
    buffer = _bytes_io.BytesIO()
    _to_pil(image).save(buffer, format=format, **options)
    return from_numpy(np.frombuffer(buffer.getvalue(), dtype=np.uint8).copy())


def encode_png(input: Tensor, compression_level: int = 6) -> Tensor:
    """A ``C x H x W`` uint8 image (1 or 3 channels) as the bytes of a PNG file."""
    if not 0 <= compression_level <= 9:
        raise RuntimeError("Compression level should be between 0 and 9")
    return _encode(input, "PNG", compress_level=compression_level)


def write_png(input: Tensor, filename: str | pathlib.Path, compression_level: int = 6) -> None:
    """Write a ``C x H x W`` uint8 image as a PNG file."""
    write_file(filename, encode_png(input, compression_level))


def encode_jpeg(input: Tensor, quality: int = 75) -> Tensor:
    """A ``C x H x W`` uint8 image (1 or 3 channels) as the bytes of a JPEG file."""
    if not 1 <= quality <= 100:
        raise ValueError(f"Image quality should be a positive number between 1 and 100, got {quality}")
    return _encode(input, "JPEG", quality=quality)


def write_jpeg(input: Tensor, filename: str | pathlib.Path, quality: int = 75) -> None:
    """Write a ``C x H x W`` uint8 image as a JPEG file."""
    write_file(filename, encode_jpeg(input, quality))
