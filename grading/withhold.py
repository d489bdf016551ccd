"""Withheld pieces: while an exercise's graded calls run, no path reaches the piece of minitorch it rebuilds.

An exercise lists the pieces the learner rebuilds by their dotted names (``withheld=("minitorch.nn.
functional.conv2d", "minitorch.ops.conv.Convolution")`` in ``grading/exercises/<chapter>.py``). A name is
only a way to *find* the piece; what is withheld is the implementation itself, in three layers that the
batch grader's runner (``grading/_runner.py``) and the learner's instant ``check`` apply alike:

1. **The function objects stop working.** Every Python function of the piece (a function; every method,
   static or class method and property of a class, an ``Op``/``Function`` subclass's ``forward`` and
   ``backward`` included; the functions a decorator wrapped, through ``__wrapped__``) has its ``__code__``
   swapped for one that raises :class:`WithheldPiece`, naming the piece. A function object is one object
   wherever it is referenced, so this reaches the graded name bound to it, the defining module, other
   modules' references, closures and default arguments captured at import (``minitorch.func``'s
   ``grad_and_value`` calls autograd's ``grad`` through a reference it took at import), a
   ``functools.partial`` or a lambda around it, a subclass that inherits the method, and the answer
   being the library's object itself (refused before it is called, see :func:`refusal`).
2. **Copies of its code are recognised when they run.** A profile hook (``sys.setprofile``, and
   ``threading.setprofile`` for new threads) looks at every Python function that starts during the
   graded call and records a hit when its code is the piece's: the same code object (a reference to
   ``__code__`` kept before the swap), a code object equal to it (``importlib.reload`` of the module,
   ``exec(open(path).read())`` of its file: Python compares code objects by their bytecode, constants,
   names and line numbers, not by file name), or the same bytecode, constants, names and qualified name
   at other line numbers (the file's text executed after an edit above the function, ``marshal``). A
   hit fails the call even when the submission catches the exception; in a forked child process it
   ends that process. Starting another program (``subprocess``, ``os.exec*``, ``os.posix_spawn``,
   ``os.system``, multiprocessing's ``spawn``: a fresh interpreter has the whole library) and switching
   the hook off (``sys.setprofile``) are hits too, except the grading package's own rank script started
   through :meth:`Withholding.run_trusted_program`, which withholds the same pieces in every process.
3. **No other copy of the library is importable.** The sandbox holds no PyTorch (``grading/sandbox.py``).

Everything is put back after the call, so the notebook's other cells and exercises keep the whole
library. What this cannot prevent is written in ``grading/README.md``: code in the same process that
takes the mechanism itself apart (``ctypes`` writing memory, a raw ``_thread`` thread running a
re-executed copy), and a function copied from minitorch's public source and then changed.
"""

from __future__ import annotations

import functools
import gc
import importlib
import importlib.util
import json
import os
import signal
import sys
import sysconfig
import threading
import types
import warnings

__all__ = ["DERIVATIVES", "WithheldPiece", "Withholding", "active_guard", "derivatives", "resolve", "refusal"]


class WithheldPiece(NotImplementedError):
    """A graded call reached a piece of minitorch that its exercise asks the learner to build."""

    def __init__(self, message: str, piece: str = ""):
        super().__init__(message)
        self.piece = piece


# One withheld name stands for a family: every derivative minitorch defines, that is the ``backward`` of each of its
# ``Function`` and ``Op`` subclasses, named by the method they all override. An exercise whose learner writes a
# backward (chapter 2's SiLU, chapter 15's embedding lookup) withholds it: its given wrapper may still run the engine
# (``y.backward(grad_output)``), but the only derivative that can run is the learner's own, so a forward written with
# minitorch's ops and differentiated by autograd (``x * x.sigmoid()`` then ``.backward()``) reaches the family.
DERIVATIVES = "minitorch.autograd.Function.backward"


def derivatives() -> list:
    """The ``backward`` of every subclass of ``minitorch.autograd.Function`` defined in minitorch (those of the
    modules imported so far: every op of ``minitorch`` and ``minitorch.nn``), each as its class holds it."""
    from minitorch.autograd.function import Function

    found, seen, pending = [], set(), [Function]
    while pending:
        for subclass in pending.pop().__subclasses__():
            if subclass in seen:
                continue
            seen.add(subclass)
            pending.append(subclass)
            if subclass.__module__.startswith("minitorch.") and "backward" in vars(subclass):
                found.append(vars(subclass)["backward"])
    return found


