"""The transforms: callable objects that prepare an image for a model (``torchvision.transforms``).

    >>> import numpy as np
    >>> from minitorch.vision import transforms
    >>> prepare = transforms.Compose([transforms.ToTensor(), transforms.Normalize([0.5], [0.5])])
    >>> prepare(np.zeros((4, 4, 1), dtype=np.uint8)).shape
    minitorch.Size([1, 4, 4])

Each transform holds its settings; the image operation itself is a function in
``functional.py``. The *random* ones draw their parameters with a static ``get_params``
from minitorch's default generator with torchvision's calls (``torch.rand(1) < p``,
``torch.randint(low, high, (1,))``, ``torch.empty(1).uniform_(low, high)``, ``torch.randperm(4)``),
so ``minitorch.manual_seed(0)`` makes a whole augmentation pipeline repeat exactly, with
PyTorch's random numbers. As in torchvision, the transforms that act on an image are
``nn.Module`` subclasses (they can sit in an ``nn.Sequential``); ``Compose``, ``ToTensor``,
``PILToTensor``, ``ToPILImage`` and ``Lambda`` are plain callables.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Sequence

import numpy as np

from ... import _creation, _sampling
from ..._random import default_generator
from ..._tensor import Tensor
from ...nn.modules.module import Module
from . import functional as F
from .functional import InterpolationMode

__all__ = [
    "Compose", "ToTensor", "PILToTensor", "ToPILImage", "Normalize", "Resize", "CenterCrop", "RandomCrop",
    "RandomResizedCrop", "RandomHorizontalFlip", "RandomVerticalFlip", "RandomRotation", "RandomAffine",
    "ColorJitter", "Grayscale", "RandomGrayscale", "Pad", "Lambda", "RandomErasing", "RandomApply",
    "InterpolationMode",
]


# -- drawing random parameters from minitorch's default generator ------------------------------
def _uniform(low: float, high: float) -> float:
    """A float32 draw from ``U[low, high)`` (torchvision: ``torch.empty(1).uniform_(low, high)``)."""
    return float(_sampling.uniform(default_generator, (1,), np.float32, low, high)[0])


def _randint(low: int, high: int) -> int:
    """An integer in ``[low, high)`` (torchvision: ``torch.randint(low, high, size=(1,))``)."""
    return int(_sampling.random_from_to(default_generator, (1,), np.int64, low, high)[0])


def _coin(p: float) -> bool:
    """True with probability ``p`` (torchvision: ``torch.rand(1) < p``)."""
    return bool(_sampling.uniform(default_generator, (1,), np.float32)[0] < p)


# -- argument checks -----------------------------------------------------------------------------
def _setup_size(size, error_msg: str) -> tuple[int, int]:
    if isinstance(size, numbers.Number):
        return int(size), int(size)
    if isinstance(size, Sequence) and len(size) == 1:
        return size[0], size[0]
    if not isinstance(size, Sequence) or len(size) != 2:
        raise ValueError(error_msg)
    return size[0], size[1]


def _setup_angle(value, name: str, req_sizes=(2,)) -> list[float]:
    if isinstance(value, numbers.Number):
        if value < 0:
            raise ValueError(f"If {name} is a single number, it must be positive.")
        return [float(-value), float(value)]
    if not isinstance(value, Sequence) or len(value) not in req_sizes:
        raise ValueError(f"{name} should be a sequence of length {' or '.join(str(s) for s in req_sizes)}.")
    return [float(v) for v in value]


def _check_sequence(value, name: str) -> None:
    if not isinstance(value, Sequence):
        raise TypeError(f"{name} should be a sequence")


def _format_interpolation(mode) -> InterpolationMode:
    if isinstance(mode, int):
        warnings.warn(
            "Argument 'interpolation' of type int is deprecated since 0.13 and will be removed in 0.15. "
            "Please use InterpolationMode enum.",
            stacklevel=3,
        )
    return F._interpolation(mode)


# -- composition and conversion -----------------------------------------------------------------
class Compose:
    """Apply transforms one after another: ``Compose([t1, t2])(x) == t2(t1(x))``."""

    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img):
        for transform in self.transforms:
            img = transform(img)
        return img

    def __repr__(self) -> str:
        lines = [f"{self.__class__.__name__}("] + [f"    {transform}" for transform in self.transforms] + [")"]
        return "\n".join(lines)


class ToTensor:
    """PIL image or ``H x W x C`` uint8 array -> ``C x H x W`` float tensor in [0, 1] (see ``F.to_tensor``)."""

    def __call__(self, pic) -> Tensor:
        return F.to_tensor(pic)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}()"


class PILToTensor:
    """PIL image -> ``C x H x W`` tensor of the image's own dtype, values unchanged."""

    def __call__(self, pic) -> Tensor:
        return F.pil_to_tensor(pic)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}()"


