"""The corpus shim: under ``tests/corpus/shim`` on PYTHONPATH, PyTorch's import names give minitorch's modules."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent

PROGRAM = textwrap.dedent("""
    import torch, torch.nn as nn, torch.nn.functional as F, torch.optim, torch.utils.data
    import torchvision, torchvision.transforms
    from torch.utils.data import DataLoader
    import minitorch
    assert torch is minitorch and nn is minitorch.nn and F is minitorch.nn.functional
    assert torch.optim is minitorch.optim and DataLoader is minitorch.utils.data.DataLoader
    assert torchvision is minitorch.vision and torchvision.transforms is minitorch.vision.transforms
    import functorch
    assert functorch is minitorch.func and functorch.jvp is torch.func.jvp
    assert minitorch.__spec__.name == "minitorch" and F.__spec__.name == "minitorch.nn.functional"
    assert isinstance(torch.ones(2), minitorch.Tensor)
    try:
        import torch.no_such_module
    except ModuleNotFoundError as error:
        print(error)
""")


def test_pytorch_names_import_minitorch_modules():
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE / "shim"), str(HERE.parent.parent)]))
    result = subprocess.run([sys.executable, "-c", PROGRAM], env=environment, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "No module named 'minitorch.no_such_module'"
