"""Stage one of batch grading, run inside the sandbox: the submission's cells, then its graded functions.

Usage (by :mod:`grading.sandbox`, never by hand): ``python -s -B _runner.py TASK_DIR OUT_DIR``.

``TASK_DIR`` (read-only) holds ``plan.json`` (the cells to run, the functions to call, the limits) and,
once every cell has run, ``inputs.npz`` (the arguments of every case, public and hidden: the *inputs*
only; the expected answers never enter the sandbox). ``OUT_DIR`` (writable) receives

* ``progress.jsonl``: one line when a step (setup, a cell, a case) begins and one when it ends, which
  tells the supervisor outside what was running when a limit was hit or the process died;
* ``e<k>.npz``: the raw answers of graded part k (arrays only: read back with ``allow_pickle=False``),
  and ``e<k>.json``: how each call ended (answered, raised, timed out, not implemented).

Everything here shares a process with the submission's code, which may overwrite any of these files
or monkeypatch anything. That is fine by design: the score is computed outside the sandbox, by
comparing the arrays with the reference, and no file written here can claim a score. At worst a
submission spoils its own answers. The one rule enforced in here is withholding (an exercise's withheld
pieces, :mod:`grading.withhold`): what it guarantees, and what code that takes it apart in this process
can still do, is in grading/README.md.

This file imports only the standard library until the limits are set and privileges dropped.
"""

import json
import os
import resource
import signal
import sys


class StepTimeout(BaseException):
    """The current cell or call ran past its time limit (raised by SIGALRM)."""


def _set_limits(limits):
    # The memory limit counts address space, so a 6 GB allocation fails with MemoryError instead of
    # taking the machine's memory; the supervisor outside also watches the total of every process.
    pairs = [
        (resource.RLIMIT_AS, limits["memory_bytes"]),
        (resource.RLIMIT_FSIZE, limits["file_bytes"]),
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_NOFILE, 256),
        (resource.RLIMIT_CPU, int(limits["cpu_seconds"])),
    ]
    # RLIMIT_NPROC counts the processes of the real user id. Root is exempt, which is why the
    # supervisor gives us an unprivileged uid to switch to (below) when it runs as root.
    pairs.append((resource.RLIMIT_NPROC, limits["processes"]))
    for which, value in pairs:
        resource.setrlimit(which, (value, value))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an over-long write fails with EFBIG instead of killing


def _drop_privileges(uid, gid):
    if os.getuid() != 0:
        return
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    if os.getuid() != uid or os.geteuid() != uid:
        raise SystemExit("could not drop privileges")
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("CapEff:") and int(line.split()[1], 16) != 0:
                raise SystemExit("capabilities survived the switch to an unprivileged user")


_TOOLS = {}  # what the runner calls after the cells, taken before any submission code runs


class _Events:
    """Writes progress.jsonl through references taken before any submission code runs: rebinding
    ``json.dumps`` or ``os.write`` in the notebook does not change them."""

    def __init__(self, out_dir):
        self.handle = open(os.path.join(out_dir, "progress.jsonl"), "a", buffering=1)
        self.write, self.dumps = self.handle.write, json.dumps

    def __call__(self, **fields):
        try:
            self.write(self.dumps(fields) + "\n")
        except Exception:  # a full disk or a closed file: the supervisor then sees a crash
            pass