def resolve(name: str):
    """The object a dotted name (``minitorch.nn.functional.conv2d``, ``minitorch.Tensor.relu``) names, or None.

    The longest importable prefix is a module; the rest are attributes. The attribute is read from the
    owner's ``__dict__`` when it is there, so a static method stays recognisable as one."""
    module_name, _, attribute = name.rpartition(".")
    parts = module_name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            owner = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for part in parts[cut:]:
                owner = getattr(owner, part)
        except AttributeError:
            return None
        found = getattr(owner, "__dict__", {}).get(attribute, None)
        return found if found is not None else getattr(owner, attribute, None)
    return None


def _functions(obj, seen: set) -> list[types.FunctionType]:
    """The Python functions that implement ``obj``: itself, a class's methods (its own ``__dict__``), the
    functions behind static and class methods, properties and ``functools.partial``, and what a decorator
    wrapped (``__wrapped__``)."""
    if id(obj) in seen:
        return []
    seen.add(id(obj))
    found: list[types.FunctionType] = []
    if isinstance(obj, types.FunctionType):
        found.append(obj)
        wrapped = obj.__dict__.get("__wrapped__")
        if wrapped is not None:
            found += _functions(wrapped, seen)
        for cell in obj.__closure__ or ():  # a decorator's wrapper holds the function it wraps in a cell
            try:
                inner = cell.cell_contents
            except ValueError:
                continue
            if isinstance(inner, types.FunctionType) and inner.__module__ == obj.__module__ and (
                inner.__name__ == obj.__name__
            ):
                found += _functions(inner, seen)
    elif isinstance(obj, (staticmethod, classmethod)):
        found += _functions(obj.__func__, seen)
    elif isinstance(obj, property):
        for accessor in (obj.fget, obj.fset, obj.fdel):
            if accessor is not None:
                found += _functions(accessor, seen)
    elif isinstance(obj, functools.partial):
        found += _functions(obj.func, seen)
    elif isinstance(obj, types.MethodType):
        found += _functions(obj.__func__, seen)
    elif isinstance(obj, type):
        for name, value in list(vars(obj).items()):
            # a finalizer computes nothing for an answer, and the garbage collector runs it whenever it likes on
            # objects made before the graded call (a DataLoader iterator of an earlier cell): never withheld
            if name != "__del__" and isinstance(value, (types.FunctionType, staticmethod, classmethod, property)):
                found += _functions(value, seen)
    return found


def _codes(code: types.CodeType) -> list[types.CodeType]:
    """``code`` and the code objects nested in it (functions and comprehensions defined inside)."""
    nested = [code]
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            nested += _codes(constant)
    return nested


def _shape(code: types.CodeType) -> tuple:
    """What a copy of ``code`` keeps wherever its text is executed: qualified name, bytecode, constants
    (nested code by their own shape), names, variables. Line numbers and the file name are left out."""
    constants = tuple(
        _shape(constant) if isinstance(constant, types.CodeType) else (type(constant).__name__, repr(constant))
        for constant in code.co_consts
    )
    return (code.co_qualname, code.co_code, constants, code.co_names, code.co_varnames, code.co_freevars)


class _Raiser:
    """The constant the swapped-in code calls: records the hit, then raises :class:`WithheldPiece`."""

    def __init__(self, guard: Withholding, piece: str):
        self.guard, self.piece = guard, piece

    def __call__(self):
        self.guard._hit(self.piece, raise_now=False)
        raise WithheldPiece(self.guard.message(self.piece), self.piece)


_PLACEHOLDER = "__minitorch_withheld_raiser__"


def _raising_code(function: types.FunctionType, raiser: _Raiser) -> types.CodeType:
    """A code object for ``function`` that calls ``raiser`` (which raises) whatever the arguments: it keeps
    ``function``'s free variables (a closure's cells must match) and its names, for tracebacks."""
    free = function.__code__.co_freevars
    lines = ["def _outer():"]
    lines += [f"    {name} = None" for name in free]
    lines.append("    def _withheld(*args, **kwargs):")
    if free:
        lines.append(f"        ({', '.join(free)},)")
    lines.append(f"        {_PLACEHOLDER!r}()")
    lines.append("    return _withheld")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "'str' object is not callable": the constant is replaced below
        module = compile("\n".join(lines), function.__code__.co_filename, "exec")
    outer = next(constant for constant in module.co_consts if isinstance(constant, types.CodeType))
    inner = next(constant for constant in outer.co_consts if isinstance(constant, types.CodeType))
    constants = tuple(raiser if constant == _PLACEHOLDER else constant for constant in inner.co_consts)
    return inner.replace(
        co_consts=constants, co_name=function.__code__.co_name, co_qualname=function.__code__.co_qualname
    )


