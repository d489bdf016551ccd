"""The parts of minitorch.distributed that one process can check: names, errors, the launcher's command,
the end-of-backward callback DDP relies on, and what happens without MPI's launcher or without CuPy.

(Everything that needs several processes is in test_collectives.py, test_ddp.py and test_faults.py.)
"""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta

import pytest

import minitorch
import minitorch.distributed as dist
from minitorch import nn
from minitorch.autograd.engine import queue_callback
from minitorch.distributed import run as launcher
from tests.distributed.launch import ROOT, _environment, mpiexec_path
from tests.support import require_torch


def test_reduce_ops_have_pytorchs_names_and_numbers():
    torch = require_torch()
    for name, member in torch.distributed.ReduceOp.RedOpType.__members__.items():
        if name != "PREMUL_SUM":  # a scaling op NCCL has; not in minitorch
            assert int(getattr(dist.ReduceOp, name)) == int(member)
    assert repr(dist.ReduceOp.SUM) == repr(torch.distributed.ReduceOp.SUM)


def test_is_available_says_whether_mpi4py_is_installed():
    mpiexec_path()  # skips without mpi4py (fails under MINITORCH_CI=1)
    assert dist.is_available() and dist.is_mpi_available()


def test_without_init_the_errors_are_pytorchs():
    assert not dist.is_initialized()
    for call in (dist.get_rank, dist.get_world_size, lambda: dist.all_reduce(minitorch.ones(2)), dist.barrier):
        with pytest.raises(ValueError, match="Default process group has not been initialized, please make sure to "
                                             "call init_process_group."):
            call()
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        nn.parallel.DistributedDataParallel(nn.Linear(2, 2))


def test_init_arguments_are_checked_before_anything_starts():
    with pytest.raises(ValueError, match="Invalid backend: 'gloo'.*'gloo' corresponds to 'mpi'"):
        dist.init_process_group("gloo")
    with pytest.raises(TypeError, match="Expected timeout argument to be of type datetime.timedelta"):
        dist.init_process_group("mpi", timeout=30)
    assert not dist.is_initialized()


def test_nccl_without_cupy_says_what_is_missing():
    try:
        import cupy  # noqa: F401

        pytest.skip("CuPy is installed here: the missing-CuPy error cannot be shown")
    except ImportError:
        pass
    assert not dist.is_nccl_available()
    with pytest.raises(RuntimeError, match="backend='nccl' needs CuPy built with NCCL.*On CPUs use backend='mpi'"):
        dist.init_process_group("nccl", rank=0, world_size=1, timeout=timedelta(seconds=5))
    assert not dist.is_initialized()


def test_a_script_started_without_the_launcher_is_told_how_to_start():
    mpiexec_path()  # MPI must be installed
    code = ("import minitorch.distributed as dist\n"
            "dist.init_process_group('mpi', world_size=2)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                            env=_environment(), cwd=ROOT)
    assert result.returncode != 0
    assert ("init_process_group(world_size=2) but MPI started 1 process(es): start the script with python -m "
            "minitorch.distributed.run --nproc-per-node 2 script.py") in result.stderr


def test_the_launcher_takes_mpiexec_from_beside_python_never_from_path(tmp_path, monkeypatch):
    mpiexec = mpiexec_path()
    assert launcher.find_mpiexec() == mpiexec
    monkeypatch.setattr(sys, "executable", str(tmp_path / "bin" / "python"))
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    monkeypatch.setenv("PATH", str(ROOT / ".venv" / "bin"))  # even with an mpiexec on PATH
    with pytest.raises(FileNotFoundError, match="mpiexec was not found beside .*pip install mpi4py mpich"):
        launcher.find_mpiexec()


def test_the_launcher_command_for_several_machines():
    mpiexec_path()
    arguments = launcher._parse(["--hosts", "node1,node2", "--nproc-per-node", "4", "train.py", "--epochs", "3"])
    command = launcher.command_for(arguments, "/run")
    assert command[:7] == [launcher.find_mpiexec(), "-n", "8", "-hosts", "node1,node2", "-ppn", "4"]
    assert command[7:] == [sys.executable, str(ROOT / "minitorch/distributed/_rank_wrapper.py"), "/run", "train.py",
                           "--epochs", "3"]


def test_queue_callback_runs_once_backward_has_finished():
    weight = minitorch.randn(3, requires_grad=True)
    bias = minitorch.randn(3, requires_grad=True)
    seen = []

    def at_the_end():
        seen.append(("callback", weight.grad is not None, bias.grad is not None))

    def hook(parameter):
        seen.append(("hook", parameter is weight))
        if len(seen) == 1:
            queue_callback(at_the_end)

    weight.register_post_accumulate_grad_hook(hook)
    bias.register_post_accumulate_grad_hook(hook)
    ((weight * 2) + bias).sum().backward()
    assert [event[0] for event in seen] == ["hook", "hook", "callback"]
    assert seen[-1] == ("callback", True, True)


def test_queue_callback_outside_backward_is_refused():
    with pytest.raises(RuntimeError, match="Final callbacks can only be installed during backward pass."):
        queue_callback(lambda: None)