class _Steps:
    """Runs one step (a cell, or one call of a graded function) under the step's time limit."""

    def __init__(self, step_seconds, own_pid_namespace):
        self.step_seconds, self.own_pid_namespace = step_seconds, own_pid_namespace
        self.exit_now, self.getpid, self.kill = os._exit, os.getpid, os.kill
        self.alarm, self.install = signal.setitimer, signal.signal
        self.stderr = sys.__stderr__
        self.main_pid = os.getpid()

    @staticmethod
    def _on_alarm(signum, frame):
        raise StepTimeout()

    def run(self, function, seconds=None):
        """(status, error type, line): ok, error, timeout or exit (SystemExit, KeyboardInterrupt). ``seconds``: a
        graded call's own limit (the plan's part says it), else the step limit."""
        self.install(signal.SIGALRM, self._on_alarm)
        self.install(signal.SIGINT, signal.default_int_handler)
        self.alarm(signal.ITIMER_REAL, seconds or self.step_seconds)
        try:
            function()
            outcome = ("ok", None, None)
        except StepTimeout:
            outcome = ("timeout", None, None)
        except BaseException as error:  # noqa: BLE001 - SystemExit, KeyboardInterrupt: the cell ends, the run goes on
            if self.getpid() != self.main_pid:
                self.exit_now(0)  # a forked child failed: it has nothing to report
            kind = "exit" if isinstance(error, (SystemExit, KeyboardInterrupt)) else "error"
            outcome = (kind, type(error).__name__[:100], _cell_line(error))
            self._print_traceback(error)
        finally:
            self.alarm(signal.ITIMER_REAL, 0)
        if self.getpid() != self.main_pid:
            self.exit_now(0)  # a forked child came back into the runner: only the original process goes on
        if self.own_pid_namespace:
            # Leave no process behind a step: kill(-1) reaches every process of ours in the
            # sandbox's own PID namespace (never the supervisor's), and never this one.
            try:
                self.kill(-1, signal.SIGKILL)
            except OSError:
                pass
        return outcome

    def _print_traceback(self, error):
        try:
            import traceback

            frames = error.__traceback__
            while frames is not None and not frames.tb_frame.f_code.co_filename.startswith("<cell "):
                frames = frames.tb_next  # start at the notebook's code, not the runner's
            traceback.print_exception(type(error), error, frames or error.__traceback__, limit=8, file=self.stderr)
        except BaseException:  # noqa: BLE001
            pass


def _start(task_dir):
    """The plan, with the limits set, privileges dropped and the library folder importable."""
    if sys.path and os.path.abspath(sys.path[0] or ".") == os.path.dirname(os.path.abspath(__file__)):
        del sys.path[0]  # the runner's folder is not an import root
    with open(os.path.join(task_dir, "plan.json")) as handle:
        plan = json.load(handle)
    _set_limits(plan["limits"])
    if plan.get("uid") is not None:
        _drop_privileges(plan["uid"], plan["gid"])
    sys.path.insert(0, plan["lib"])
    for stream in (sys.stdout, sys.stderr):
        # line by line, so what was printed before a crash or a kill reaches the instructor's log
        stream.reconfigure(encoding="utf-8", errors="backslashreplace", line_buffering=True)
    return plan


def _run_cells(plan, namespace, event, steps):
    import linecache

    for index, source in plan["cells"]:
        filename = f"<cell {index + 1}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        event(begin="cell", cell=index)
        try:
            code = compile(source, filename, "exec")
        except SyntaxError as error:
            line = error.lineno if isinstance(error.lineno, int) else None
            event(end="cell", cell=index, status="error", error="SyntaxError", line=line)
            print(f"{filename}: SyntaxError: {error.msg} (line {error.lineno})", file=steps.stderr)
            continue
        status, error, line = steps.run(lambda code=code: exec(code, namespace))
        event(end="cell", cell=index, status=status, error=error, line=line)


def _call_case(function, case, input_type, steps, file_bytes, guard=None, seconds=None):
    """One graded call: (the status for e<k>.json, the answer's arrays).

    Besides the answer's arrays, an answered call reports what its values cannot show, for the rules
    the grader enforces outside (as the learner's check does): ``changed``, the positions of the array
    arguments whose values differ after the call (an input written in place), ``graph``, for each
    output the name of its ``grad_fn`` when it is still attached to an autograd graph (else None), and
    ``tuple``, whether the answer was a tuple or list.

    With ``guard`` (the exercise's withheld pieces, :mod:`grading.withhold`), the whole case runs with
    them withheld: the call and the reading of its answer (a tensor subclass's ``numpy`` is the
    submission's code too). A call that reached a withheld piece is ``withheld``, whatever it returned."""
    if guard is None:
        return _judge_case(function, case, input_type, steps, file_bytes, seconds)
    guard.start()
    try:
        result = _judge_case(function, case, input_type, steps, file_bytes, seconds)
    finally:
        guard.stop()
    if guard.hits:
        return {"status": "withheld", "piece": str(guard.hits[0])[:200]}, []
    return result