class ToPILImage:
    """Tensor or array -> PIL image (see ``F.to_pil_image`` for how the mode is chosen)."""

    def __init__(self, mode: str | None = None):
        self.mode = mode

    def __call__(self, pic):
        return F.to_pil_image(pic, self.mode)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(mode={self.mode})" if self.mode is not None else "ToPILImage()"


class Lambda:
    """Apply any function you give it: ``Lambda(lambda x: x * 2)``."""

    def __init__(self, lambd):
        if not callable(lambd):
            raise TypeError(f"Argument lambd should be callable, got {repr(type(lambd).__name__)}")
        self.lambd = lambd

    def __call__(self, img):
        return self.lambd(img)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}()"


# -- deterministic image transforms -------------------------------------------------------------
class Normalize(Module):
    """``output[c] = (input[c] - mean[c]) / std[c]`` on a float tensor image."""

    def __init__(self, mean, std, inplace: bool = False):
        super().__init__()
        self.mean = mean
        self.std = std
        self.inplace = inplace

    def forward(self, tensor: Tensor) -> Tensor:
        return F.normalize(tensor, self.mean, self.std, self.inplace)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(mean={self.mean}, std={self.std})"


class Resize(Module):
    """Resize to ``size``: ``(h, w)``, or an int for the smaller edge (the aspect ratio is kept)."""

    def __init__(self, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias: bool = True):
        super().__init__()
        if not isinstance(size, (int, Sequence)) and size is not None:
            raise TypeError(f"Size should be int or sequence. Got {type(size)}")
        if isinstance(size, Sequence) and len(size) not in (1, 2):
            raise ValueError("If size is a sequence, it should have 1 or 2 values")
        self.size = size
        self.max_size = max_size
        self.interpolation = _format_interpolation(interpolation)
        self.antialias = antialias

    def forward(self, img):
        return F.resize(img, self.size, self.interpolation, self.max_size, self.antialias)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(size={self.size}, interpolation={self.interpolation.value}, "
                f"max_size={self.max_size}, antialias={self.antialias})")


class CenterCrop(Module):
    """The centre ``size`` window (padded with zeros when the image is smaller)."""

    def __init__(self, size):
        super().__init__()
        self.size = _setup_size(size, error_msg="Please provide only two dimensions (h, w) for size.")

    def forward(self, img):
        return F.center_crop(img, self.size)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(size={self.size})"


class Pad(Module):
    """Pad every border (see ``F.pad`` for the modes)."""

    def __init__(self, padding, fill=0, padding_mode: str = "constant"):
        super().__init__()
        if not isinstance(padding, (numbers.Number, tuple, list)):
            raise TypeError("Got inappropriate padding arg")
        if not isinstance(fill, (numbers.Number, tuple, list)):
            raise TypeError("Got inappropriate fill arg")
        if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
            raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
        if isinstance(padding, Sequence) and len(padding) not in (1, 2, 4):
            raise ValueError(
                f"Padding must be an int or a 1, 2, or 4 element tuple, not a {len(padding)} element tuple"
            )
        self.padding = padding
        self.fill = fill
        self.padding_mode = padding_mode

    def forward(self, img):
        return F.pad(img, self.padding, self.fill, self.padding_mode)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(padding={self.padding}, fill={self.fill}, padding_mode={self.padding_mode})"


