"""Train the weights the kit ships, reproducibly: ``python -m minitorch.vision.models.train``.

    python -m minitorch.vision.models.train                     # all models, about 2-4 minutes on a laptop CPU
    python -m minitorch.vision.models.train --models lenet5 --out /tmp/weights

For each model: seed everything (``minitorch.manual_seed``), train on ``Digits`` (train
split) with small random shifts (``RandomCrop`` with padding) using SGD with momentum and
a cosine learning-rate schedule, evaluate on the test split, and save the state dict with
``minitorch.save``. ``manifest.json`` records each file's SHA-256 (checked when the weights
are loaded) with the recipe and the test accuracy, and ``MODEL_CARD.md`` is written from
the same numbers.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import time

import numpy as np

import minitorch
from minitorch.nn import functional as F
from minitorch.utils.data import DataLoader
from minitorch.vision import datasets, transforms as T
from minitorch.vision.models import _api, _digits
from minitorch.vision.models.lenet import LeNet5
from minitorch.vision.models.mlp import MLP
from minitorch.vision.models.resnet import ResNet

# name: (builder, image size, epochs, learning rate, file)
RECIPES = {
    "mlp": (lambda: MLP(in_features=64), 8, 40, 0.05, "mlp_digits_v1.mt"),
    "lenet5": (lambda: LeNet5(), 28, 15, 0.05, "lenet5_digits_v1.mt"),
    "resnet8": (lambda: ResNet(1, in_channels=1), 28, 8, 0.1, "resnet8_digits_v1.mt"),
}
SEED = 0
BATCH_SIZE = 64
WEIGHT_DECAY = 5e-4


def loaders(image_size: int):
    augment = T.Compose([T.RandomCrop(image_size, padding=max(1, image_size // 14)), T.ToTensor(),
                         T.Normalize(_digits.MEAN, _digits.STD)])
    evaluate = _digits.digits_transforms(image_size)
    train = datasets.Digits(train=True, image_size=image_size, transform=augment)
    test = datasets.Digits(train=False, image_size=image_size, transform=evaluate)
    return (DataLoader(train, batch_size=BATCH_SIZE, shuffle=True),
            DataLoader(test, batch_size=256, shuffle=False))


def accuracy(model, loader) -> float:
    model.eval()
    correct = total = 0
    with minitorch.no_grad():
        for images, labels in loader:
            correct += int((model(images).argmax(1) == labels).sum().item())
            total += len(labels)
    return correct / total


def train_one(name: str, out_dir: str, epochs: int | None = None) -> dict:
    builder, image_size, default_epochs, lr, filename = RECIPES[name]
    epochs = default_epochs if epochs is None else epochs
    minitorch.manual_seed(SEED)
    model = builder()
    train_loader, test_loader = loaders(image_size)
    optimizer = minitorch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, weight_decay=WEIGHT_DECAY)
    schedule = minitorch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs * len(train_loader))
    start = time.perf_counter()
    for epoch in range(epochs):
        model.train()
        total = 0.0
        for images, labels in train_loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(images), labels)
            loss.backward()
            optimizer.step()
            schedule.step()
            total += loss.item() * len(labels)
        print(f"{name}: epoch {epoch + 1}/{epochs}  loss {total / len(train_loader.dataset):.4f}", flush=True)
    seconds = time.perf_counter() - start
    test_accuracy = accuracy(model, test_loader)
    path = os.path.join(out_dir, filename)
    state = {key: value.detach().contiguous() for key, value in model.state_dict().items()}
    minitorch.save(state, path)
    with open(path, "rb") as file:
        sha256 = hashlib.sha256(file.read()).hexdigest()
    print(f"{name}: test accuracy {test_accuracy:.4f}, {seconds:.0f} s, {os.path.getsize(path)} bytes, {sha256}")
    return {
        "sha256": sha256, "model": name, "image_size": image_size, "epochs": epochs, "batch_size": BATCH_SIZE,
        "optimizer": f"SGD(lr={lr}, momentum=0.9, weight_decay={WEIGHT_DECAY}) with CosineAnnealingLR per step",
        "augmentation": f"RandomCrop({image_size}, padding={max(1, image_size // 14)})", "seed": SEED,
        "train_samples": len(train_loader.dataset), "test_samples": len(test_loader.dataset),
        "test_accuracy": round(test_accuracy, 4), "train_seconds": round(seconds, 1),
        "file_bytes": os.path.getsize(path),
        "num_params": sum(parameter.numel() for parameter in model.parameters()),
    }


MODEL_CARD = """# Model card: the pretrained weights shipped with minitorch.vision

