"""One control group per sandbox: memory, processes and CPU counted by the kernel, not by polling.

Per-process limits (``RLIMIT_AS``, ``RLIMIT_NPROC``) and a supervisor that sums resident memory miss
what a submission can hold outside its processes: pages in memfds or in a tmpfs, processes in a new
namespace, CPU spread over 31 spinning processes. A control group counts all of it: every page the
sandbox's processes touch (tmpfs and memfd pages included), every process they start, and their CPU
time. Each sandbox gets a group of its own, created by the grader before the sandbox starts and
removed after it ends:

* memory: ``memory.max`` (v2) or ``memory.limit_in_bytes`` (v1), swap off; over it the kernel's OOM
  killer stops a process of the group, and ``memory.events`` / ``memory.oom_control`` tell the
  supervisor it happened;
* processes: ``pids.max``;
* CPU: ``cpu.max`` (v2) or ``cpu.cfs_quota_us`` (v1): each of ``--jobs N`` sandboxes gets at most its
  share of the cores, so 31 spinners slow down only their own submission.

Two layouts are understood. cgroup v2 (one hierarchy at ``/sys/fs/cgroup``, most current
distributions) needs the grader's own group to be delegated to it, e.g. started with ``systemd-run
--user --scope -p Delegate=yes minitorch-grade ...``, or a container given a writable cgroup
namespace; the grader then moves itself into a leaf ``supervisor`` group so that it may enable the
controllers for its sandboxes' groups. cgroup v1 (one hierarchy per controller, ``/sys/fs/cgroup/
{memory,pids,cpu}``) needs those folders writable, as they are for root on many CI machines.
:func:`detect` says which one is in force, or why neither is.
"""

from __future__ import annotations

import errno
import os
import signal
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

CONTROLLERS = ("memory", "pids", "cpu")
PREFIX = "minitorch-grade"


@dataclass
class Support:
    """What this machine allows: ``version`` is "v2", "v1" or None (then ``reason`` says why)."""

    version: str | None
    bases: dict[str, Path] = field(default_factory=dict)  # controller -> the folder our groups go in
    reason: str = ""

    def describe(self) -> str:
        if self.version is None:
            return f"no cgroups ({self.reason})"
        where = sorted({str(path) for path in self.bases.values()})
        return f"cgroup {self.version} ({', '.join(CONTROLLERS)}) under {', '.join(where)}"

    def create(self, memory_bytes: int, processes: int, cpus: float) -> Group | None:
        """A new group with these limits, or None when cgroups are not in force."""
        if self.version is None:
            return None
        name = f"{PREFIX}-{os.getpid()}-{uuid.uuid4().hex[:10]}"
        folders = sorted({base / name for base in self.bases.values()})
        for folder in folders:
            folder.mkdir(mode=0o755)
        group = Group(self.version, folders, {controller: base / name for controller, base in self.bases.items()})
        try:
            group.set_limits(memory_bytes, processes, cpus)
        except OSError:
            group.remove()
            raise
        return group


@dataclass
class Group:
    version: str
    folders: list[Path]  # one per hierarchy (v2: one)
    by_controller: dict[str, Path]

    def _write(self, controller: str, name: str, value: str, required: bool = True) -> None:
        path = self.by_controller[controller] / name
        if not required and not path.exists():
            return
        path.write_text(value)

    def set_limits(self, memory_bytes: int, processes: int, cpus: float) -> None:
        period = 100_000
        quota = max(1000, int(period * cpus))
        if self.version == "v2":
            self._write("memory", "memory.max", str(memory_bytes))
            self._write("memory", "memory.swap.max", "0", required=False)
            self._write("pids", "pids.max", str(processes))
            self._write("cpu", "cpu.max", f"{quota} {period}")
        else:
            self._write("memory", "memory.limit_in_bytes", str(memory_bytes))
            self._write("memory", "memory.memsw.limit_in_bytes", str(memory_bytes), required=False)
            self._write("memory", "memory.swappiness", "0", required=False)
            self._write("pids", "pids.max", str(processes))
            self._write("cpu", "cpu.cfs_period_us", str(period))
            self._write("cpu", "cpu.cfs_quota_us", str(quota))

    @property
    def procs_files(self) -> list[str]:
        """The files the sandbox's first process writes its pid to, before it starts anything else."""
        return [str(folder / "cgroup.procs") for folder in self.folders]

    def _read_int(self, controller: str, name: str, key: str | None = None) -> int:
        try:
            text = (self.by_controller[controller] / name).read_text()
        except OSError:
            return 0
        if key is None:
            return int(text.split()[0]) if text.split() else 0
        for line in text.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == key:
                return int(parts[1])
        return 0

    def memory_peak(self) -> int:
        if self.version == "v2":
            return self._read_int("memory", "memory.peak") or self._read_int("memory", "memory.current")
        return self._read_int("memory", "memory.max_usage_in_bytes")

    def memory_now(self) -> int:
        if self.version == "v2":
            return self._read_int("memory", "memory.current")
        return self._read_int("memory", "memory.usage_in_bytes")

    def oom_kills(self) -> int:
        """How many processes the kernel killed for going over the memory limit."""
        if self.version == "v2":
            return self._read_int("memory", "memory.events", "oom_kill")
        return self._read_int("memory", "memory.oom_control", "oom_kill")

    def process_ids(self) -> list[int]:
        pids: set[int] = set()
        for folder in self.folders:
            try:
                pids.update(int(line) for line in (folder / "cgroup.procs").read_text().split())
            except (OSError, ValueError):
                continue
        return sorted(pids)

    def kill_all(self, wait_seconds: float = 2.0) -> None:
        """SIGKILL every process of the group, again until none is left (forks race the first pass)."""
        if self.version == "v2" and (self.folders[0] / "cgroup.kill").exists():
            try:
                (self.folders[0] / "cgroup.kill").write_text("1")
            except OSError:
                pass
        stop = time.monotonic() + wait_seconds
        while True:
            pids = self.process_ids()
            if not pids or time.monotonic() > stop:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.01)

    def remove(self) -> None:
        self.kill_all()
        for folder in self.folders:
            for _ in range(200):  # a killed process leaves its group a moment after SIGKILL
                try:
                    folder.rmdir()
                    break
                except OSError as error:
                    if error.errno != errno.EBUSY:
                        break
                    time.sleep(0.01)


