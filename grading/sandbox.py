"""Running one submission's code in a sandbox, under limits, and watching it from outside.

Backends:

* ``bwrap`` (bubblewrap, the default on Linux): new PID, network, IPC and UTS namespaces, so the code
  sees no network at all (not even 127.0.0.1 of the host) and no other process; a root filesystem
  built from read-only binds of the system (``/usr``), Python and its site-packages, and the
  ``minitorch`` and ``grading`` packages; a private ``/tmp`` and home on small tmpfs; the task folder
  (plan and inputs) read-only and one output folder writable. Nothing else of the host is there:
  not the source notebook, the reference answers, the gradebook, other students' submissions, nor
  the grader's environment variables or ``/proc`` entries.
* ``docker``: the same runner in a container (``--network none``, read-only root, memory and PID
  limits, an unprivileged user, no capabilities). Used only when asked (``--sandbox docker``).
* ``none``: no isolation at all, only when asked explicitly (``--no-sandbox``); see ``NO_SANDBOX_RISKS``.

Limits, and who enforces them:

* memory: ``RLIMIT_AS`` per process (set by the runner before the submission runs), and the
  supervisor here sums the resident memory of every process in the sandbox and kills it above the
  same budget (so 32 processes cannot use 32 times the limit);
* processes: ``RLIMIT_NPROC``. The kernel does not apply it to root, so when the grader runs as root
  (CI, containers) the runner switches to an unprivileged uid of its own, distinct per parallel job,
  before the submission's code runs; under an unprivileged user bubblewrap's user namespace makes the
  count per sandbox. A fork bomb stops at the limit;
* time: a limit per step (a cell, or one call of a graded function), raised inside as an exception,
  and enforced from outside when the code ignores it; and a wall-clock limit per submission;
* output: the stored stdout and stderr are capped (``output_bytes``), the rest is read and dropped, so a
  100 MB line costs the grader no memory; files are capped by ``RLIMIT_FSIZE``, the output folder's
  total size by the supervisor, and ``/tmp`` by the size of its tmpfs.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import site
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

NO_SANDBOX_RISKS = (
    "--no-sandbox runs every submission as YOUR user, with no isolation: its code can read and change "
    "every file you can (the hidden tests, the reference answers, the gradebook, other students' work, "
    "your SSH keys), reach the network, leave processes running, and a fork bomb or a memory hog can "
    "bring this machine down. Only use it for notebooks you trust."
)

SANDBOX_LIB = "/sandbox/lib"
SANDBOX_TASK = "/sandbox/task"
SANDBOX_OUT = "/sandbox/out"
SANDBOX_HOME = "/home/student"


class SandboxUnavailable(RuntimeError):
    """The requested sandbox cannot run here; the message says what to install or pass."""


@dataclass(frozen=True)
class Limits:
    step_seconds: float = 30.0  # one cell, or one call of a graded function
    submission_seconds: float = 120.0  # everything for one submission, restarts included
    memory_bytes: int = 2 * 1024**3
    processes: int = 32
    output_bytes: int = 64 * 1024  # stdout + stderr kept for the instructor's log
    file_bytes: int = 64 * 1024**2  # the largest file the code may write
    disk_bytes: int = 256 * 1024**2  # the output folder in total
    tmp_bytes: int = 64 * 1024**2  # each of /tmp and the home folder (memory-backed)

    def for_runner(self) -> dict:
        return {
            "step_seconds": self.step_seconds,
            "memory_bytes": self.memory_bytes,
            "processes": self.processes,
            "file_bytes": self.file_bytes,
            "cpu_seconds": int(self.submission_seconds) + 10,
        }


@dataclass
class RunOutcome:
    """What happened to one launch of the runner."""

    returncode: int | None
    killed: str | None  # why the supervisor killed it: "timeout", "memory", "disk", "deadline"; else None
    events: list[dict]
    output: bytes  # the first Limits.output_bytes of stdout and stderr
    output_total: int  # how many bytes it wrote in all
    seconds: float
    peak_memory_bytes: int = 0


def package_dir(module_name: str) -> Path:
    module = __import__(module_name)
    return Path(module.__file__).resolve().parent


# The kit's own packages, importable inside the sandbox: chapters import minitorch, the checks and the
# widgets. Only these folders are bound, never the project folder around them (tests, notebooks).
KIT_PACKAGES = ("minitorch", "grading", "widgets")


def kit_packages() -> list[tuple[str, Path]]:
    """(name, folder) of each kit package installed here; minitorch and grading always are."""
    found = []
    for name in KIT_PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            found.append((name, Path(next(iter(spec.submodule_search_locations))).resolve()))
    return found


@dataclass
class Backend:
    """How to start the runner; subclasses add isolation."""

    name: str = "none"
    own_pid_namespace: bool = False
    lib_dir: str = ""  # where minitorch and grading are importable, as the runner sees it
    switch_user: bool = False  # the runner drops to an unprivileged uid (root only)

    def command(self, task_dir: Path, out_dir: Path, limits: Limits, job_name: str) -> list[str]:
        runner = package_dir("grading") / "_runner.py"
        return [sys.executable, "-s", "-B", str(runner), str(task_dir), str(out_dir)]

    def environment(self) -> dict[str, str]:
        return dict(SANDBOX_ENVIRONMENT, HOME=str(Path.home()), PATH="/usr/bin:/bin")

    def cleanup(self, job_name: str) -> None:
        pass

    def watch_memory(self) -> bool:
        return True

    def output_owner(self) -> int | None:
        """The uid that must own the output folder, when it is not the grader's own."""
        return None


