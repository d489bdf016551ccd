"""Stage one of batch grading, run inside the sandbox: the submission's cells, then its graded functions.

Usage (by :mod:`grading.sandbox`, never by hand): ``python -s -B _runner.py TASK_DIR OUT_DIR``.

``TASK_DIR`` (read-only) holds ``plan.json`` (the cells to run, the functions to call, the limits) and
``inputs.npz`` (the arguments of every case, public and hidden: the *inputs* only; the expected answers
never enter the sandbox). ``OUT_DIR`` (writable) receives

* ``progress.jsonl``: one line when a step (setup, a cell, a case) begins and one when it ends, which
  tells the supervisor outside what was running when a limit was hit or the process died;
* ``e<k>.npz``: the raw answers of graded part k (arrays only: read back with ``allow_pickle=False``),
  and ``e<k>.json``: how each call ended (answered, raised, timed out, not implemented).

Everything here shares a process with the submission's code, which may overwrite any of these files
or monkeypatch anything. That is fine by design: the score is computed outside the sandbox, by
comparing the arrays with the reference, and no file written here can claim a score. At worst a
submission spoils its own answers.

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


def main():
    task_dir, out_dir = sys.argv[1], sys.argv[2]
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

    # Our own references, taken before any submission code runs: rebinding os._exit or json.dumps in
    # the notebook does not change them.
    progress = open(os.path.join(out_dir, "progress.jsonl"), "a", buffering=1)
    write, dumps, exit_now, getpid = progress.write, json.dumps, os._exit, os.getpid
    kill, alarm, install = os.kill, signal.setitimer, signal.signal
    stderr = sys.__stderr__

    def event(**fields):
        try:
            write(dumps(fields) + "\n")
        except Exception:  # a full disk or a closed file: the supervisor then sees a crash
            pass

    def on_alarm(signum, frame):
        raise StepTimeout()

    step_seconds = float(plan["limits"]["step_seconds"])
    main_pid = getpid()

    def run_step(function):
        """(status, error type, line): ok, error, timeout or exit (SystemExit, KeyboardInterrupt)."""
        install(signal.SIGALRM, on_alarm)
        install(signal.SIGINT, signal.default_int_handler)
        alarm(signal.ITIMER_REAL, step_seconds)
        try:
            function()
            outcome = ("ok", None, None)
        except StepTimeout:
            outcome = ("timeout", None, None)
        except BaseException as error:  # noqa: BLE001 - SystemExit, KeyboardInterrupt: the cell ends, the run goes on
            if getpid() != main_pid:
                exit_now(0)  # a forked child failed: it has nothing to report
            outcome = (
                "exit" if isinstance(error, (SystemExit, KeyboardInterrupt)) else "error",
                type(error).__name__,
                _cell_line(error),
            )
            try:
                import traceback

                frames = error.__traceback__
                while frames is not None and not frames.tb_frame.f_code.co_filename.startswith("<cell "):
                    frames = frames.tb_next  # start at the notebook's code, not the runner's
                traceback.print_exception(type(error), error, frames or error.__traceback__, limit=8, file=stderr)
            except BaseException:  # noqa: BLE001
                pass
        finally:
            alarm(signal.ITIMER_REAL, 0)
        if getpid() != main_pid:
            exit_now(0)  # a forked child came back into the runner: only the original process goes on
        if plan.get("own_pid_namespace"):
            # Leave no process behind a step: kill(-1) reaches every process of ours in the
            # sandbox's own PID namespace (never the supervisor's), and never this one.
            try:
                kill(-1, signal.SIGKILL)
            except OSError:
                pass
        return outcome

    event(begin="setup")
    import numpy as np

    import minitorch  # noqa: F401 - imported here, so a broken install is the grader's error, not a cell's
    from grading.compare import UnsupportedOutput, call_arguments, output_arrays

    with np.load(os.path.join(task_dir, "inputs.npz"), allow_pickle=False) as archive:
        inputs = {key: archive[key] for key in archive.files}
    save = np.savez
    event(end="setup")

    import builtins
    import linecache

    namespace = {"__name__": "__main__", "__builtins__": builtins, "display": _display}
    skip = set(plan.get("skip_cells", []))
    for index, source in plan["cells"]:
        if index in skip:
            continue
        filename = f"<cell {index + 1}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        event(begin="cell", cell=index)
        try:
            code = compile(source, filename, "exec")
        except SyntaxError as error:
            event(end="cell", cell=index, status="error", error="SyntaxError", line=error.lineno)
            print(f"{filename}: SyntaxError: {error.msg} (line {error.lineno})", file=stderr)
            continue
        status, error, line = run_step(lambda code=code: exec(code, namespace))
        event(end="cell", cell=index, status=status, error=error, line=line)

    for part in plan["parts"]:
        number = part["number"]
        function = namespace.get(part["function"])
        results, outputs = [], {}
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
            answer = {}

            def call(case=case, answer=answer, function=function, input_type=part["input_type"]):
                answer["value"] = function(*call_arguments(case, input_type))

            status, error, _ = run_step(call)
            result = {"status": status}
            if status == "error" and error == "NotImplementedError":
                result = {"status": "not_implemented"}
            elif status == "error":
                result["error"] = error
            elif status == "ok":
                try:
                    kinds, arrays = output_arrays(answer.get("value"))
                    result["kinds"] = kinds
                    for position, array in enumerate(arrays):
                        outputs[f"c{case_number}_{position}"] = array
                except UnsupportedOutput as why:
                    result = {"status": "none" if answer.get("value") is None else "unsupported", "why": str(why)}
                except BaseException as why:  # noqa: BLE001 - a tensor subclass that breaks on .numpy()
                    result = {"status": "unsupported", "why": type(why).__name__}
            results.append(result)
            event(end="case", part=number, case=case_number, status=result["status"])
        try:
            save(os.path.join(out_dir, f"e{number}.npz"), **outputs)
            with open(os.path.join(out_dir, f"e{number}.json"), "w") as handle:
                handle.write(dumps(results))
        except BaseException as error:  # noqa: BLE001 - over the file size limit, say
            print(f"could not save the answers of part {number}: {type(error).__name__}", file=stderr)
        event(end="part", part=number)

    event(end="run")
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001
        pass
    progress.close()
    exit_now(0)


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
