"""Optional cells that train a chapter's model on a real dataset (MNIST or Fashion-MNIST), downloaded
with ``minitorch.vision.datasets`` when the learner sets a flag on a machine that is online.

The chapters that train on scikit-learn's bundled 8x8 digits get one such section before their review
questions (``author.write`` adds it). By default the flag is False and the cell only says how to turn it
on: nothing downloads in a normal run, in either edition, or in the tests. With the flag on and no
network, the cell prints why and the notebook goes on.
"""

from __future__ import annotations

import textwrap

FLAG = "DOWNLOAD_REAL_DATA"

_LOAD = '''
import os

import minitorch
import minitorch.nn as nn
from minitorch.vision import datasets

{flag} = False  # True (online): downloads {dataset} ({size}) once, into DATA_ROOT
DATA_ROOT = os.path.join(os.path.expanduser("~"), "minitorch-data")

real_train = real_test = None
if not {flag}:
    print("Skipped: {flag} is False, so nothing was downloaded (set it to True to use {dataset}).")
else:
    try:
        real_train = datasets.{dataset}(DATA_ROOT, train=True, download=True)
        real_test = datasets.{dataset}(DATA_ROOT, train=False, download=True)
    except RuntimeError as error:  # offline, or no mirror answered (a DownloadError is a RuntimeError)
        print(f"Could not get {dataset} ({{error}}); the bundled digits above are all this chapter needs.")
if real_train is not None:
'''


def _accuracy_helper() -> str:
    return '''
    def real_accuracy(model, images, targets):
        model.eval()
        with minitorch.no_grad():
            return (model(images).argmax(dim=1) == targets).float().mean().item()

'''