SANDBOX_ENVIRONMENT = {
    "PATH": "/usr/bin:/bin",
    "HOME": SANDBOX_HOME,
    "TMPDIR": "/tmp",
    "LANG": "C.UTF-8",
    "PYTHONHASHSEED": "0",
    "PYTHONIOENCODING": "utf-8",
    "PYTHONDONTWRITEBYTECODE": "1",
    "OPENBLAS_NUM_THREADS": "1",  # one thread: fair to parallel jobs, and the same numbers every run
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "MPLBACKEND": "Agg",
}


class NoSandbox(Backend):
    def __init__(self):
        super().__init__(name="none", own_pid_namespace=False, lib_dir=str(package_dir("grading").parent))


class Bubblewrap(Backend):
    def __init__(self, executable: str | None = None):
        found = executable or shutil.which("bwrap")
        if not found:
            raise SandboxUnavailable(
                "bubblewrap is not installed (Debian/Ubuntu: apt-get install -y bubblewrap; "
                "Fedora: dnf install bubblewrap); or pass --sandbox docker, or --no-sandbox"
            )
        super().__init__(name="bwrap", own_pid_namespace=True, lib_dir=SANDBOX_LIB, switch_user=os.getuid() == 0)
        self.executable = found

    def environment(self) -> dict[str, str]:
        return dict(SANDBOX_ENVIRONMENT)

    def command(self, task_dir: Path, out_dir: Path, limits: Limits, job_name: str) -> list[str]:
        arguments = [
            self.executable,
            "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--die-with-parent", "--new-session", "--clearenv",
            "--hostname", "sandbox",
        ]  # fmt: skip
        if os.getuid() == 0:
            # As root, bwrap makes no user namespace; the runner needs exactly two capabilities to
            # switch to its unprivileged uid, and the switch clears them.
            arguments += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        else:
            arguments += ["--unshare-user", "--disable-userns"]
        for name, value in SANDBOX_ENVIRONMENT.items():
            arguments += ["--setenv", name, value]
        # The tmpfs folders come first: a later one would hide a Python that lives under /tmp.
        mounts = system_binds() + [
            "--dev", "/dev",
            "--proc", "/proc",
            "--perms", "1777", "--size", str(limits.tmp_bytes), "--tmpfs", "/tmp",
            "--perms", "0777", "--size", str(limits.tmp_bytes), "--tmpfs", SANDBOX_HOME,
        ]  # fmt: skip
        for path in python_paths():
            mounts += ["--ro-bind", path, path]
        for name, folder in kit_packages():
            mounts += ["--ro-bind", str(folder), f"{SANDBOX_LIB}/{name}"]
        mounts += [
            "--ro-bind", str(task_dir), SANDBOX_TASK,
            "--bind", str(out_dir), SANDBOX_OUT,
        ]  # fmt: skip
        arguments += _with_parent_folders(mounts)
        arguments += ["--chdir", SANDBOX_HOME, "--"]
        arguments += [sys.executable, "-s", "-B", f"{SANDBOX_LIB}/grading/_runner.py", SANDBOX_TASK, SANDBOX_OUT]
        return arguments


