"""Running one submission's code in a sandbox, under limits, and watching it from outside.

Backends:

* ``bwrap`` (bubblewrap, the default on Linux): new PID, network, IPC and UTS namespaces, so the code
  sees no network at all (not even 127.0.0.1 of the host) and no other process; a read-only root
  built from read-only binds of the system (``/usr``), Python and its site-packages (with a stand-in
  that raises ImportError over every package that is not one of the kit's runtime dependencies:
  PyTorch, the test tools, nbgrader, an installed answer key; :func:`hidden_site_entries`), ``minitorch``,
  ``widgets`` and the learner-side part of ``grading`` (never the reference solutions in
  ``grading/exercises/``, nor the grader itself); a minimal read-only ``/dev`` with a small
  ``/dev/shm``; a private ``/tmp`` and home on small tmpfs; the task folder (plan and inputs)
  read-only and one output folder writable. Nothing else of the host is there: not the source
  notebook, the reference answers, the gradebook, other students' submissions, nor the grader's
  environment variables or ``/proc`` entries. New user namespaces are refused inside
  (``--disable-userns``, or a seccomp filter when the grader is root: :mod:`grading.seccomp`).
* ``docker``: the same runner in a container (``--network none``, read-only root, memory and PID
  limits, an unprivileged user, no capabilities). Used only when asked (``--sandbox docker``).
* ``none``: no isolation at all, only when asked explicitly (``--no-sandbox``); see ``NO_SANDBOX_RISKS``.

Limits, and who enforces them:

* with control groups (:mod:`grading.cgroups`, v2 or v1, whichever this machine delegates), each
  sandbox runs in a group of its own: the kernel counts all its memory (tmpfs and memfd pages too)
  against ``memory_bytes``, its processes against ``processes``, and caps its CPU at its share of the
  cores, so ``--jobs N`` neighbours keep their speed;
* always: ``RLIMIT_AS`` per process (a 6 GB allocation fails with MemoryError), ``RLIMIT_NPROC``
  under an unprivileged uid of its own per parallel job (the runner switches to it when the grader
  is root), ``RLIMIT_FSIZE`` per file; without control groups the supervisor also sums the resident
  memory of the sandbox's processes and kills it above the budget;
* time: a limit per step (a cell, or one call of a graded function), raised inside as an exception,
  and enforced from outside when the code ignores it; and a wall-clock limit per submission;
* output: the stored stdout and stderr are capped (``output_bytes``), the rest is read and dropped;
  the output folder is a tmpfs of ``disk_bytes`` when the grader is root (elsewhere the supervisor
  measures its allocated blocks, so ``fallocate`` counts too, and kills the sandbox above the limit);
  ``/tmp``, the home folder and ``/dev/shm`` are tmpfs of ``tmp_bytes`` each.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import importlib.util
import os
import re
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

from grading import cgroups, seccomp
from grading.progress import ProgressReader
from grading.untrusted import load_json

NO_SANDBOX_RISKS = (
    "--no-sandbox runs every submission as YOUR user, with no isolation: its code can read and change "
    "every file you can (the hidden tests, the reference answers, the gradebook, other students' work, "
    "your SSH keys), reach the network, leave processes running, and a fork bomb or a memory hog can "
    "bring this machine down. Only use it for notebooks you trust."
)

# The runner's setup (importing NumPy and minitorch) and reading the inputs: no learner code runs then. 30 s
# once ran out on a 2-core machine at load 5, which failed the whole submission as "could not be graded".
SETUP_SECONDS = 90.0
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
    tmp_bytes: int = 64 * 1024**2  # each of /tmp, the home folder and /dev/shm (memory-backed)
    cpus: float = 0.0  # the CPU share of one sandbox, in cores (0: all of them)

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
    killed: str | None  # why it was stopped: "timeout", "memory", "disk", "deadline", "malformed"; else None
    events: list[dict]  # the progress events, checked against the plan (see grading.progress)
    output: bytes  # the first Limits.output_bytes of stdout and stderr
    output_total: int  # how many bytes it wrote in all
    seconds: float
    peak_memory_bytes: int = 0
    step: tuple | None = None  # the step that had begun and not ended when it stopped
    finished: bool = False  # the runner wrote its last event
    malformed: str | None = None  # why its progress file could not be trusted
    limits_by: str = "process limits"  # "cgroup v1", "cgroup v2" or "process limits"


def package_dir(module_name: str) -> Path:
    module = __import__(module_name)
    return Path(module.__file__).resolve().parent


# The kit's own packages, importable inside the sandbox: chapters import minitorch and the widgets,
# whole. Only these folders are bound, never the project folder around them (tests, notebooks).
KIT_PACKAGES = ("minitorch", "widgets")

# Of grading, only what runs in the learner's process: the checks (which, inside the sandbox, find no
# exercise registered), the comparison helpers the runner uses, the runner, and the second device that
# chapter 3's given report functions run the learner's code on (devices.py); the review questions too,
# which are not graded and explain their answers (a chapter's review cell then runs as it does for the
# learner). Never the reference solutions (grading/exercises/<chapter>.py), the grader, or its reports.
LEARNER_GRADING_FILES = (
    "__init__.py", "_runner.py", "checks.py", "compare.py", "registry.py", "devices.py", "exercises/__init__.py",
    "withhold.py",
    "review.py", "review_questions/__init__.py",
    *sorted(f"review_questions/{path.name}" for path in (Path(__file__).parent / "review_questions").glob("ch*.py")),
    # the learner's own library: its mechanism, its reports and minitorch's equivalents of its pieces
    *sorted(f"library/{path.name}" for path in (Path(__file__).parent / "library").glob("*.py")),
)  # fmt: skip


def kit_packages() -> list[tuple[str, Path]]:
    """(name, folder) of each whole kit package installed here; minitorch always is."""
    found = []
    for name in KIT_PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            found.append((name, Path(next(iter(spec.submodule_search_locations))).resolve()))
    return found


def learner_grading_files() -> list[tuple[Path, str]]:
    """(file here, path inside the sandbox's library folder) of the learner-side grading files."""
    folder = package_dir("grading")
    return [(folder / name, f"grading/{name}") for name in LEARNER_GRADING_FILES]


# -- what a submission may import -----------------------------------------------------------------
# The kit's distribution and the extras a chapter's cells use (ONNX for deployment, CuPy, MPI); never its
# test tools (PyTorch, pytest, hypothesis) nor the instructor's (nbgrader).
KIT_DISTRIBUTION = "minitorch-kit"
SUBMISSION_EXTRAS = ("deploy", "cuda", "distributed")
# Hidden whatever the kit's metadata says (and when the kit is not installed as a distribution at all).
FORBIDDEN_DISTRIBUTIONS = ("torch", "pytest", "hypothesis", "nbgrader", "minitorch-kit")
BLOCKED_MESSAGE = (
    "{name} is not available in the grading sandbox: a submission imports the kit's runtime dependencies "
    "only (not PyTorch, not the test tools, not the grader)"
)


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@functools.cache
def allowed_distributions() -> frozenset[str] | None:
    """The kit's runtime dependencies, transitively (normalised names), or None when the kit's metadata
    is not installed (then only FORBIDDEN_DISTRIBUTIONS are hidden)."""
    import importlib.metadata as metadata

    try:
        from packaging.requirements import Requirement  # matplotlib's dependency, so the kit's too

        metadata.distribution(KIT_DISTRIBUTION)
    except (ImportError, metadata.PackageNotFoundError):
        return None
    allowed, frontier = set(), [(KIT_DISTRIBUTION, SUBMISSION_EXTRAS)]
    while frontier:
        name, extras = frontier.pop()
        if _normal(name) in allowed:
            continue
        allowed.add(_normal(name))
        try:
            requires = metadata.distribution(name).requires or []
        except metadata.PackageNotFoundError:
            continue
        for text in requires:
            requirement = Requirement(text)
            environments = [{"extra": extra} for extra in ("", *extras)]
            if requirement.marker is None or any(requirement.marker.evaluate(env) for env in environments):
                frontier.append((requirement.name, tuple(requirement.extras)))
    return frozenset(allowed)


@functools.cache
def hidden_site_entries() -> tuple[tuple[str, str], ...]:
    """(path, kind) of each top-level entry of the bound site-packages that a submission may not import:
    kind ``package`` (a folder), ``module`` (a file) or ``pth`` (a start-up file that would import one).

    Each installed distribution's files (its RECORD) say which entries are its own; an entry is hidden
    when its distribution is not one of the kit's runtime dependencies, or is forbidden outright. The
    ``grading`` and ``minitorch`` folders of an installed (non-editable) kit are hidden too: the
    sandbox binds the learner-side part of ``grading`` and the library at its own place, never the
    answer key that a full install holds."""
    import importlib.metadata as metadata

    allowed = allowed_distributions()
    forbidden = {_normal(name) for name in FORBIDDEN_DISTRIBUTIONS}
    folders = {
        entry for entry in [*site.getsitepackages(), *sys.path] if entry.endswith(("site-packages", "dist-packages"))
    }
    # (the folder as the sandbox's Python sees it, the folder its files really are in)
    roots = [(Path(folder), Path(folder).resolve()) for folder in sorted(folders) if os.path.isdir(folder)]
    hidden: dict[str, str] = {}
    for distribution in metadata.distributions():
        name = _normal(distribution.metadata["Name"] or "")
        if name not in forbidden and (allowed is None or name in allowed):
            continue
        for file in distribution.files or []:
            try:
                located = Path(distribution.locate_file(file)).resolve()
            except (OSError, ValueError):
                continue
            for seen_as, real in roots:
                if real not in located.parents:
                    continue
                top = located.relative_to(real).parts[0]
                if top.endswith((".dist-info", ".egg-info", ".libs")) or top in ("__pycache__", "..", "bin"):
                    break  # metadata, and shared libraries unreachable without their package
                path = seen_as / top
                kind = "package" if (real / top).is_dir() else "pth" if top.endswith(".pth") else "module"
                hidden[str(path)] = kind
                break
    return tuple(sorted(hidden.items()))


@functools.cache
def blocked_stand_ins() -> Path:
    """A folder of stand-ins bound over hidden entries: a package whose ``__init__.py`` raises
    ImportError, a module that does, and an empty start-up file. Made once per grader process."""
    import atexit
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="minitorch-grade-hidden-"))
    (folder / "package").mkdir()
    text = f"raise ImportError({BLOCKED_MESSAGE.format(name='this package')!r})\n"
    (folder / "package" / "__init__.py").write_text(text)
    (folder / "module.py").write_text(text)
    (folder / "empty.pth").write_text("")
    for path in (folder / "package", folder):
        path.chmod(0o755)
    for path in (folder / "package" / "__init__.py", folder / "module.py", folder / "empty.pth"):
        path.chmod(0o644)
    atexit.register(shutil.rmtree, folder, True)
    return folder


