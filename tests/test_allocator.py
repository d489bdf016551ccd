"""minitorch/_allocator.py: on glibc, minitorch asks malloc to keep freed memory (a speed setting only)."""

import platform
import sys

import numpy as np

from minitorch._allocator import keep_freed_memory


def test_glibc_takes_the_setting_and_other_c_libraries_are_left_alone():
    on_glibc = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"
    assert keep_freed_memory() is on_glibc


def test_results_do_not_depend_on_it():
    """Freed pages come back with old contents: arrays NumPy promises to fill (zeros) still start at zero."""
    keep_freed_memory()
    for _ in range(3):
        dirty = np.full(1 << 20, 7.0)
        del dirty
        assert not np.zeros(1 << 20).any()