_TWO_ARGUMENT_MOUNTS = {"--ro-bind", "--ro-bind-try", "--bind", "--symlink"}
_ONE_ARGUMENT_MOUNTS = {"--dev", "--proc", "--tmpfs"}


def _with_parent_folders(mounts: list[str]) -> list[str]:
    """``mounts`` with ``--perms 0755 --dir`` before each mount for its missing parent folders: bwrap
    would otherwise create them with mode 0700, which the unprivileged uid could not walk through
    (say the home folder above a pyenv-installed Python). A parent inside an earlier bind already
    exists and is left alone."""
    result, pending, created, bound, position = [], [], set(), [], 0
    while position < len(mounts):
        option = mounts[position]
        if option in ("--perms", "--size"):  # they apply to the next mount: keep them next to it
            pending += mounts[position : position + 2]
            position += 2
            continue
        width = 3 if option in _TWO_ARGUMENT_MOUNTS else 2 if option in _ONE_ARGUMENT_MOUNTS else 1
        if width > 1:
            destination = mounts[position + width - 1]
            for parent in reversed(Path(destination).parents):
                text = str(parent)
                inside_bind = any(text == path or text.startswith(path + "/") for path in bound)
                if text != "/" and text not in created and not inside_bind:
                    result += ["--perms", "0755", "--dir", text]
                    created.add(text)
            if option in ("--ro-bind", "--ro-bind-try", "--bind"):
                bound.append(destination)
            created.add(destination)
        result += pending + mounts[position : position + width]
        pending = []
        position += width
    return result


def system_binds() -> list[str]:
    """bwrap arguments for the read-only system: /usr, the /bin and /lib links (or folders), a few /etc files."""
    arguments = ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            arguments += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            arguments += ["--ro-bind", top, top]
    for name in ("ld.so.cache", "localtime", "passwd", "group", "nsswitch.conf"):
        arguments += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    return arguments


def python_paths() -> list[str]:
    """The folders this Python needs, bound read-only at the same paths: its prefixes and site-packages.

    Never the current folder or a project root: only folders that hold Python itself or installed
    packages (a virtual environment inside a project binds the environment, not the project).
    """
    candidates = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    candidates.update(site.getsitepackages())
    candidates.update(
        entry for entry in sys.path if entry.endswith(("site-packages", "dist-packages")) and os.path.isdir(entry)
    )
    chosen: list[str] = []
    for path in sorted(candidates, key=len):
        if not os.path.isdir(path) or path.startswith("/usr/") or path == "/usr":
            continue
        if any(path == kept or path.startswith(kept.rstrip("/") + "/") for kept in chosen):
            continue
        chosen.append(path)
    # the interpreter may be a symlink into another prefix (a venv's bin/python)
    real = os.path.dirname(os.path.dirname(os.path.realpath(sys.executable)))
    if not real.startswith("/usr") and not any(real == kept or real.startswith(kept + "/") for kept in chosen):
        chosen.append(real)
    return chosen


class Docker(Backend):
    def __init__(self, image: str, executable: str | None = None):
        found = executable or shutil.which("docker")
        if not found:
            raise SandboxUnavailable("docker is not installed; use --sandbox bwrap or install Docker")
        probe = subprocess.run([found, "info", "--format", "{{.ServerVersion}}"], capture_output=True, text=True)
        if probe.returncode != 0:
            message = (probe.stderr or probe.stdout).strip().splitlines()[-1:] or ["no answer"]
            raise SandboxUnavailable(f"docker is installed but its daemon does not answer: {message[0]}")
        super().__init__(name="docker", own_pid_namespace=True, lib_dir=SANDBOX_LIB)
        self.executable, self.image = found, image

    def environment(self) -> dict[str, str]:
        return dict(SANDBOX_ENVIRONMENT)

    def command(self, task_dir: Path, out_dir: Path, limits: Limits, job_name: str) -> list[str]:
        return docker_command(self.executable, self.image, task_dir, out_dir, limits, job_name)

    def cleanup(self, job_name: str) -> None:
        subprocess.run([self.executable, "kill", job_name], capture_output=True)

    def watch_memory(self) -> bool:
        return False  # the container's memory limit (--memory) covers every process in it

    def output_owner(self) -> int | None:
        return _docker_uid() if os.getuid() == 0 else None


def _docker_uid() -> int:
    """The container's user: never root (as root, 65534, "nobody"); the grader's own uid otherwise."""
    return os.getuid() or 65534