def hiding_binds() -> list[str]:
    """bwrap arguments that put a stand-in over every hidden site-packages entry (after the binds)."""
    stand_ins = blocked_stand_ins()
    sources = {"package": stand_ins / "package", "module": stand_ins / "module.py", "pth": stand_ins / "empty.pth"}
    arguments = []
    for path, kind in hidden_site_entries():
        arguments += ["--ro-bind", str(sources[kind]), path]
    return arguments


@functools.cache
def cgroup_support() -> cgroups.Support:
    """The control groups this grader can use, detected once per process."""
    return cgroups.detect()


@functools.cache
def user_namespace_filter() -> bytes | None:
    return seccomp.user_namespace_filter()


@dataclass
class Backend:
    """How to start the runner; subclasses add isolation."""

    name: str = "none"
    own_pid_namespace: bool = False
    lib_dir: str = ""  # where minitorch and grading are importable, as the runner sees it
    switch_user: bool = False  # the runner drops to an unprivileged uid (root only)
    helper_processes: int = 0  # processes of the sandbox itself in its control group (bwrap, its init)

    def command(self, task_dir: Path, out_dir: Path, limits: Limits, job_name: str, seccomp_fd: int = -1) -> list[str]:
        runner = package_dir("grading") / "_runner.py"
        return [sys.executable, "-s", "-B", str(runner), str(task_dir), str(out_dir)]

    def cgroups(self) -> cgroups.Support:
        return cgroup_support()

    def wants_seccomp(self) -> bool:
        return False

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
        super().__init__(
            name="bwrap", own_pid_namespace=True, lib_dir=SANDBOX_LIB, switch_user=os.getuid() == 0, helper_processes=2
        )
        self.executable = found

    def environment(self) -> dict[str, str]:
        return dict(SANDBOX_ENVIRONMENT)

    def wants_seccomp(self) -> bool:
        return os.getuid() == 0  # as root there is no user namespace for --disable-userns

    def command(self, task_dir: Path, out_dir: Path, limits: Limits, job_name: str, seccomp_fd: int = -1) -> list[str]:
        arguments = [
            self.executable,
            "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--die-with-parent", "--new-session", "--clearenv",
            "--hostname", "sandbox",
        ]  # fmt: skip
        if os.getuid() == 0:
            # As root, bwrap makes no user namespace; the runner needs exactly two capabilities to
            # switch to its unprivileged uid, and the switch clears them. New user namespaces are
            # refused by the seccomp filter instead of --disable-userns.
            arguments += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        else:
            arguments += ["--unshare-user", "--disable-userns"]
        if seccomp_fd >= 0:
            arguments += ["--seccomp", str(seccomp_fd)]
        for name, value in SANDBOX_ENVIRONMENT.items():
            arguments += ["--setenv", name, value]
        # The tmpfs folders come first: a later one would hide a Python that lives under /tmp.
        # /dev: the device nodes bwrap makes, read-only, with a small tmpfs for /dev/shm.
        mounts = system_binds() + [
            "--dev", "/dev",
            "--perms", "1777", "--size", str(limits.tmp_bytes), "--tmpfs", "/dev/shm",
            "--remount-ro", "/dev",
            "--proc", "/proc",
            "--perms", "1777", "--size", str(limits.tmp_bytes), "--tmpfs", "/tmp",
            "--perms", "0777", "--size", str(limits.tmp_bytes), "--tmpfs", SANDBOX_HOME,
        ]  # fmt: skip
        for path in python_paths():
            mounts += ["--ro-bind", path, path]
        mounts += hiding_binds()  # PyTorch, the test tools, an installed answer key: not importable
        for name, folder in kit_packages():
            mounts += ["--ro-bind", str(folder), f"{SANDBOX_LIB}/{name}"]
        for source, destination in learner_grading_files():
            mounts += ["--ro-bind", str(source), f"{SANDBOX_LIB}/{destination}"]
        mounts += [
            "--ro-bind", str(task_dir), SANDBOX_TASK,
            "--bind", str(out_dir), SANDBOX_OUT,
            "--remount-ro", "/",
        ]  # fmt: skip
        arguments += _with_parent_folders(mounts)
        arguments += ["--chdir", SANDBOX_HOME, "--"]
        arguments += [sys.executable, "-s", "-B", f"{SANDBOX_LIB}/grading/_runner.py", SANDBOX_TASK, SANDBOX_OUT]
        return arguments