# Builtins that start another program: a fresh interpreter would import the whole library.
def _program_starters() -> dict[int, str]:
    starters = {}
    for module_name, names in (
        ("posix", ("execv", "execve", "posix_spawn", "posix_spawnp", "system", "fexecve")),
        ("_posixsubprocess", ("fork_exec",)),
    ):
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        for name in names:
            function = getattr(module, name, None)
            if function is not None:
                starters[id(function)] = f"{module_name}.{name}"
    return starters


_FOREIGN = ("torch", "functorch")
_SIGNALS = sorted(set(signal.valid_signals()) - {signal.SIGKILL, signal.SIGSTOP})
_LABELS = ("PyTorch", "the grader's watch (sys.setprofile)")


def is_label(text) -> bool:
    """Whether ``text`` is one of the hits this module names besides the pieces themselves."""
    return isinstance(text, str) and (text in _LABELS or (
        text.startswith("another program (") and text.endswith(")") and text[17:-1] in _STARTER_NAMES
    ))


_STARTER_NAMES = (
    "posix.execv", "posix.execve", "posix.posix_spawn", "posix.posix_spawnp", "posix.system", "posix.fexecve",
    "_posixsubprocess.fork_exec",
)


def _foreign_folders() -> tuple[str, ...]:
    """The folders of PyTorch's packages where they are installed (the learner's own environment may
    have it; the sandbox has not): a graded call that runs their code is a hit, found without importing
    them."""
    import importlib.util

    folders = []
    for name in _FOREIGN:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is not None and spec.submodule_search_locations:
            folders += [os.path.join(folder, "") for folder in spec.submodule_search_locations]
    return tuple(folders)