def _judge_case(function, case, input_type, steps, file_bytes, seconds=None):
    UnsupportedOutput, call_arguments, output_arrays = _TOOLS["compare"]  # noqa: N806 - a class among functions
    answer = {}

    def call():
        answer["arguments"] = call_arguments(case, input_type)
        answer["value"] = function(*answer["arguments"])

    status, error, _ = steps.run(call, seconds)
    if status == "error" and error == "NotImplementedError":
        return {"status": "not_implemented"}, []
    if status == "error":
        return {"status": "error", "error": error}, []
    if status != "ok":
        return {"status": status}, []
    try:
        kinds, arrays = output_arrays(answer.get("value"))
    except UnsupportedOutput as why:
        return {"status": "none" if answer.get("value") is None else "unsupported", "why": str(why)[:100]}, []
    except BaseException as why:  # noqa: BLE001 - a tensor subclass that breaks on .numpy()
        return {"status": "unsupported", "why": type(why).__name__[:100]}, []
    if len(kinds) > 64 or sum(array.nbytes for array in arrays) > file_bytes // 2:
        return {"status": "too_large"}, []
    value = answer["value"]
    outputs = list(value) if isinstance(value, (tuple, list)) else [value]
    status = {
        "status": "ok",
        "kinds": kinds,
        "changed": _changed_arguments(case, answer["arguments"]),
        "graph": [_graph_name(output) for output in outputs] if len(outputs) == len(kinds) else [None] * len(kinds),
        "tuple": isinstance(value, (tuple, list)),
    }
    return status, arrays


def _changed_arguments(case, arguments):
    """Positions of the array arguments whose values (or shape) differ from the case's after the call."""
    array_equal, ndarray = _TOOLS["array_equal"], _TOOLS["ndarray"]
    changed = []
    for position, (original, argument) in enumerate(zip(case, arguments)):
        if not isinstance(original, ndarray):
            continue
        try:
            now = argument if isinstance(argument, ndarray) else argument.detach().cpu().numpy()
            same = now.shape == original.shape and bool(
                array_equal(now, original, equal_nan=original.dtype.kind in "fc")
            )
        except BaseException:  # noqa: BLE001 - an argument replaced by something else entirely
            same = False
        if not same:
            changed.append(position)
    return changed


def _graph_name(output):
    """The name of ``output``'s grad_fn (``SubBackward0``) when it is a tensor attached to a graph, else None."""
    if not isinstance(output, _TOOLS["tensor"]):
        return None
    try:
        node = output.grad_fn
        if node is None:
            return None
        name = node.name() if callable(getattr(node, "name", None)) else type(node).__name__
        return name if isinstance(name, str) and name.isidentifier() and len(name) <= 60 else "Node"
    except BaseException:  # noqa: BLE001
        return "Node"


def _run_part(part, namespace, inputs, event, steps, out_dir, guard=None):
    number = part["number"]
    function = namespace.get(part["function"])
    results, outputs = [], {}
    # with the exercise's withheld pieces (found before the cells ran), no path reaches them while each case
    # runs (grading/withhold.py); an answer that *is* one of them is refused without a call
    refused = guard.answer_piece(function) if guard is not None and callable(function) else None
    _run_cases(part, function, inputs, event, steps, results, outputs, guard, refused)
    try:
        _TOOLS["savez"](os.path.join(out_dir, f"e{number}.npz"), **outputs)
        with open(os.path.join(out_dir, f"e{number}.json"), "w") as handle:
            handle.write(_TOOLS["dumps"](results))
    except BaseException as error:  # noqa: BLE001 - over the file size limit, say
        print(f"could not save the answers of part {number}: {type(error).__name__}", file=steps.stderr)
    event(end="part", part=number)


