"""Pretrained weights: what a weights entry is, and loading one safely.

As in torchvision, each model with pretrained weights has an enum of them
(``LeNet5_Weights.DIGITS_V1``); a constructor takes ``weights=`` as that enum member, its
name (``"DIGITS_V1"``, ``"LeNet5_Weights.DIGITS_V1"``), ``"DEFAULT"`` or ``None``.

The kit *ships* its weights: files in ``minitorch/vision/models/weights/`` written with
``minitorch.save`` by ``python -m minitorch.vision.models.train`` (the shipped files are in
minitorch's first format, a zip of JSON and raw numbers that holds no code; files made again
are in PyTorch's format; ``minitorch.load`` reads both, allow-list only). That script also writes ``manifest.json``,
which records for each file its SHA-256 and how it was made (data, epochs, accuracy). The
hash is checked before a file is read, so a corrupt or swapped file is refused with its
name, instead of loading wrong numbers.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from ... import serialization

WEIGHTS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "weights")
MANIFEST = os.path.join(WEIGHTS_DIR, "manifest.json")

__all__ = ["Weights", "WeightsEnum", "get_model", "get_model_builder", "get_weight", "list_models", "register_model"]

# The model modules that define weights enums (imported when first asked, by full path).
_WEIGHTS_MODULES = ("lenet", "mlp", "resnet", "vgg")


def _manifest() -> dict:
    try:
        with open(MANIFEST, encoding="utf-8") as file:
            return json.load(file)
    except FileNotFoundError:
        return {}


_MANIFEST = _manifest()


def _sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for chunk in iter(lambda: file.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


@dataclass(eq=False)
class Weights:
    """One set of pretrained weights: the file, its hash, how to prepare inputs, and facts about it.

    ``transforms`` builds the preprocessing the model was trained with; ``meta`` holds the
    categories, the number of parameters, the training recipe and the test accuracy.
    """

    filename: str
    transforms: Any
    meta: dict = field(default_factory=dict)

    @property
    def path(self) -> str:
        return os.path.join(WEIGHTS_DIR, self.filename)

    @property
    def sha256(self) -> str | None:
        return _MANIFEST.get(self.filename, {}).get("sha256")

    def get_state_dict(self, progress: bool = False, check_hash: bool = True) -> dict:
        """Read the state dict from the shipped file, after checking its SHA-256 against the manifest."""
        path = self.path
        if not os.path.isfile(path):
            raise FileNotFoundError(
                f"The weights file {path} is missing. Recreate it with: python -m minitorch.vision.models.train"
            )
        if check_hash:
            expected = self.sha256
            if expected is None:
                raise RuntimeError(f"No hash is recorded for {self.filename} in {MANIFEST}: refusing to load it")
            found = _sha256(path)
            if found != expected:
                raise RuntimeError(
                    f"The weights file {path} does not match its recorded hash (expected sha256 {expected}, found "
                    f"{found}): it is corrupt or was replaced. Recreate it with: "
                    "python -m minitorch.vision.models.train"
                )
        return serialization.load(path)


class WeightsEnum(Enum):
    """The pretrained weights of one model family; members are ``Weights``."""

    @classmethod
    def verify(cls, obj):
        """``obj`` as a member of this enum: a member, its name, ``"DEFAULT"``, or ``None``."""
        if obj is None or isinstance(obj, cls):
            return obj
        if isinstance(obj, str):
            name = obj.replace(cls.__name__ + ".", "")
            if name == "DEFAULT":
                return cls.DEFAULT
            try:
                return cls[name]
            except KeyError:
                valid = ", ".join([f"'{member}'" for member in cls.__members__] + ["'DEFAULT'"])
                raise ValueError(f"Unknown weights name {obj!r} for {cls.__name__}: valid names are {valid}") from None
        raise TypeError(f"weights should be a {cls.__name__} member, its name or None, got {obj!r}")

    def get_state_dict(self, *args, **kwargs) -> dict:
        return self.value.get_state_dict(*args, **kwargs)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}.{self._name_}"

    def __getattr__(self, name):
        # ``weights.meta``, ``weights.transforms``, ``weights.path``: read through to the Weights value.
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(object.__getattribute__(self, "_value_"), name)


def _overwrite_named_param(kwargs: dict, param: str, new_value) -> None:
    if param in kwargs and kwargs[param] != new_value:
        raise ValueError(f"The parameter '{param}' expected value {new_value} but got {kwargs[param]} instead.")
    kwargs[param] = new_value


def _load_pretrained(model, weights: Weights, progress: bool) -> None:
    model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    model.eval()


# -- the registry: get_model("lenet5", weights="DEFAULT") -------------------------------------
_MODELS: dict = {}


def register_model(name: str | None = None):
    def wrapper(builder):
        _MODELS[name or builder.__name__] = builder
        return builder

    return wrapper


def list_models() -> list[str]:
    return sorted(_MODELS)


def get_model_builder(name: str):
    try:
        return _MODELS[name.lower()]
    except KeyError:
        raise ValueError(f"Unknown model {name!r}: known models are {', '.join(list_models())}") from None


def get_model(name: str, **config):
    """Build a model by name: ``get_model("resnet8", weights="DEFAULT")``."""
    return get_model_builder(name)(**config)


def get_weight(name: str):
    """A weights member from its full name: ``get_weight("LeNet5_Weights.DIGITS_V1")``.

    The enum is looked up in each model module by name. The modules are imported by their full
    path: ``from . import mlp`` would give the ``mlp`` builder function, which the package's
    ``__init__`` binds over the submodule of the same name.
    """
    enum_name, _, member = name.partition(".")
    for module_name in _WEIGHTS_MODULES:
        module = importlib.import_module(f"{__package__}.{module_name}")
        enum = getattr(module, enum_name, None)
        if isinstance(enum, type) and issubclass(enum, WeightsEnum):
            return enum.verify(member)
    raise ValueError(f"Unknown weights enum {enum_name!r} in {name!r}")