class Withholding:
    """The withheld pieces of one exercise. ``with guard.active(): ...`` runs graded code with them withheld.

    ``hits`` lists the pieces the code reached (empty when it reached none), ``refusal(function)`` says
    why an answer cannot be graded at all (it *is* a withheld piece). Build it before the graded code
    runs: the pieces are found by name then, from the library as imported."""

    def __init__(self, exercise: str, names, message_format: str | None = None):
        self.exercise, self.names = exercise, tuple(names)
        self.functions: list[tuple[types.FunctionType, str]] = []  # (function, the piece it belongs to)
        self.missing: list[str] = []
        for name in self.names:
            obj = resolve(name)
            if name == DERIVATIVES and obj is not None:  # the family, not the base class's placeholder
                seen: set = set()
                functions = [function for backward in derivatives() for function in _functions(backward, seen)]
            else:
                functions = _functions(obj, set()) if obj is not None else []
            if not functions:
                self.missing.append(name)
            self.functions += [(function, name) for function in functions]
        self._by_identity = {id(function): name for function, name in self.functions}
        for name in self.names:  # a class itself (MyAdamW = optim.AdamW) is the piece too
            obj = resolve(name)
            if isinstance(obj, type):
                self._by_identity[id(obj)] = name
        self._objects = [resolve(name) for name in self.names]  # kept alive: their ids stay theirs
        # the withheld classes' own finalizers (left as they are): what they call is not the submission's use
        self._finalizers = {obj.__dict__["__del__"].__code__ for obj in self._objects
                            if isinstance(obj, type) and isinstance(obj.__dict__.get("__del__"), types.FunctionType)}
        # what the watch recognises: the code objects (by identity and by value) and their shapes. A code
        # with free variables may be shared by many closures (methods made by a factory): only its own
        # function objects are withheld (layer 1), never every closure of that code, nor the code nested in it
        # (a decorator's wrapper shared by many ops, with a helper defined inside it, is no one op's code).
        self._codes: dict[types.CodeType, str] = {}
        self._kept: list[types.CodeType] = []
        self._shapes: dict[tuple, str] = {}
        for function, name in self.functions:
            if function.__code__.co_freevars:
                continue
            for code in _codes(function.__code__):
                if code.co_freevars:
                    continue
                self._codes.setdefault(code, name)
                self._kept.append(code)
                self._shapes.setdefault(_shape(code), name)
        self._originals = [(function, function.__code__) for function, _ in self.functions]
        self._seen: dict[int, tuple] = {}  # id(code) -> (code, piece or None): each code is judged once
        self._c_seen: dict[int, tuple] = {}  # id(builtin) -> (builtin, what it reaches or None)
        self._starters = _program_starters()
        self._setprofile_id = id(sys.setprofile)
        self._foreign = _foreign_folders()
        self._library = self._foreign + (os.path.join(sysconfig.get_paths()["stdlib"], ""),)
        self._collection = None  # while the garbage collector runs: the frame it interrupted
        self._handlers: set = set()  # the code of the Python signal handlers installed before the call
        self.hits: list[str] = []
        self._owner = os.getpid()
        self._active = self._stopping = False
        self._format = message_format
        # the stand-ins are compiled now, before any submission code runs (a cell could replace compile)
        self._raising = [_raising_code(function, _Raiser(self, piece)) for function, piece in self.functions]
        # a piece that this process already replaced by code of its own (F.linear = my_linear in a cell
        # before the check): what the name finds is not minitorch's, and minitorch's own is out of sight
        library = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "")
        package = importlib.util.find_spec("minitorch")
        folders = tuple(os.path.join(folder, "") for folder in (package.submodule_search_locations or [])) if (
            package is not None
        ) else (library,)
        # (a decorator's wrapper, contextlib.contextmanager's around a method, lives in another file: what it wraps
        # is judged instead)
        self.replaced = sorted({
            name for function, name in self.functions
            if not function.__code__.co_filename.startswith(folders) and "__wrapped__" not in function.__dict__
        })

    # -- messages ---------------------------------------------------------------------------------
    def message(self, piece: str) -> str:
        if self._format:
            return self._format.format(exercise=self.exercise, piece=piece)
        short = piece.rpartition(".")[2]
        return (
            f"{self.exercise} rebuilds {piece}: minitorch's own {short} is not available while this exercise is "
            "graded; write it from smaller operations"
        )

    def answer_piece(self, function) -> str | None:
        """The withheld piece that ``function`` is (or only wraps: a partial, a bound method), else None."""
        for candidate in _unwrapped(function):
            piece = self._by_identity.get(id(candidate))
            if piece is not None:
                return piece
        return None

    def refusal(self, function) -> str | None:
        """Why ``function`` cannot be the answer: it is (or only wraps) a withheld piece; else None."""
        piece = self.answer_piece(function)
        if piece is None:
            return None
        return f"the answer is minitorch's own {piece}, which {self.exercise} asks you to build: write it yourself"

    # -- the watch ----------------------------------------------------------------------------------
    def _hit(self, piece: str, raise_now: bool) -> None:
        if self._finalizers and _inside(self._finalizers):
            return  # the garbage collector finalizing a withheld object made before the call
        if os.getpid() != self._owner:
            os._exit(70)  # a forked child reached the piece: it gives nothing back
        self.hits.append(piece)

    def _judge(self, code) -> str | None:
        seen = self._seen.get(id(code))
        if seen is not None and seen[0] is code:
            return seen[1]
        piece = None
        if self._foreign and code.co_filename.startswith(self._foreign):
            piece = "PyTorch"  # another library's implementation of every piece
        elif not code.co_freevars:
            piece = self._codes.get(code)
            if piece is None:
                try:
                    piece = self._shapes.get(_shape(code))
                except Exception:  # noqa: BLE001 - a constant whose repr fails: not minitorch's code
                    piece = None
        self._seen[id(code)] = (code, piece)
        return piece

    def _watch(self, frame, event, argument):
        if self._stopping:
            return
        if event == "call":
            piece = self._judge(frame.f_code)
            if piece is not None and not (piece == "PyTorch" and (_after_fork_hook(frame) or self._collected(frame))):
                self._hit(piece, raise_now=False)
        elif event == "c_call":
            seen = self._c_seen.get(id(argument))
            if seen is None or seen[0] is not argument:
                seen = (argument, self._judge_builtin(argument))
                self._c_seen[id(argument)] = seen
            if seen[1] is not None and not (seen[1] == "PyTorch" and self._collected(frame)):
                self._hit(seen[1], raise_now=False)

    def _on_collection(self, phase, info) -> None:
        """``gc.callbacks``: while the garbage collector runs, remember the frame it interrupted."""
        self._collection = sys._getframe(1) if phase == "start" else None

    def _collected(self, frame) -> bool:
        """Whether ``frame`` runs on its own, not for the answer: for the garbage collector freeing objects made
        before the call (a ``weakref.finalize`` of an earlier cell's tensor), or in a signal handler installed
        before it (PyTorch's DataLoader handles SIGCHLD: a child process of an earlier cell ending). Only PyTorch's
        and the standard library's code may lie between ``frame`` and the interrupted frame or that handler; a
        finalizer or handler of the answer's own is code of its own, so PyTorch reached through it still counts."""
        while frame is not None:
            if frame is self._collection or frame.f_code in self._handlers:
                return True
            name = frame.f_code.co_filename
            if not name.startswith(self._library) or "-packages" in name and not name.startswith(self._foreign):
                return False
            frame = frame.f_back
        return False

    def _judge_builtin(self, function) -> str | None:
        key = id(function)
        if key in self._starters:
            return f"another program ({self._starters[key]})"
        if key == self._setprofile_id:
            return "the grader's watch (sys.setprofile)"
        if self._foreign and str(getattr(function, "__module__", None) or "").startswith(_FOREIGN):
            return "PyTorch"
        return None

    # -- switching it on and off ------------------------------------------------------------------------
    def start(self) -> None:
        if self._active or not self.functions:
            return
        if self._finalizers:  # objects of earlier cells left in cycles are finalized now, not during the call
            gc.collect()
        self._active, self._owner, self.hits, self._stopping = True, os.getpid(), [], False
        for (function, _), code in zip(self.functions, self._raising):
            function.__code__ = code
        self._previous_profile = sys.getprofile()
        self._previous_thread_profile = getattr(threading, "_profile_hook", None)
        gc.callbacks.append(self._on_collection)
        self._handlers = {getattr(handler, "__code__", None) for handler in map(signal.getsignal, _SIGNALS)} - {None}
        threading.setprofile(self._watch)
        sys.setprofile(self._watch)

    def stop(self) -> None:
        if not self._active:
            return
        switched_off = sys.getprofile() != self._watch
        self._stopping = True
        sys.setprofile(self._previous_profile)
        threading.setprofile(self._previous_thread_profile)
        if self._on_collection in gc.callbacks:
            gc.callbacks.remove(self._on_collection)
        self._collection = None
        for function, code in self._originals:
            function.__code__ = code
        self._active = self._stopping = False
        if switched_off:
            self.hits.append("the grader's watch (sys.setprofile)")

    def active(self):
        return _Active(self)

    # -- programs of the grading package, which withhold the same pieces --------------------------------
    def run_trusted_program(self, command, *, env=None, timeout=None) -> tuple[int, str]:
        """Run one of the grading package's own rank scripts during the graded call, told to withhold these pieces.

        Starting another program is otherwise a hit (a fresh interpreter has the whole library). The programs
        allowed here are this Python running a script of ``TRUSTED_SCRIPTS``, directly or through minitorch's
        launcher (``-m minitorch.distributed.run --nproc-per-node N script ...``); the script reads the pieces
        from ``MINITORCH_WITHHELD`` (set here, whatever ``env`` says) and withholds them in every process, and
        the caller turns a piece a process reached into a hit with :meth:`record_hit`. Any other command is a hit.
        Returns the exit code and the program's output (stdout and stderr together)."""
        command = [str(part) for part in command]
        if not _trusted_command(command):
            self._hit(f"another program ({command[0] if command else '?'})", raise_now=False)
            raise WithheldPiece(self.message("another program"), "another program")
        environment = dict(os.environ if env is None else env)
        environment["MINITORCH_WITHHELD"] = json.dumps({"exercise": self.exercise, "names": list(self.names)})
        import subprocess

        self._stopping = True  # the watch looks away while this process starts the trusted program
        try:
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT, env=environment, text=True, errors="replace",
                                       start_new_session=True)
        finally:
            self._stopping = False
        return _finish_program(process, timeout)

    def record_hit(self, piece: str) -> None:
        """A process started by :meth:`run_trusted_program` reached ``piece``: the graded call fails naming it."""
        self._hit(str(piece), raise_now=False)

    def first_hit(self) -> str | None:
        return self.hits[0] if self.hits else None