_TWO_ARGUMENT_MOUNTS = {"--ro-bind", "--ro-bind-try", "--bind", "--symlink"}
_ONE_ARGUMENT_MOUNTS = {"--dev", "--proc", "--tmpfs", "--remount-ro"}


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
        if width > 1 and option != "--remount-ro":
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

    def cgroups(self) -> cgroups.Support:
        return cgroups.Support(None, reason="the container's own limits apply (--memory, --pids-limit)")

    def command(self, task_dir: Path, out_dir: Path, limits: Limits, job_name: str, seccomp_fd: int = -1) -> list[str]:
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
        "--pids-limit", str(limits.processes), *(["--cpus", f"{limits.cpus:g}"] if limits.cpus else []),
        "--tmpfs", f"/tmp:size={limits.tmp_bytes}", "--tmpfs", f"{SANDBOX_HOME}:size={limits.tmp_bytes},mode=1777",
        *[f"--volume={folder}:{SANDBOX_LIB}/{name}:ro" for name, folder in kit_packages()],
        *[f"--volume={source}:{SANDBOX_LIB}/{destination}:ro" for source, destination in learner_grading_files()],
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


# -- the output folder ------------------------------------------------------------------------------
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MNT_DETACH = 2, 4, 8, 2


def _libc():
    return ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)