class Grayscale(Module):
    """Convert to gray (``num_output_channels`` 1 or 3)."""

    def __init__(self, num_output_channels: int = 1):
        super().__init__()
        self.num_output_channels = num_output_channels

    def forward(self, img):
        return F.rgb_to_grayscale(img, num_output_channels=self.num_output_channels)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(num_output_channels={self.num_output_channels})"


# -- random transforms --------------------------------------------------------------------------
class RandomApply(Module):
    """Apply a list of transforms with probability ``p`` (all of them, or none)."""

    def __init__(self, transforms, p: float = 0.5):
        super().__init__()
        self.transforms = transforms
        self.p = p

    def forward(self, img):
        if not _coin(self.p):
            return img
        for transform in self.transforms:
            img = transform(img)
        return img

    def __repr__(self) -> str:
        inner = "\n".join(f"    {transform}" for transform in self.transforms)
        return f"{self.__class__.__name__}(\n    p={self.p}\n{inner}\n)"


class RandomCrop(Module):
    """A ``size`` window at a random position, after optional padding.

    ``padding`` pads every image first (``RandomCrop(28, padding=2)`` shifts a 28x28 digit by
    up to 2 pixels); ``pad_if_needed`` pads images smaller than ``size`` so a crop exists.
    """

    @staticmethod
    def get_params(img, output_size) -> tuple[int, int, int, int]:
        """``(top, left, height, width)`` of a uniformly placed ``output_size`` window."""
        _, height, width = F.get_dimensions(img)
        crop_height, crop_width = output_size
        if height < crop_height or width < crop_width:
            raise ValueError(
                f"Required crop size {(crop_height, crop_width)} is larger than input image size {(height, width)}"
            )
        if width == crop_width and height == crop_height:
            return 0, 0, height, width
        top = _randint(0, height - crop_height + 1)
        left = _randint(0, width - crop_width + 1)
        return top, left, crop_height, crop_width

    def __init__(self, size, padding=None, pad_if_needed: bool = False, fill=0, padding_mode: str = "constant"):
        super().__init__()
        self.size = tuple(_setup_size(size, error_msg="Please provide only two dimensions (h, w) for size."))
        self.padding = padding
        self.pad_if_needed = pad_if_needed
        self.fill = fill
        self.padding_mode = padding_mode

    def forward(self, img):
        if self.padding is not None:
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        _, height, width = F.get_dimensions(img)
        if self.pad_if_needed and width < self.size[1]:
            img = F.pad(img, [self.size[1] - width, 0], self.fill, self.padding_mode)
        if self.pad_if_needed and height < self.size[0]:
            img = F.pad(img, [0, self.size[0] - height], self.fill, self.padding_mode)
        top, left, crop_height, crop_width = self.get_params(img, self.size)
        return F.crop(img, top, left, crop_height, crop_width)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(size={self.size}, padding={self.padding})"