Written by `python -m minitorch.vision.models.train` from the numbers it measured; do not edit by hand.

**Data.** `minitorch.vision.datasets.Digits`: scikit-learn's 1,797 handwritten digits (8x8 pixels,
17 gray levels, from the UCI "Optical Recognition of Handwritten Digits" set), split by a fixed
stratified split (seed 0) into 1,437 training and 360 test images. Gray levels are scaled to 0-255;
for 28x28 models the images are enlarged by antialiased bilinear resizing.

**Preprocessing** (`weights.transforms()`): resize to the model's input size, `ToTensor`,
`Normalize({mean}, {std})`.

**Training.** Seeded (`minitorch.manual_seed({seed})`), batch size {batch_size}, cross-entropy loss,
SGD with momentum 0.9 and weight decay {weight_decay}, cosine learning-rate decay over all steps,
random shifts by `RandomCrop` with padding. Saved with `minitorch.save`, read by `minitorch.load`'s allow-list
loading (no code in a file runs); the SHA-256 of
each file is in `weights/manifest.json` and is checked on every load.

| Weights | Model | Input | Parameters | Epochs | Test accuracy (360 images) | File size | Training time |
|---|---|---|---|---|---|---|---|
{rows}

**Intended use.** Teaching: inspecting trained filters, transfer learning exercises, quick demos.
These are tiny models of a tiny, clean data set: they are not digit recognisers for real-world
images (other pens, scanners, sizes or backgrounds), and 360 test images give an accuracy with an
uncertainty of about one percentage point.
"""


def write_card(manifest: dict, out_dir: str) -> None:
    enum_names = {"mlp": "MLP_Weights.DIGITS_V1", "lenet5": "LeNet5_Weights.DIGITS_V1",
                  "resnet8": "ResNet8_Weights.DIGITS_V1"}
    rows = "\n".join(
        f"| `{enum_names[entry['model']]}` | `{entry['model']}` | {entry['image_size']}x{entry['image_size']} | "
        f"{entry['num_params']:,} | {entry['epochs']} | {100 * entry['test_accuracy']:.1f}% | "
        f"{entry['file_bytes'] / 1024:.0f} KiB | {entry['train_seconds']:.0f} s |"
        for entry in manifest.values()
    )
    text = MODEL_CARD.format(mean=_digits.MEAN, std=_digits.STD, seed=SEED, batch_size=BATCH_SIZE,
                             weight_decay=WEIGHT_DECAY, rows=rows)
    with open(os.path.join(os.path.dirname(out_dir.rstrip(os.sep)), "MODEL_CARD.md"), "w", encoding="utf-8") as file:
        file.write(text)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", choices=sorted(RECIPES), default=sorted(RECIPES))
    parser.add_argument("--out", default=_api.WEIGHTS_DIR, help="folder for the weights and manifest.json")
    parser.add_argument("--epochs", type=int, default=None, help="override every recipe's epochs (quick checks)")
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    manifest_path = os.path.join(args.out, "manifest.json")
    manifest = {}
    if os.path.isfile(manifest_path):
        with open(manifest_path, encoding="utf-8") as file:
            manifest = json.load(file)
    for name in args.models:
        manifest[RECIPES[name][4]] = train_one(name, args.out, args.epochs)
    manifest = dict(sorted(manifest.items()))
    with open(manifest_path, "w", encoding="utf-8") as file:
        json.dump(manifest, file, indent=2)
        file.write("\n")
    if os.path.abspath(args.out) == os.path.abspath(_api.WEIGHTS_DIR):
        write_card(manifest, args.out)
    total = sum(entry["file_bytes"] for entry in manifest.values())
    print(f"wrote {manifest_path}; all weights together: {total / 1e6:.2f} MB; numpy {np.__version__}")


if __name__ == "__main__":
    main()