def _run_cases(part, function, inputs, event, steps, results, outputs, guard=None, refused=None):
    number = part["number"]
    file_bytes = _TOOLS["file_bytes"]
    for case_number, arguments_spec in enumerate(part["cases"]):
        if not callable(function):
            results.append({"status": "missing"})
            continue
        if any(result["status"] == "timeout" for result in results):
            results.append({"status": "skipped"})  # one time-out is enough to fail the part
            continue
        event(begin="case", part=number, case=case_number)
        case = tuple(
            None if spec is None else inputs[spec] if isinstance(spec, str) else spec["scalar"]
            for spec in arguments_spec
        )
        if refused:
            result, arrays = {"status": "withheld", "piece": refused[:200]}, []
        else:
            seconds = part.get("seconds")  # the exercise's own limit for a long call (a training run)
            result, arrays = _call_case(function, case, part["input_type"], steps, file_bytes, guard, seconds)
        for position, array in enumerate(arrays):
            outputs[f"c{case_number}_{position}"] = array
        results.append(result)
        event(end="case", part=number, case=case_number, status=result["status"])


def main():
    task_dir, out_dir = sys.argv[1], sys.argv[2]
    plan = _start(task_dir)
    event = _Events(out_dir)
    steps = _Steps(float(plan["limits"]["step_seconds"]), plan.get("own_pid_namespace"))

    event(begin="setup")
    import time

    import numpy as np

    import minitorch  # imported here, so a broken install is the grader's error, not a cell's
    from grading.compare import UnsupportedOutput, call_arguments, output_arrays
    from grading.withhold import Withholding

    _TOOLS.update(
        compare=(UnsupportedOutput, call_arguments, output_arrays),
        savez=np.savez,
        load=np.load,
        dumps=json.dumps,
        exists=os.path.exists,
        sleep=time.sleep,
        array_equal=np.array_equal,
        ndarray=np.ndarray,
        tensor=minitorch.Tensor,
    )
    event(end="setup")

    import builtins
    import types

    # The cells run in a module of their own named __main__, as in a Jupyter kernel: ``import __main__``
    # finds the notebook's names (and pickles its functions by reference), not this runner.
    main_module = types.ModuleType("__main__")
    namespace = main_module.__dict__
    namespace.update({"__builtins__": builtins, "display": _display})
    sys.modules["__main__"] = main_module
    # Each part's withheld pieces are found now, before any cell runs: a cell that rebinds a piece's name
    # (F.linear = something) cannot make the guard withhold the wrong object (grading/withhold.py).
    guards = {
        part["number"]: Withholding(part.get("exercise") or part["function"], part["withheld"])
        for part in plan["parts"]
        if part.get("withheld")
    }
    _run_cells(plan, namespace, event, steps)
    if plan["parts"]:
        inputs = _wait_for_inputs(task_dir, event)
    _TOOLS["file_bytes"] = int(plan["limits"]["file_bytes"])
    for part in plan["parts"]:
        _run_part(part, namespace, inputs, event, steps, out_dir, guards.get(part["number"]))
    event(end="run")
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001
        pass
    event.handle.close()
    steps.exit_now(0)


def _wait_for_inputs(task_dir, event):
    """The cases' inputs, public and hidden, which the supervisor puts in the task folder only once
    every cell has run: code in a cell cannot read a hidden input and tell it through its own
    feedback (an exit status, a line number, which cell failed)."""
    event(begin="inputs")
    path = os.path.join(task_dir, "inputs.npz")
    while not _TOOLS["exists"](path):
        _TOOLS["sleep"](0.005)  # the supervisor's step limit ends the wait if the inputs never come
    with _TOOLS["load"](path, allow_pickle=False) as archive:
        inputs = {key: archive[key] for key in archive.files}
    event(end="inputs")
    return inputs


def _cell_line(error):
    """The line, in the innermost notebook cell of the traceback, where ``error`` was raised."""
    line = None
    traceback = error.__traceback__
    while traceback is not None:
        if traceback.tb_frame.f_code.co_filename.startswith("<cell "):
            line = traceback.tb_lineno
        traceback = traceback.tb_next
    return line


def _display(*objects, **options):
    """Jupyter's ``display``, for notebooks that call it: prints instead."""
    print(*objects)


if __name__ == "__main__":
    main()