def docker_command(executable: str, image: str, task_dir: Path, out_dir: Path, limits: Limits, job_name: str):
    uid = _docker_uid()
    arguments = [
        executable, "run", "--rm", "--name", job_name,
        "--network", "none", "--read-only", "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
        "--user", f"{uid}:{uid}",
        "--memory", str(limits.memory_bytes), "--memory-swap", str(limits.memory_bytes),
        "--pids-limit", str(limits.processes),
        "--tmpfs", f"/tmp:size={limits.tmp_bytes}", "--tmpfs", f"{SANDBOX_HOME}:size={limits.tmp_bytes},mode=1777",
        *[f"--volume={folder}:{SANDBOX_LIB}/{name}:ro" for name, folder in kit_packages()],
        "-v", f"{task_dir}:{SANDBOX_TASK}:ro",
        "-v", f"{out_dir}:{SANDBOX_OUT}:rw",
        "-w", SANDBOX_HOME,
    ]  # fmt: skip
    for name, value in SANDBOX_ENVIRONMENT.items():
        arguments += ["-e", f"{name}={value}"]
    arguments += [image, "python3", "-s", "-B", f"{SANDBOX_LIB}/grading/_runner.py", SANDBOX_TASK, SANDBOX_OUT]
    return arguments


def choose_backend(name: str, *, no_sandbox: bool, docker_image: str = "python:3.11-slim") -> Backend:
    """The backend for ``--sandbox NAME``; ``auto`` is bubblewrap, or a refusal that says what to do."""
    if no_sandbox:
        return NoSandbox()
    if name in ("auto", "bwrap"):
        backend = Bubblewrap()
        probe_bubblewrap(backend)
        return backend
    if name == "docker":
        return Docker(docker_image)
    raise SandboxUnavailable(f"unknown sandbox {name!r}: use bwrap or docker")


def probe_bubblewrap(backend: Bubblewrap) -> None:
    """Start one empty sandbox, so a machine that forbids namespaces fails once, clearly, up front."""
    command = [backend.executable, *system_binds(), "--unshare-pid", "--unshare-net"]
    if os.getuid() != 0:
        command += ["--unshare-user", "--disable-userns"]
    command += ["--", "/bin/sh", "-c", "exit 0"]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise SandboxUnavailable(
            f"bubblewrap cannot create a sandbox here: {result.stderr.strip() or result.returncode} "
            "(unprivileged user namespaces may be disabled: sysctl kernel.unprivileged_userns_clone=1)"
        )


# -- uids for parallel jobs ----------------------------------------------------------------------
_UID_BASE = 200_000


def job_uid(slot: int) -> int:
    """An unprivileged uid of its own for each parallel job slot of this grader process.

    RLIMIT_NPROC counts processes per uid, so two sandboxes sharing one uid would share one process
    budget. The pid of the grader spreads concurrent graders apart; these uids own no files on the host.
    """
    return _UID_BASE + (os.getpid() % 50_000) * 64 + slot % 64


# -- supervising one launch ------------------------------------------------------------------------
def run(
    backend: Backend,
    task_dir: Path,
    out_dir: Path,
    limits: Limits,
    deadline: float,
    poll_seconds: float = 0.05,
) -> RunOutcome:
    """Start the runner once and watch it until it ends or breaks a limit; ``deadline`` is time.monotonic()."""
    job_name = f"minitorch-grade-{uuid.uuid4().hex[:12]}"
    command = backend.command(task_dir, out_dir, limits, job_name)
    started = time.monotonic()
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=backend.environment(),
        cwd=str(out_dir) if backend.name == "none" else "/",
        start_new_session=True,
        close_fds=True,
    )
    drain = _Drain(process.stdout, limits.output_bytes)
    drain.start()
    progress = _Progress(out_dir / "progress.jsonl")
    killed: str | None = None
    peak = 0
    step_started = started
    current_step: tuple | None = None
    next_memory_check = next_disk_check = started
    while process.poll() is None:
        time.sleep(poll_seconds)
        now = time.monotonic()
        step = progress.current()
        if step != current_step:
            current_step, step_started = step, now
        allowance = limits.step_seconds + 2.0 if step and step[0] != "setup" else max(limits.step_seconds, 30.0)
        if now >= deadline:
            killed = "deadline"
        elif now - step_started > allowance:
            killed = "timeout"
        elif backend.watch_memory() and now >= next_memory_check:
            next_memory_check = now + 0.2
            used = _tree_memory(process.pid)
            peak = max(peak, used)
            if used > limits.memory_bytes:
                killed = "memory"
        if killed is None and now >= next_disk_check:
            next_disk_check = now + 1.0
            if _folder_size(out_dir, limit_entries=10_000) > limits.disk_bytes:
                killed = "disk"
        if killed:
            _kill(process)
            backend.cleanup(job_name)
            break
    process.wait()
    drain.join(timeout=5)
    return RunOutcome(
        returncode=process.returncode,
        killed=killed,
        events=progress.all(),
        output=drain.head,
        output_total=drain.total,
        seconds=time.monotonic() - started,
        peak_memory_bytes=peak,
    )