class _Active:
    def __init__(self, guard: Withholding):
        self.guard = guard

    def __enter__(self):
        self.guard.start()
        return self.guard

    def __exit__(self, *exc_info):
        self.guard.stop()
        return False


# The grading package's scripts that withhold the pieces themselves (see Withholding.run_trusted_program).
TRUSTED_SCRIPTS = (os.path.join(os.path.dirname(os.path.abspath(__file__)), "library", "_ddp_rank.py"),)
_LAUNCHER = ("-m", "minitorch.distributed.run", "--nproc-per-node")


def _trusted_command(command: list[str]) -> bool:
    """This Python running a trusted script, directly or through minitorch's launcher with a number of processes."""
    if len(command) < 2 or command[0] != sys.executable:
        return False
    rest = command[1:]
    if tuple(rest[:3]) == _LAUNCHER and len(rest) >= 5 and rest[3].isdigit():
        rest = rest[4:]
    return os.path.abspath(rest[0]) in TRUSTED_SCRIPTS


def _finish_program(process, timeout) -> tuple[int, str]:
    """Wait for ``process`` (started in a session of its own); past ``timeout``, end its whole process group (a
    launcher's ranks too). Returns the exit code and the output."""
    import signal
    import subprocess

    try:
        output, _ = process.communicate(timeout=timeout)
    except BaseException:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except OSError:
            pass
        output, _ = process.communicate()
        if not isinstance(output, str):
            output = ""
        if sys.exc_info()[0] is not subprocess.TimeoutExpired:
            raise
        return -9, output
    return process.returncode, output