SECTIONS = {
    "04_networks": (
        "MNIST",
        "about 11 MB",
        """
        The same recipe scales to the real thing. MNIST has 60,000 training images of 28×28 pixels (784 inputs instead
        of 64). The cell trains the same kind of MLP for one pass over a third of them and prints its test accuracy.
        """,
        '''
    import minitorch.optim as optim

    minitorch.manual_seed(0)
    real_images = real_train.data[:20000].reshape(-1, 784).float() / 255
    real_targets = real_train.targets[:20000]
    real_model = nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))
    real_optimizer = optim.SGD(real_model.parameters(), lr=0.1)
    for start in range(0, len(real_targets), 64):
        real_optimizer.zero_grad()
        real_loss = nn.functional.cross_entropy(
            real_model(real_images[start:start + 64]), real_targets[start:start + 64]
        )
        real_loss.backward()
        real_optimizer.step()
    real_test_images = real_test.data.reshape(-1, 784).float() / 255
    print(f"MLP on MNIST, one pass over {len(real_targets)} images: test accuracy "
          f"{real_accuracy(real_model, real_test_images, real_test.targets):.1%}")
''',
    ),
    "05_losses_and_optimizers": (
        "FashionMNIST",
        "about 30 MB",
        """
        Fashion-MNIST (10 kinds of clothing, MNIST's format) is harder than digits, so the optimizers differ more. The
        cell trains the same MLP with plain SGD and with Adam for one pass over 10,000 images and prints each test
        accuracy: compare them yourself.
        """,
        '''
    import minitorch.optim as optim

    real_images = real_train.data[:10000].reshape(-1, 784).float() / 255
    real_targets = real_train.targets[:10000]
    real_test_images = real_test.data.reshape(-1, 784).float() / 255
    for label, make_optimizer in {
        "SGD lr=0.1": lambda parameters: optim.SGD(parameters, lr=0.1),
        "Adam lr=0.001": lambda parameters: optim.Adam(parameters, lr=0.001),
    }.items():
        minitorch.manual_seed(0)
        real_model = nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))
        real_optimizer = make_optimizer(real_model.parameters())
        for start in range(0, len(real_targets), 64):
            real_optimizer.zero_grad()
            nn.CrossEntropyLoss()(real_model(real_images[start:start + 64]), real_targets[start:start + 64]).backward()
            real_optimizer.step()
        print(f"{label}: test accuracy {real_accuracy(real_model, real_test_images, real_test.targets):.1%}")
''',
    ),
    "06_data": (
        "MNIST",
        "about 11 MB",
        """
        The pieces of this chapter on a downloaded dataset: normalisation statistics from the training set only, a
        transform applied in `__getitem__`, and a seeded, shuffling `DataLoader`.
        """,
        '''
    from minitorch.utils.data import DataLoader
    from minitorch.vision import transforms

    pixels = real_train.data.float() / 255
    mean, std = pixels.mean().item(), pixels.std().item()  # the training set's statistics only
    prepare = transforms.Compose([transforms.ToTensor(), transforms.Normalize((mean,), (std,))])
    real_train = datasets.MNIST(DATA_ROOT, train=True, transform=prepare)
    real_loader = DataLoader(real_train, batch_size=256, shuffle=True, generator=minitorch.Generator().manual_seed(0))
    real_batch, real_labels = next(iter(real_loader))
    print(f"training-set mean {mean:.4f}, std {std:.4f}; {len(real_loader)} batches per epoch")
    print("one batch:", tuple(real_batch.shape), real_batch.dtype, "labels", tuple(real_labels.shape),
          real_labels.dtype)
    print(f"after Normalize: batch mean {real_batch.mean().item():.3f}, std {real_batch.std().item():.3f}")
''',
    ),
    "07_convolutions_and_vision": (
        "MNIST",
        "about 11 MB",
        """
        A small CNN of the same shape on MNIST's 28×28 digits: one pass over 10,000 images.
        """,
        '''
    import minitorch.optim as optim

    minitorch.manual_seed(0)
    real_images = real_train.data[:10000].unsqueeze(1).float() / 255
    real_targets = real_train.targets[:10000]
    real_cnn = nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(16 * 7 * 7, 10),
    )
    real_optimizer = optim.Adam(real_cnn.parameters(), lr=0.003)
    real_cnn.train()
    for start in range(0, len(real_targets), 64):
        real_optimizer.zero_grad()
        nn.functional.cross_entropy(real_cnn(real_images[start:start + 64]), real_targets[start:start + 64]).backward()
        real_optimizer.step()
    real_test_images = real_test.data[:2000].unsqueeze(1).float() / 255
    print(f"CNN on MNIST, one pass over {len(real_targets)} images: test accuracy on 2,000 "
          f"{real_accuracy(real_cnn, real_test_images, real_test.targets[:2000]):.1%}")
''',
    ),
    "11_training_dynamics": (
        "FashionMNIST",
        "about 30 MB",
        """
        A deep MLP on Fashion-MNIST, with and without `BatchNorm1d`, one pass over 10,000 images each: look at the
        two test accuracies the cell prints.
        """,
        '''
    import minitorch.optim as optim

    real_images = real_train.data[:10000].reshape(-1, 784).float() / 255
    real_targets = real_train.targets[:10000]
    real_test_images = real_test.data.reshape(-1, 784).float() / 255

    def deep_mlp(batch_norm):
        layers, width = [], 784
        for _ in range(6):
            layers += [nn.Linear(width, 64)] + ([nn.BatchNorm1d(64)] if batch_norm else []) + [nn.ReLU()]
            width = 64
        return nn.Sequential(*layers, nn.Linear(width, 10))

    for batch_norm in (False, True):
        minitorch.manual_seed(0)
        real_model = deep_mlp(batch_norm)
        real_optimizer = optim.SGD(real_model.parameters(), lr=0.05)
        real_model.train()
        for start in range(0, len(real_targets), 64):
            real_optimizer.zero_grad()
            nn.functional.cross_entropy(
                real_model(real_images[start:start + 64]), real_targets[start:start + 64]
            ).backward()
            real_optimizer.step()
        print(f"6 hidden layers, BatchNorm1d {'on ' if batch_norm else 'off'}: test accuracy "
              f"{real_accuracy(real_model, real_test_images, real_test.targets):.1%}")
''',
    ),
}


def cell_source(name: str) -> str | None:
    """The optional cell's code for chapter ``name`` (``04_networks``), or None when it has none."""
    if name not in SECTIONS:
        return None
    dataset, size, _, body = SECTIONS[name]
    loading = textwrap.dedent(_LOAD).format(flag=FLAG, dataset=dataset, size=size)
    return (loading + textwrap.indent(textwrap.dedent(_accuracy_helper() + body), "    ")).strip("\n")


def section(name: str, md, code) -> list:
    """The markdown and code cells of chapter ``name``'s optional section (``md``/``code`` from author)."""
    source = cell_source(name)
    if source is None:
        return []
    dataset, size, text, _ = SECTIONS[name]
    return [
        md(
            "## Optional: a real dataset\n\n"
            + textwrap.dedent(text).strip()
            + f"\n\nThis needs the internet: set `{FLAG} = True` in the cell below to download {dataset} ({size}) into "
            f"`~/minitorch-data` with `minitorch.vision.datasets.{dataset}(..., download=True)`. By default the cell "
            "downloads nothing and says so; offline, it says why and the notebook goes on."
        ),
        code(source),
    ]