def _kill(process: subprocess.Popen) -> None:
    # bwrap leads its own session; killing it kills the sandbox's init (--die-with-parent), and the
    # kernel then kills every process left in the sandbox's PID namespace.
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class _Drain(threading.Thread):
    """Reads a pipe to the end, keeping only the first ``keep`` bytes: the writer never blocks and
    the grader's memory stays bounded whatever the submission prints."""

    def __init__(self, stream, keep: int):
        super().__init__(daemon=True)
        self.stream, self.keep = stream, keep
        self.head, self.total = b"", 0

    def run(self):
        chunks, kept = [], 0
        while True:
            chunk = self.stream.read1(1 << 16)
            if not chunk:
                break
            self.total += len(chunk)
            if kept < self.keep:
                chunks.append(chunk[: self.keep - kept])
                kept += len(chunks[-1])
        self.stream.close()
        self.head = b"".join(chunks)


class _Progress:
    """The runner's progress file, read incrementally; the submission can write to it too, so every
    line is parsed defensively and the total read is capped."""

    LIMIT = 4 * 1024 * 1024

    def __init__(self, path: Path):
        self.path, self.offset, self.events, self.partial = path, 0, [], b""

    def _read(self):
        if self.offset >= self.LIMIT:
            return
        try:
            descriptor = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            return
        with os.fdopen(descriptor, "rb") as handle:
            handle.seek(self.offset)
            data = handle.read(self.LIMIT - self.offset)
        self.offset += len(data)
        lines = (self.partial + data).split(b"\n")
        self.partial = lines.pop()
        for line in lines:
            try:
                event = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if isinstance(event, dict):
                self.events.append(event)

    def current(self) -> tuple | None:
        """The step that has begun and not ended, as ("cell", i), ("case", part, case) or ("setup",)."""
        self._read()
        return current_step(self.events)

    def all(self) -> list[dict]:
        self._read()
        return self.events


def current_step(events: list[dict]) -> tuple | None:
    step = None
    for event in events:
        if event.get("begin") == "setup":
            step = ("setup",)
        elif event.get("begin") == "cell":
            step = ("cell", event.get("cell"))
        elif event.get("begin") == "case":
            step = ("case", event.get("part"), event.get("case"))
        elif "end" in event:
            step = None
    return step


def _tree_memory(root_pid: int) -> int:
    """Memory of ``root_pid`` and all its descendants, in bytes (from /proc)."""
    parents: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        fields = data[data.rfind(b")") + 2 :].split()
        parents[int(entry.name)] = int(fields[1])
    tree, frontier = {root_pid}, [root_pid]
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    while frontier:
        for child in children.get(frontier.pop(), []):
            if child not in tree:
                tree.add(child)
                frontier.append(child)
    return sum(_process_memory(pid) for pid in tree)


def _process_memory(pid: int) -> int:
    """Proportional resident memory (PSS): pages shared after a fork count once in the total, so 32
    forked copies of one Python are not mistaken for 32 times its memory. Falls back to RSS."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as handle:
            for line in handle:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, IndexError, ValueError):
        pass
    try:
        with open(f"/proc/{pid}/statm", "rb") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError, ValueError):
        return 0


def _folder_size(folder: Path, limit_entries: int) -> int:
    """Total size of regular files under ``folder`` (never following links); huge if there are too many."""
    total, seen, stack = 0, 0, [str(folder)]
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > limit_entries:
                return 1 << 62
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif entry.is_file(follow_symlinks=False):
                    total += entry.stat(follow_symlinks=False).st_size
            except OSError:
                continue
    return total