# -- finding out what this machine allows ---------------------------------------------------------
def _own_groups(proc_cgroup: Path) -> dict[str, str]:
    """controller name (or "" for the v2 hierarchy) -> this process's group path, from /proc/self/cgroup."""
    groups: dict[str, str] = {}
    try:
        lines = proc_cgroup.read_text().splitlines()
    except OSError:
        return groups
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        for controller in parts[1].split(",") if parts[1] else [""]:
            groups[controller] = parts[2]
    return groups


def _writable_folder(folder: Path) -> bool:
    probe = folder / f"{PREFIX}-probe-{os.getpid()}-{uuid.uuid4().hex[:6]}"
    try:
        probe.mkdir()
    except OSError:
        return False
    try:
        probe.rmdir()
    except OSError:
        pass
    return True


def detect(root: Path = Path("/sys/fs/cgroup"), proc_cgroup: Path = Path("/proc/self/cgroup")) -> Support:
    """Which cgroup layout the grader can use for its sandboxes (v2 first, then v1), or why none."""
    own = _own_groups(proc_cgroup)
    if (root / "cgroup.controllers").exists():
        return _detect_v2(root, own)
    if all((root / controller).is_dir() for controller in CONTROLLERS):
        return _detect_v1(root, own)
    return Support(None, reason=f"neither cgroup v2 nor the v1 controllers {', '.join(CONTROLLERS)} at {root}")


def _detect_v1(root: Path, own: dict[str, str]) -> Support:
    bases = {}
    for controller in CONTROLLERS:
        base = root / controller / own.get(controller, "/").lstrip("/")
        if not base.is_dir():
            base = root / controller
        if not _writable_folder(base):
            return Support(None, reason=f"cgroup v1 {controller} folder {base} is not writable (run as root)")
        bases[controller] = base
    _remove_stale(set(bases.values()))
    return Support("v1", bases)


def _detect_v2(root: Path, own: dict[str, str]) -> Support:
    base = root / own.get("", "/").lstrip("/")
    try:
        available = set((base / "cgroup.controllers").read_text().split())
    except OSError:
        return Support(None, reason=f"cannot read {base / 'cgroup.controllers'}")
    missing = [controller for controller in CONTROLLERS if controller not in available]
    if missing:
        return Support(
            None,
            reason=f"cgroup v2 controllers {', '.join(missing)} are not delegated to {base} "
            "(start the grader with systemd-run --user --scope -p Delegate=yes)",
        )
    if not _writable_folder(base):
        return Support(None, reason=f"cgroup v2 group {base} is not writable (not delegated to this user)")
    enabled = set((base / "cgroup.subtree_control").read_text().split())
    if not set(CONTROLLERS) <= enabled:
        # "No internal processes": a group whose children have controllers holds no process itself,
        # so the grader first moves itself (all its threads) into a leaf group of its own.
        supervisor = base / f"{PREFIX}-supervisor-{os.getpid()}"
        try:
            supervisor.mkdir(exist_ok=True)
            (supervisor / "cgroup.procs").write_text(str(os.getpid()))
            (base / "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in CONTROLLERS))
        except OSError as error:
            return Support(None, reason=f"cannot enable {', '.join(CONTROLLERS)} for groups under {base}: {error}")
    _remove_stale({base})
    return Support("v2", {controller: base for controller in CONTROLLERS})


def _remove_stale(bases: set[Path]) -> None:
    """Groups left by a grader that was killed: empty ones of a process that no longer exists."""
    for base in bases:
        try:
            entries = list(os.scandir(base))
        except OSError:
            continue
        for entry in entries:
            parts = entry.name.split("-")
            if not entry.name.startswith(PREFIX + "-") or len(parts) < 4 or not parts[2].isdigit():
                continue
            if parts[2] == str(os.getpid()) or os.path.exists(f"/proc/{parts[2]}"):
                continue
            try:
                os.rmdir(entry.path)
            except OSError:
                pass


NOT_BOUNDED_WITHOUT_CGROUPS = (
    "memory held outside processes (memfds, files in /dev/shm and /tmp beyond their tmpfs sizes) is not "
    "counted, only the resident memory the supervisor sees; the CPU is shared per process, so a "
    "submission with many busy processes slows its neighbours; processes are bounded per uid by "
    "RLIMIT_NPROC only"
)
