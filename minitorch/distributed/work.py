"""``Work``: the handle a collective returns with ``async_op=True``.

A collective launched asynchronously runs while Python goes on (MPI moves the bytes when
the process next asks it for progress); ``work.wait()`` blocks until it has finished and
its result is in the output tensors. ``is_completed()`` asks without blocking. With
``async_op=False`` (the default) the collective calls ``wait()`` itself before returning.

    >>> import minitorch.distributed as dist             # doctest: +SKIP
    >>> work = dist.all_reduce(gradient, async_op=True)   # doctest: +SKIP
    >>> ...                                               # compute something else meanwhile
    >>> work.wait()                                       # gradient now holds the sum
    True

A backend subclasses ``Work`` and defines ``_test`` (has the transfer finished?) and
``_block`` (wait for it, within a timeout). ``_finish`` then runs once, on the waiting
process: it copies results out of staging buffers and, for ``ReduceOp.AVG``, divides.
"""

from __future__ import annotations

from datetime import timedelta

__all__ = ["Work"]


class Work:
    """A collective in flight: ``wait()``, ``is_completed()``, ``is_success()``, ``exception()``."""

    def __init__(self, description: str, finish=None):
        self._description = description  # "all_reduce (collective #3 of group 0, ranks [0, 1])"
        self._finish_steps = [finish] if finish is not None else []
        self._completed = False
        self._error = None

    @property
    def description(self) -> str:
        return self._description

    # -- what a backend provides --------------------------------------------------
    def _test(self) -> bool:  # pragma: no cover - every backend overrides it
        raise NotImplementedError(f"{type(self).__name__} must define _test: has the operation finished?")

    def _block(self, timeout_seconds: float | None) -> None:  # pragma: no cover
        raise NotImplementedError(f"{type(self).__name__} must define _block: wait for the operation")

    # -- the public API (PyTorch's names) -----------------------------------------
    def then(self, step) -> Work:
        """Run ``step()`` once the transfer has finished (before ``wait`` returns)."""
        self._finish_steps.append(step)
        return self

    def is_completed(self) -> bool:
        """Has the collective finished? Never blocks; the results are in place once this is True."""
        if not self._completed and self._error is None and self._test():
            self._complete()
        return self._completed

    def wait(self, timeout: timedelta | None = None) -> bool:
        """Block until the collective has finished (or raise, naming the rank it waited for)."""
        if self._error is not None:
            raise self._error
        if not self._completed:
            seconds = timeout.total_seconds() if isinstance(timeout, timedelta) else timeout
            try:
                self._block(seconds)
            except Exception as error:
                self._error = error
                raise
            self._complete()
        return True

    def is_success(self) -> bool:
        return self._completed and self._error is None

    def exception(self):
        return self._error

    def _complete(self) -> None:
        self._completed = True
        steps, self._finish_steps = self._finish_steps, []
        for step in steps:
            step()

    def __repr__(self) -> str:
        state = "completed" if self._completed else ("failed" if self._error is not None else "in flight")
        return f"<Work {self.description}: {state}>"