def active_guard() -> Withholding | None:
    """The guard whose pieces are withheld right now in this thread (its watch is the profile hook), else None."""
    watch = sys.getprofile()
    owner = getattr(watch, "__self__", None)
    return owner if isinstance(owner, Withholding) and owner._active else None


def _inside(codes) -> bool:
    """Whether a frame running one of ``codes`` is on the current call stack."""
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code in codes:
            return True
        frame = frame.f_back
    return False


def _after_fork_hook(frame) -> bool:
    """Whether ``frame`` is a hook that runs in every new child of a multiprocessing fork: one of
    ``multiprocessing.util``'s after-fork registry (``import torch`` puts one there), or one that
    ``os.register_at_fork`` registered (``torch._inductor`` does), which ``os.fork`` itself calls in the child
    while multiprocessing starts the process. A forked DataLoader worker runs them before any of the
    submission's code, and they compute nothing for the answer. (What such a hook calls is excused with it.)"""
    runner = getattr(sys.modules.get("multiprocessing.util"), "_run_after_forkers", None)
    launch = getattr(getattr(sys.modules.get("multiprocessing.popen_fork"), "Popen", None), "_launch", None)
    bootstrap = getattr(getattr(sys.modules.get("multiprocessing.process"), "BaseProcess", None), "_bootstrap", None)
    runner, launch, bootstrap = (getattr(f, "__code__", None) for f in (runner, launch, bootstrap))
    while frame is not None and frame.f_back is not None:
        caller = frame.f_back.f_code
        if caller is runner and runner is not None:
            return True  # a hook of multiprocessing's after-fork registry
        if caller is launch and launch is not None and frame.f_code is not bootstrap:
            return True  # a hook os.fork ran in the child (the child's own work runs under _bootstrap: not excused)
        frame = frame.f_back
    return False


def _unwrapped(function) -> list:
    """``function`` and what it wraps: a bound method's function, a partial's, ``__wrapped__``, ``__func__``."""
    found, frontier = [], [function]
    while frontier and len(found) < 32:
        candidate = frontier.pop()
        found.append(candidate)
        for attribute in ("__func__", "func", "__wrapped__"):
            try:
                inner = object.__getattribute__(candidate, attribute) if not isinstance(candidate, type) else None
            except AttributeError:
                inner = None
            except Exception:  # noqa: BLE001 - a lying __getattribute__: nothing to unwrap
                inner = None
            if inner is not None and not isinstance(inner, (str, bytes, int)):
                frontier.append(inner)
    return found


def refusal(exercise: str, names, function) -> str | None:
    """Why ``function`` cannot be graded for ``exercise`` (it is a withheld piece itself), else None."""
    return Withholding(exercise, names).refusal(function)