def mount_output_folder(folder: Path, limits: Limits, owner: int | None) -> bool:
    """Make ``folder`` a tmpfs of ``limits.disk_bytes`` (root only): every byte the sandbox writes
    there, ``fallocate`` included, counts against the size, and cleanup is one unmount. False when
    it cannot be done (not root); the supervisor then measures the folder instead."""
    if os.getuid() != 0:
        return False
    uid = 0 if owner is None else owner
    options = f"size={limits.disk_bytes},nr_inodes=4096,mode=0700,uid={uid},gid={uid}".encode()
    flags = _MS_NOSUID | _MS_NODEV | _MS_NOEXEC
    return _libc().mount(b"tmpfs", os.fsencode(folder), b"tmpfs", flags, options) == 0


def mounts_below(root: Path) -> list[str]:
    """Mount points at or under ``root`` in this mount namespace, deepest first."""
    prefix = os.path.realpath(root)
    found = []
    try:
        with open("/proc/self/mountinfo", "rb") as handle:
            lines = handle.read().decode("utf-8", "surrogateescape").splitlines()
    except OSError:
        return found
    for line in lines:
        fields = line.split(" ")
        if len(fields) > 4:
            point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[4])
            if point == prefix or point.startswith(prefix + "/"):
                found.append(point)
    return sorted(set(found), key=len, reverse=True)