class RandomResizedCrop(Module):
    """A random window (``scale`` of the area, aspect ratio in ``ratio``) resized to ``size``: Inception's crop."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0),
                 interpolation=InterpolationMode.BILINEAR, antialias: bool = True):
        super().__init__()
        self.size = _setup_size(size, error_msg="Please provide only two dimensions (h, w) for size.")
        if not isinstance(scale, Sequence):
            raise TypeError("Scale should be a sequence")
        if not isinstance(ratio, Sequence):
            raise TypeError("Ratio should be a sequence")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            warnings.warn("Scale and ratio should be of kind (min, max)", stacklevel=2)
        self.interpolation = _format_interpolation(interpolation)
        self.antialias = antialias
        self.scale = scale
        self.ratio = ratio

    @staticmethod
    def get_params(img, scale, ratio) -> tuple[int, int, int, int]:
        """``(top, left, height, width)``: up to 10 random tries, then a centre crop of the nearest ratio."""
        width, height = F.get_image_size(img)
        area = height * width
        log_ratio = (math.log(ratio[0]), math.log(ratio[1]))
        for _ in range(10):
            target_area = area * _uniform(scale[0], scale[1])
            aspect_ratio = math.exp(_uniform(log_ratio[0], log_ratio[1]))  # uniform in log: 1/2 as likely as 2
            crop_width = int(round(math.sqrt(target_area * aspect_ratio)))
            crop_height = int(round(math.sqrt(target_area / aspect_ratio)))
            if 0 < crop_width <= width and 0 < crop_height <= height:
                top = _randint(0, height - crop_height + 1)
                left = _randint(0, width - crop_width + 1)
                return top, left, crop_height, crop_width
        in_ratio = float(width) / float(height)
        if in_ratio < min(ratio):
            crop_width = width
            crop_height = int(round(crop_width / min(ratio)))
        elif in_ratio > max(ratio):
            crop_height = height
            crop_width = int(round(crop_height * max(ratio)))
        else:
            crop_width, crop_height = width, height
        return (height - crop_height) // 2, (width - crop_width) // 2, crop_height, crop_width

    def forward(self, img):
        top, left, height, width = self.get_params(img, self.scale, self.ratio)
        return F.resized_crop(img, top, left, height, width, self.size, self.interpolation, antialias=self.antialias)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(size={self.size}, scale={tuple(round(s, 4) for s in self.scale)}, "
                f"ratio={tuple(round(r, 4) for r in self.ratio)}, interpolation={self.interpolation.value}, "
                f"antialias={self.antialias})")


class _RandomFlip(Module):
    def __init__(self, p: float = 0.5):
        super().__init__()
        self.p = p

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(p={self.p})"


class RandomHorizontalFlip(_RandomFlip):
    """Mirror left to right with probability ``p``."""

    def forward(self, img):
        return F.hflip(img) if _coin(self.p) else img


class RandomVerticalFlip(_RandomFlip):
    """Mirror top to bottom with probability ``p``."""

    def forward(self, img):
        return F.vflip(img) if _coin(self.p) else img


class RandomRotation(Module):
    """Rotate by an angle drawn uniformly from ``degrees`` (a number ``d`` means ``(-d, d)``)."""

    def __init__(self, degrees, interpolation=InterpolationMode.NEAREST, expand: bool = False, center=None, fill=0):
        super().__init__()
        self.degrees = _setup_angle(degrees, name="degrees", req_sizes=(2,))
        if center is not None and (not isinstance(center, Sequence) or len(center) != 2):
            raise ValueError("center should be a sequence of length 2.")
        if fill is None:
            fill = 0
        elif not isinstance(fill, (Sequence, numbers.Number)):
            raise TypeError("Fill should be either a sequence or a number.")
        self.interpolation = _format_interpolation(interpolation)
        self.expand = expand
        self.center = center
        self.fill = fill

    @staticmethod
    def get_params(degrees: list[float]) -> float:
        return _uniform(degrees[0], degrees[1])

    def forward(self, img):
        fill = self.fill
        channels, _, _ = F.get_dimensions(img)
        if isinstance(img, Tensor) and isinstance(fill, (int, float)):
            fill = [float(fill)] * channels
        angle = self.get_params(self.degrees)
        return F.rotate(img, angle, self.interpolation, self.expand, self.center, fill)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(degrees={self.degrees}, interpolation={self.interpolation.value}, "
                f"expand={self.expand}, fill={self.fill})")


class RandomAffine(Module):
    """A random rotation, translation, scale and shear, about the image centre."""

    def __init__(self, degrees, translate=None, scale=None, shear=None, interpolation=InterpolationMode.NEAREST,
                 fill=0, center=None):
        super().__init__()
        self.degrees = _setup_angle(degrees, name="degrees", req_sizes=(2,))
        if translate is not None:
            _check_sequence(translate, "translate")
            if len(translate) != 2:
                raise ValueError("translate should be a sequence of length 2.")
            for t in translate:
                if not 0.0 <= t <= 1.0:
                    raise ValueError("translation values should be between 0 and 1")
        if scale is not None:
            _check_sequence(scale, "scale")
            if len(scale) != 2:
                raise ValueError("scale should be a sequence of length 2.")
            for s in scale:
                if s <= 0:
                    raise ValueError("scale values should be positive")
        if shear is not None:
            shear = _setup_angle(shear, name="shear", req_sizes=(2, 4))
        if fill is None:
            fill = 0
        elif not isinstance(fill, (Sequence, numbers.Number)):
            raise TypeError("Fill should be either a sequence or a number.")
        self.translate = translate
        self.scale = scale
        self.shear = shear
        self.interpolation = _format_interpolation(interpolation)
        self.fill = fill
        self.center = center

    @staticmethod
    def get_params(degrees, translate, scale_ranges, shears, img_size) -> tuple:
        """``(angle, (tx, ty), scale, (shear_x, shear_y))``; translations in whole pixels of ``img_size`` (w, h)."""
        angle = _uniform(degrees[0], degrees[1])
        if translate is not None:
            max_dx = float(translate[0] * img_size[0])
            max_dy = float(translate[1] * img_size[1])
            translations = (int(round(_uniform(-max_dx, max_dx))), int(round(_uniform(-max_dy, max_dy))))
        else:
            translations = (0, 0)
        scale = _uniform(scale_ranges[0], scale_ranges[1]) if scale_ranges is not None else 1.0
        shear_x = shear_y = 0.0
        if shears is not None:
            shear_x = _uniform(shears[0], shears[1])
            if len(shears) == 4:
                shear_y = _uniform(shears[2], shears[3])
        return angle, translations, scale, (shear_x, shear_y)

    def forward(self, img):
        fill = self.fill
        channels, height, width = F.get_dimensions(img)
        if isinstance(img, Tensor) and isinstance(fill, (int, float)):
            fill = [float(fill)] * channels
        angle, translations, scale, shear = self.get_params(
            self.degrees, self.translate, self.scale, self.shear, [width, height]
        )
        return F.affine(img, angle, list(translations), scale, list(shear), self.interpolation, fill, self.center)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(degrees={self.degrees}, translate={self.translate}, scale={self.scale}, "
                f"shear={self.shear}, interpolation={self.interpolation.value}, fill={self.fill})")


class ColorJitter(Module):
    """Random brightness, contrast, saturation and hue, applied in a random order.

    A number ``b`` for brightness, contrast or saturation means a factor drawn from
    ``[max(0, 1 - b), 1 + b]``; hue ``h`` means a turn drawn from ``[-h, h]`` (at most 0.5).
    """

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        super().__init__()
        self.brightness = self._check_input(brightness, "brightness")
        self.contrast = self._check_input(contrast, "contrast")
        self.saturation = self._check_input(saturation, "saturation")
        self.hue = self._check_input(hue, "hue", center=0, bound=(-0.5, 0.5), clip_first_on_zero=False)

    @staticmethod
    def _check_input(value, name: str, center: float = 1, bound=(0, float("inf")), clip_first_on_zero: bool = True):
        if isinstance(value, numbers.Number):
            if value < 0:
                raise ValueError(f"If {name} is a single number, it must be non negative.")
            value = [center - float(value), center + float(value)]
            if clip_first_on_zero:
                value[0] = max(value[0], 0.0)
        elif isinstance(value, (tuple, list)) and len(value) == 2:
            value = [float(value[0]), float(value[1])]
        else:
            raise TypeError(f"{name} should be a single number or a list/tuple with length 2.")
        if not bound[0] <= value[0] <= value[1] <= bound[1]:
            raise ValueError(f"{name} values should be between {bound}, but got {value}.")
        # (1, 1) for a factor, or (0, 0) for the hue, changes nothing: skip it.
        return None if value[0] == value[1] == center else tuple(value)

    @staticmethod
    def get_params(brightness, contrast, saturation, hue) -> tuple:
        """``(order, brightness, contrast, saturation, hue)``: a random order of the four, and each factor."""
        order = _sampling.randperm(default_generator, 4).tolist()
        factors = [None if bounds is None else _uniform(bounds[0], bounds[1])
                   for bounds in (brightness, contrast, saturation, hue)]
        return (order, *factors)

    def forward(self, img):
        order, brightness, contrast, saturation, hue = self.get_params(
            self.brightness, self.contrast, self.saturation, self.hue
        )
        adjust = (F.adjust_brightness, F.adjust_contrast, F.adjust_saturation, F.adjust_hue)
        factors = (brightness, contrast, saturation, hue)
        for index in order:
            if factors[index] is not None:
                img = adjust[index](img, factors[index])
        return img

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(brightness={self.brightness}, contrast={self.contrast}, "
                f"saturation={self.saturation}, hue={self.hue})")


class RandomGrayscale(Module):
    """Convert to gray with probability ``p``, keeping the number of channels."""

    def __init__(self, p: float = 0.1):
        super().__init__()
        self.p = p

    def forward(self, img):
        channels, _, _ = F.get_dimensions(img)
        return F.rgb_to_grayscale(img, num_output_channels=channels) if _coin(self.p) else img

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(p={self.p})"


class RandomErasing(Module):
    """With probability ``p``, overwrite a random rectangle of a tensor image (Cutout / Random Erasing).

    ``value``: a number, one number per channel, or ``"random"`` for normal noise.
    """

    def __init__(self, p: float = 0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace: bool = False):
        super().__init__()
        if not isinstance(value, (numbers.Number, str, tuple, list)):
            raise TypeError("Argument value should be either a number or str or a sequence")
        if isinstance(value, str) and value != "random":
            raise ValueError("If value is str, it should be 'random'")
        if not isinstance(scale, Sequence):
            raise TypeError("Scale should be a sequence")
        if not isinstance(ratio, Sequence):
            raise TypeError("Ratio should be a sequence")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            warnings.warn("Scale and ratio should be of kind (min, max)", stacklevel=2)
        if scale[0] < 0 or scale[1] > 1:
            raise ValueError("Scale should be between 0 and 1")
        if p < 0 or p > 1:
            raise ValueError("Random erasing probability should be between 0 and 1")
        self.p = p
        self.scale = scale
        self.ratio = ratio
        self.value = value
        self.inplace = inplace

    @staticmethod
    def get_params(img: Tensor, scale, ratio, value=None) -> tuple:
        """``(top, left, height, width, values)``; after 10 failed tries, the whole image unchanged."""
        channels, image_height, image_width = img.shape[-3], img.shape[-2], img.shape[-1]
        area = image_height * image_width
        log_ratio = (math.log(ratio[0]), math.log(ratio[1]))
        for _ in range(10):
            erase_area = area * _uniform(scale[0], scale[1])
            aspect_ratio = math.exp(_uniform(log_ratio[0], log_ratio[1]))
            height = int(round(math.sqrt(erase_area * aspect_ratio)))
            width = int(round(math.sqrt(erase_area / aspect_ratio)))
            if not (height < image_height and width < image_width):
                continue
            if value is None:
                values = _creation.empty(channels, height, width).normal_()
            else:
                values = _creation.tensor(value)[:, None, None]
            top = _randint(0, image_height - height + 1)
            left = _randint(0, image_width - width + 1)
            return top, left, height, width, values
        return 0, 0, image_height, image_width, img

    def forward(self, img):
        if not isinstance(img, Tensor):
            raise TypeError(f"img should be Tensor Image. Got {type(img)}")
        if not _coin(self.p):
            return img
        if isinstance(self.value, (int, float)):
            value = [float(self.value)]
        elif isinstance(self.value, str):
            value = None
        else:
            value = list(self.value)
        if value is not None and len(value) not in (1, img.shape[-3]):
            raise ValueError(
                "If value is a sequence, it should have either a single value or "
                f"{img.shape[-3]} (number of input channels)"
            )
        top, left, height, width, values = self.get_params(img, self.scale, self.ratio, value)
        return F.erase(img, top, left, height, width, values, self.inplace)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(p={self.p}, scale={self.scale}, ratio={self.ratio}, value={self.value}, "
                f"inplace={self.inplace})")
