"""Datasets: real file formats served from a local HTTP server on 127.0.0.1 (nothing leaves the machine).

The fixtures are small files of the real formats (IDX for MNIST, the CIFAR-10 binary
tarball), generated here. The server can also serve a corrupted file (its checksum is
wrong) and drop the connection halfway through a file.
"""

from __future__ import annotations

import gzip
import hashlib
import http.server
import io
import os
import tarfile
import threading

import numpy as np
import pytest
from PIL import Image

import minitorch
from minitorch.vision import datasets, transforms
from minitorch.vision.datasets import utils as dataset_utils
from minitorch.vision.datasets.mnist import read_idx


# -- fixtures: files of the real formats ------------------------------------------------------------
def idx_bytes(array: np.ndarray) -> bytes:
    codes = {np.dtype(np.uint8): 0x08, np.dtype(np.int8): 0x09, np.dtype(np.int16): 0x0B,
             np.dtype(np.int32): 0x0C, np.dtype(np.float32): 0x0D, np.dtype(np.float64): 0x0E}
    header = bytes([0, 0, codes[array.dtype], array.ndim]) + np.asarray(array.shape, dtype=">i4").tobytes()
    return header + array.astype(array.dtype.newbyteorder(">")).tobytes()


def mnist_arrays(seed=0):
    rng = np.random.default_rng(seed)
    return {
        "train-images-idx3-ubyte": rng.integers(0, 256, size=(12, 28, 28), dtype=np.uint8),
        "train-labels-idx1-ubyte": rng.integers(0, 10, size=12, dtype=np.uint8),
        "t10k-images-idx3-ubyte": rng.integers(0, 256, size=(5, 28, 28), dtype=np.uint8),
        "t10k-labels-idx1-ubyte": rng.integers(0, 10, size=5, dtype=np.uint8),
    }


def md5(data: bytes) -> str:
    return hashlib.md5(data).hexdigest()