def unmount_below(root: Path) -> None:
    """Detach every mount at or under ``root`` (the output folders' tmpfs), deepest first."""
    if os.getuid() != 0:
        return
    libc = _libc()
    for point in mounts_below(root):
        libc.umount2(os.fsencode(point), _MNT_DETACH)


# -- supervising one launch ------------------------------------------------------------------------
_JOIN_GROUPS = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'


def run(
    backend: Backend,
    task_dir: Path,
    out_dir: Path,
    limits: Limits,
    deadline: float,
    poll_seconds: float = 0.05,
    plan: dict | None = None,
    inputs: Path | None = None,
) -> RunOutcome:
    """Start the runner once and watch it until it ends or breaks a limit; ``deadline`` is time.monotonic().

    ``plan`` is the plan written to ``task_dir`` (read from there when not given): the progress
    events are checked against it. ``inputs`` (the cases' inputs.npz) is put in ``task_dir`` only when
    the runner asks for it, after the last cell.
    """
    if plan is None:
        plan = load_json((task_dir / "plan.json").read_bytes())
    job_name = f"minitorch-grade-{uuid.uuid4().hex[:12]}"
    support = backend.cgroups()
    try:
        processes = limits.processes + backend.helper_processes  # the submission's own count stays
        group = support.create(limits.memory_bytes, processes, limits.cpus or float(os.cpu_count() or 1))
    except OSError:
        group = None  # the hierarchy went away or filled up (cgroup.max.descendants): process limits only
    program = user_namespace_filter() if backend.wants_seccomp() else None
    seccomp_fd = seccomp.program_descriptor(program) if program else -1
    try:
        command = backend.command(task_dir, out_dir, limits, job_name, seccomp_fd)
        if group is not None:
            command = ["/bin/sh", "-c", _JOIN_GROUPS, "sh", *group.procs_files, "--", *command]
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
            pass_fds=[seccomp_fd] if seccomp_fd >= 0 else [],
        )
    except BaseException:
        if group is not None:
            group.remove()
        raise
    finally:
        if seccomp_fd >= 0:
            os.close(seccomp_fd)
    drain = _Drain(process.stdout, limits.output_bytes)
    drain.start()
    progress = ProgressReader(out_dir / "progress.jsonl", plan)
    watch = _Watch(backend, group, limits, out_dir, process.pid, started, plan)
    try:
        while process.poll() is None:
            time.sleep(poll_seconds)
            now = time.monotonic()
            step = progress.current()
            if step == ("inputs",) and inputs is not None and not (task_dir / "inputs.npz").exists():
                _hand_over(inputs, task_dir / "inputs.npz")
            watch.killed = "malformed" if progress.malformed else watch.check(step, now, deadline)
            if watch.killed:
                _kill(process)
                if group is not None:
                    group.kill_all()
                backend.cleanup(job_name)
                break
        process.wait()
        drain.join(timeout=5)
        progress.finish()
        if watch.killed is None and group is not None and group.oom_kills():
            watch.killed = "memory"  # the kernel stopped a process for the group's memory limit
        if watch.killed is None and progress.malformed:
            watch.killed = "malformed"
        if watch.killed is None and watch.measure_disk:  # what it wrote after the last check
            if _folder_size(out_dir, limit_entries=10_000) > limits.disk_bytes:
                watch.killed = "disk"
        peak = max(watch.peak, group.memory_peak() if group is not None else 0)
    finally:
        if group is not None:
            group.remove()
    return RunOutcome(
        returncode=process.returncode,
        killed=watch.killed,
        events=progress.events,
        output=drain.head,
        output_total=drain.total,
        seconds=time.monotonic() - started,
        peak_memory_bytes=peak,
        step=progress.sequence.step,
        finished=progress.finished,
        malformed=progress.malformed,
        limits_by=f"cgroup {support.version}" if group is not None else "process limits",
    )


def _hand_over(inputs: Path, destination: Path) -> None:
    """Put the inputs in the (read-only) task folder: a hard link, or a copy across file systems."""
    try:
        os.link(inputs, destination)
    except OSError:
        shutil.copyfile(inputs, destination)
        os.chmod(destination, 0o644)


class _Watch:
    """The supervisor's checks during one launch: step time, submission time, memory, disk."""

    def __init__(self, backend: Backend, group, limits: Limits, out_dir: Path, pid: int, started: float, plan: dict):
        self.backend, self.group, self.limits, self.out_dir, self.pid = backend, group, limits, out_dir, pid
        # a graded call's limit, per part: the exercise's own where it is longer than the step limit
        self.call_seconds = {part["number"]: float(part.get("seconds") or 0) for part in plan["parts"]}
        self.step: tuple | None = None
        self.step_started = started
        self.next_memory_check = self.next_disk_check = started
        self.peak = 0
        self.killed: str | None = None
        # a tmpfs output folder (the grader is root) is bounded by the kernel; a plain folder is measured
        self.measure_disk = not os.path.ismount(out_dir)

    def check(self, step: tuple | None, now: float, deadline: float) -> str | None:
        if step != self.step:
            self.step, self.step_started = step, now
        slow_start = step is not None and step[0] in ("setup", "inputs")  # imports, or reading the inputs
        if slow_start:  # the grader's own work, not the learner's: a busy machine must not fail the notebook
            allowance = max(self.limits.step_seconds, SETUP_SECONDS)
        elif step is not None and step[0] == "case":
            allowance = max(self.call_seconds.get(step[1], 0.0), self.limits.step_seconds) + 2.0
        else:
            allowance = self.limits.step_seconds + 2.0
        if now >= deadline:
            return "deadline"
        if now - self.step_started > allowance:
            return "timeout"
        if now >= self.next_memory_check:
            self.next_memory_check = now + 0.2
            if self.group is not None:
                if self.group.oom_kills():
                    return "memory"  # the kernel killed a process of the group: blame the current step
            elif self.backend.watch_memory():
                used = _tree_memory(self.pid)
                self.peak = max(self.peak, used)
                if used > self.limits.memory_bytes:
                    return "memory"
        if now >= self.next_disk_check and self.measure_disk:
            self.next_disk_check = now + 1.0
            if _folder_size(self.out_dir, limit_entries=10_000) > self.limits.disk_bytes:
                return "disk"
        return None


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


def _folder_size(folder: Path, limit_entries: int, limit_depth: int = 64) -> int:
    """Bytes allocated under ``folder`` (blocks, so ``fallocate`` counts; never following links).

    Anything that cannot be measured (a folder the grader cannot list, too many entries, a path too
    deep) counts as over every limit: what the supervisor cannot see, it does not allow.
    """
    total, seen, stack = 0, 0, [(str(folder), 0)]
    too_much = 1 << 62
    while stack:
        path, depth = stack.pop()
        if depth > limit_depth:
            return too_much
        try:
            entries = list(os.scandir(path))
        except FileNotFoundError:
            continue
        except OSError:
            return too_much
        for entry in entries:
            seen += 1
            if seen > limit_entries:
                return too_much
            try:
                info = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            except OSError:
                return too_much
            total += max(info.st_blocks * 512, 0)
            if entry.is_dir(follow_symlinks=False):
                stack.append((entry.path, depth + 1))
    return total