class Server:
    """A threaded HTTP server on 127.0.0.1 serving ``files`` (path -> bytes); ``drop`` paths stop halfway."""

    def __init__(self, files: dict[str, bytes], drop: set[str] = frozenset()):
        self.files, self.drop, self.requests = files, set(drop), []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                server.requests.append(self.path)
                body = server.files.get(self.path)
                if body is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.path in server.drop:
                    self.wfile.write(body[: len(body) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def point_mnist_at(monkeypatch, dataset_class, url: str, payloads: dict[str, bytes]):
    monkeypatch.setattr(dataset_class, "mirrors", [url])
    monkeypatch.setattr(dataset_class, "resources", [(name, md5(data)) for name, data in payloads.items()])


def gz_payloads(arrays):
    return {f"{name}.gz": gzip.compress(idx_bytes(array)) for name, array in arrays.items()}


def leftovers(folder) -> list[str]:
    """Temporary or partial files left anywhere under ``folder``."""
    found = []
    for path, _, names in os.walk(folder):
        found += [os.path.join(path, n) for n in names if n.endswith(".part") or n.startswith(".")]
    return found


# -- MNIST and Fashion-MNIST ------------------------------------------------------------------------
@pytest.mark.parametrize("dataset_class", [datasets.MNIST, datasets.FashionMNIST])
def test_download_verifies_unpacks_and_loads_idx_files(tmp_path, monkeypatch, dataset_class):
    arrays = mnist_arrays()
    payloads = gz_payloads(arrays)
    with Server({f"/{name}": data for name, data in payloads.items()}) as server:
        point_mnist_at(monkeypatch, dataset_class, server.url, payloads)
        train = dataset_class(tmp_path, train=True, download=True)
        test = dataset_class(tmp_path, train=False, download=True)  # files present: no second download
    assert len(server.requests) == 4
    assert len(train) == 12 and len(test) == 5
    np.testing.assert_array_equal(train.data.numpy(), arrays["train-images-idx3-ubyte"])
    assert train.targets.dtype == minitorch.int64
    np.testing.assert_array_equal(test.targets.numpy(), arrays["t10k-labels-idx1-ubyte"])
    image, label = train[3]
    assert isinstance(image, Image.Image) and image.mode == "L" and image.size == (28, 28)
    np.testing.assert_array_equal(np.asarray(image), arrays["train-images-idx3-ubyte"][3])
    assert label == int(arrays["train-labels-idx1-ubyte"][3]) and isinstance(label, int)
    assert os.path.isfile(tmp_path / dataset_class.__name__ / "raw" / "train-images-idx3-ubyte")
    assert leftovers(tmp_path) == []
    assert len(dataset_class.classes) == 10


def test_transform_and_target_transform_are_applied(tmp_path, monkeypatch):
    payloads = gz_payloads(mnist_arrays())
    with Server({f"/{name}": data for name, data in payloads.items()}) as server:
        point_mnist_at(monkeypatch, datasets.MNIST, server.url, payloads)
        dataset = datasets.MNIST(tmp_path, download=True, transform=transforms.ToTensor(),
                                 target_transform=lambda label: label + 100)
    image, label = dataset[0]
    assert image.shape == (1, 28, 28) and image.dtype == minitorch.float32
    assert label >= 100
    assert "Split: Train" in repr(dataset)
    with pytest.raises(ValueError, match="Only transforms or transform/target_transform can be passed"):
        datasets.VisionDataset(tmp_path, transform=transforms.ToTensor(), transforms=lambda x, y: (x, y))


def test_corrupt_download_is_rejected_and_nothing_is_left(tmp_path, monkeypatch):
    payloads = gz_payloads(mnist_arrays())
    served = {f"/{name}": data for name, data in payloads.items()}
    served["/t10k-images-idx3-ubyte.gz"] = b"\x1f\x8b" + b"garbage" * 10  # the checksum will not match
    with Server(served) as server:
        point_mnist_at(monkeypatch, datasets.MNIST, server.url, payloads)
        with pytest.raises(RuntimeError, match="t10k-images-idx3-ubyte.gz") as error:
            datasets.MNIST(tmp_path, download=True)
    message = str(error.value)
    assert "corrupt" in message and "expected md5" in message and "yourself" in message
    raw = tmp_path / "MNIST" / "raw"
    assert not (raw / "t10k-images-idx3-ubyte.gz").exists() and not (raw / "t10k-images-idx3-ubyte").exists()
    assert leftovers(tmp_path) == []


def test_dropped_connection_gives_a_clean_error_and_no_partial_file(tmp_path, monkeypatch):
    payloads = gz_payloads(mnist_arrays())
    served = {f"/{name}": data for name, data in payloads.items()}
    with Server(served, drop={"/train-labels-idx1-ubyte.gz"}) as server:
        point_mnist_at(monkeypatch, datasets.MNIST, server.url, payloads)
        with pytest.raises(RuntimeError, match="Downloading .*train-labels-idx1-ubyte.gz failed") as error:
            datasets.MNIST(tmp_path, download=True)
    assert str(tmp_path / "MNIST" / "raw" / "train-labels-idx1-ubyte") in str(error.value)  # where to put it
    assert not (tmp_path / "MNIST" / "raw" / "train-labels-idx1-ubyte.gz").exists()
    assert leftovers(tmp_path) == []


def test_download_falls_back_to_the_next_mirror(tmp_path, monkeypatch):
    payloads = gz_payloads(mnist_arrays())
    with Server({}) as empty, Server({f"/{name}": data for name, data in payloads.items()}) as good:
        monkeypatch.setattr(datasets.MNIST, "mirrors", [empty.url, good.url])
        monkeypatch.setattr(datasets.MNIST, "resources", [(name, md5(data)) for name, data in payloads.items()])
        assert len(datasets.MNIST(tmp_path, download=True)) == 12
    assert len(empty.requests) == 4


def test_missing_files_say_where_they_go(tmp_path):
    with pytest.raises(RuntimeError, match="Dataset not found: .* missing in .*MNIST.raw. You can use download=True"):
        datasets.MNIST(tmp_path)


def write_raw_mnist(folder, arrays):
    raw = folder / "MNIST" / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    for name, array in arrays.items():
        (raw / name).write_bytes(idx_bytes(array))
    return raw


def test_truncated_or_corrupt_idx_files_are_named(tmp_path):
    raw = write_raw_mnist(tmp_path, mnist_arrays())
    path = raw / "train-images-idx3-ubyte"
    content = path.read_bytes()
    path.write_bytes(content[:-100])
    with pytest.raises(RuntimeError, match=r"train-images-idx3-ubyte is truncated: its header announces shape "
                                           r"\(12, 28, 28\)"):
        datasets.MNIST(tmp_path)
    path.write_bytes(b"\x08\x00" + content[2:])
    with pytest.raises(RuntimeError, match="train-images-idx3-ubyte is not an IDX file"):
        datasets.MNIST(tmp_path)
    path.write_bytes(content)
    labels = raw / "train-labels-idx1-ubyte"
    labels.write_bytes(idx_bytes(np.zeros(7, np.uint8)))
    with pytest.raises(RuntimeError, match="train-labels-idx1-ubyte should hold one label per image"):
        datasets.MNIST(tmp_path)


def test_read_idx_reads_every_type_big_endian(tmp_path):
    for array in (np.arange(6, dtype=np.int32).reshape(2, 3) - 3, np.linspace(0, 1, 4).astype(np.float32),
                  np.arange(5, dtype=np.int16) * 300, np.array([1.5, -2.25])):
        path = tmp_path / "x.idx"
        path.write_bytes(idx_bytes(array))
        result = read_idx(path)
        assert result.dtype == array.dtype and result.flags.writeable
        np.testing.assert_array_equal(result, array)


# -- CIFAR-10 ---------------------------------------------------------------------------------------
def cifar_tarball(records_per_file=4, seed=0, truncate=None):
    """A cifar-10-binary.tar.gz with the real layout; returns (bytes, {file: (images HWC, labels)})."""
    rng = np.random.default_rng(seed)
    buffer, contents = io.BytesIO(), {}
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        def add(name, data):
            info = tarfile.TarInfo(f"cifar-10-batches-bin/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))

        for name in [f"data_batch_{i}.bin" for i in range(1, 6)] + ["test_batch.bin"]:
            labels = rng.integers(0, 10, size=records_per_file, dtype=np.uint8)
            planes = rng.integers(0, 256, size=(records_per_file, 3, 32, 32), dtype=np.uint8)
            data = np.concatenate([labels[:, None], planes.reshape(records_per_file, -1)], axis=1).tobytes()
            if name == truncate:
                data = data[:-10]
            add(name, data)
            contents[name] = (planes.transpose(0, 2, 3, 1), labels)
        names = "airplane automobile bird cat deer dog frog horse ship truck".split()
        add("batches.meta.txt", ("\n".join(names) + "\n\n").encode())
    return buffer.getvalue(), contents


def test_cifar10_downloads_the_binary_version_and_reads_records(tmp_path, monkeypatch):
    archive, contents = cifar_tarball()
    with Server({"/cifar-10-binary.tar.gz": archive}) as server:
        monkeypatch.setattr(datasets.CIFAR10, "url", server.url + "cifar-10-binary.tar.gz")
        monkeypatch.setattr(datasets.CIFAR10, "tgz_md5", md5(archive))
        train = datasets.CIFAR10(tmp_path, train=True, download=True)
        test = datasets.CIFAR10(tmp_path, train=False, download=True)
    assert len(server.requests) == 1 and len(train) == 20 and len(test) == 4
    np.testing.assert_array_equal(train.data[4:8], contents["data_batch_2.bin"][0])
    assert train.targets[4:8] == contents["data_batch_2.bin"][1].tolist()
    image, label = test[2]
    assert image.mode == "RGB" and image.size == (32, 32)
    # The first 1024 bytes of a record are the red plane: pixel (row 1, column 2) is red byte 34.
    np.testing.assert_array_equal(np.asarray(image), contents["test_batch.bin"][0][2])
    assert test.classes[0] == "airplane" and test.class_to_idx["truck"] == 9
    assert leftovers(tmp_path) == []


def test_cifar10_rejects_truncated_batches_and_bad_archives(tmp_path, monkeypatch):
    archive, _ = cifar_tarball(truncate="data_batch_3.bin")
    with Server({"/cifar-10-binary.tar.gz": archive, "/bad.tar.gz": b"not a tarball"}) as server:
        monkeypatch.setattr(datasets.CIFAR10, "url", server.url + "cifar-10-binary.tar.gz")
        monkeypatch.setattr(datasets.CIFAR10, "tgz_md5", md5(archive))
        with pytest.raises(RuntimeError, match="data_batch_3.bin is corrupt or truncated"):
            datasets.CIFAR10(tmp_path, download=True)
        monkeypatch.setattr(datasets.CIFAR10, "url", server.url + "bad.tar.gz")
        monkeypatch.setattr(datasets.CIFAR10, "tgz_md5", md5(b"not a tarball"))
        with pytest.raises(RuntimeError, match=r"other.cifar-10-binary.tar.gz is not a valid tar archive"):
            datasets.CIFAR10(tmp_path / "other", download=True)
    assert leftovers(tmp_path) == []
    with pytest.raises(RuntimeError, match="Dataset not found or corrupted: .* download=True"):
        datasets.CIFAR10(tmp_path / "empty")


def test_archive_members_cannot_escape_the_target_folder(tmp_path):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        info = tarfile.TarInfo("../escaped.txt")
        info.size = 2
        archive.addfile(info, io.BytesIO(b"hi"))
    path = tmp_path / "evil.tar.gz"
    path.write_bytes(buffer.getvalue())
    with pytest.raises(RuntimeError, match="evil.tar.gz is not a valid tar archive"):
        dataset_utils.extract_archive(str(path), str(tmp_path / "out"))
    assert not (tmp_path / "escaped.txt").exists()
    assert os.listdir(tmp_path / "out") == []


# -- ImageFolder, FakeData, Digits -------------------------------------------------------------------
def make_folder(root, classes=("cat", "dog"), per_class=3):
    rng = np.random.default_rng(0)
    for name in classes:
        (root / name).mkdir(parents=True)
        for index in range(per_class):
            pixels = rng.integers(0, 256, size=(5, 6, 3), dtype=np.uint8)
            Image.fromarray(pixels).save(root / name / f"{index}.png")
        (root / name / "notes.txt").write_text("not an image")


def test_image_folder_finds_classes_and_images(tmp_path):
    make_folder(tmp_path)
    dataset = datasets.ImageFolder(tmp_path, transform=transforms.PILToTensor())
    assert dataset.classes == ["cat", "dog"] and dataset.class_to_idx == {"cat": 0, "dog": 1}
    assert len(dataset) == 6 and dataset.targets == [0, 0, 0, 1, 1, 1]
    image, label = dataset[4]
    assert label == 1 and image.shape == (3, 5, 6)
    np.testing.assert_array_equal(image.numpy().transpose(1, 2, 0), np.asarray(Image.open(tmp_path / "dog" / "1.png")))


def test_image_folder_errors_name_the_folder_or_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="Couldn't find any class folder in"):
        datasets.ImageFolder(tmp_path)
    make_folder(tmp_path)
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="Found no valid file for the classes empty. Supported extensions"):
        datasets.ImageFolder(tmp_path)
    assert len(datasets.ImageFolder(tmp_path, allow_empty=True)) == 6
    (tmp_path / "cat" / "0.png").write_bytes(b"\x89PNG broken")
    dataset = datasets.ImageFolder(tmp_path, allow_empty=True)
    with pytest.raises(OSError, match=r"cannot read image file .*cat.0\.png"):
        dataset[0]


def test_fake_data_is_deterministic_per_index_and_leaves_the_global_generator_alone():
    dataset = datasets.FakeData(size=5, image_size=(3, 8, 10), num_classes=4, transform=transforms.ToTensor())
    minitorch.manual_seed(0)
    first = dataset[2]
    after = minitorch.rand(1).item()
    minitorch.manual_seed(0)
    second = dataset[2]
    assert minitorch.rand(1).item() == after
    np.testing.assert_array_equal(first[0].numpy(), second[0].numpy())
    assert first[0].shape == (3, 8, 10) and 0 <= first[1] < 4
    assert not np.array_equal(dataset[3][0].numpy(), first[0].numpy())
    with pytest.raises(IndexError, match="FakeData index out of range"):
        dataset[5]


def test_digits_split_sizes_and_values():
    import sklearn.datasets as sklearn_datasets  # a dependency of the kit (the Digits data set)

    train, test = datasets.Digits(train=True), datasets.Digits(train=False)
    assert len(train) == 1437 and len(test) == 360
    assert train.data.dtype == minitorch.uint8 and train.data.shape == (1437, 8, 8)
    # Stratified: every digit is in the test split in proportion (about 36 each).
    assert np.bincount(test.targets.numpy()).min() >= 35
    # The images are sklearn's, scaled 0..16 -> 0..255.
    bunch = sklearn_datasets.load_digits()
    all_images = np.concatenate([train.data.numpy(), test.data.numpy()]).reshape(len(bunch.images), -1)
    expected = np.rint(bunch.images * 255 / 16).astype(np.uint8).reshape(len(bunch.images), -1)
    assert sorted(map(bytes, all_images)) == sorted(map(bytes, expected))
    image, label = train[0]
    assert image.mode == "L" and image.size == (8, 8) and isinstance(label, int)


def test_digits_enlarged_by_resizing_or_padding():
    small = datasets.Digits(train=False)
    padded = datasets.Digits(train=False, image_size=28, enlarge="pad")
    np.testing.assert_array_equal(padded.data.numpy()[:, 10:18, 10:18], small.data.numpy())
    assert padded.data.numpy()[:, :10].max() == 0
    resized = datasets.Digits(train=False, image_size=16)
    expected = np.stack([
        np.asarray(Image.fromarray(image.astype(np.float32), mode="F").resize((16, 16), Image.Resampling.BILINEAR))
        for image in small.data.numpy()
    ])
    assert np.abs(resized.data.numpy() - np.clip(np.rint(expected), 0, 255)).max() <= 1
    assert datasets.Digits(image_size=28)[0][0].size == (28, 28)
    with pytest.raises(ValueError, match="image_size should be 8, 16 or 28"):
        datasets.Digits(image_size=32)
    with pytest.raises(ValueError, match="Unknown value 'stretch' for argument enlarge"):
        datasets.Digits(enlarge="stretch")


def test_digits_feed_a_data_loader():
    import minitorch.utils.data as loader_module

    dataset = datasets.Digits(train=False, transform=transforms.Compose([
        transforms.ToTensor(), transforms.Normalize([0.5], [0.5])]))
    images, labels = next(iter(loader_module.DataLoader(dataset, batch_size=16)))
    assert images.shape == (16, 1, 8, 8) and labels.shape == (16,)
