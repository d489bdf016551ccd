"""A seccomp filter, compiled by libseccomp, that forbids new user namespaces inside the sandbox.

A user namespace would let the submission mount a tmpfs of its own (memory that no per-process limit
sees) and gain capabilities over its own mounts. bubblewrap's ``--disable-userns`` forbids them, but
only together with ``--unshare-user``; when the grader runs as root, the sandbox has no user
namespace of its own (its processes switch to an unprivileged uid instead), so the same rule is
given to bubblewrap as a seccomp program (``--seccomp FD``), the way Flatpak and Docker do it:

* ``unshare`` and ``clone`` with ``CLONE_NEWUSER`` in their flags fail with ``EPERM``;
* ``clone3`` fails with ``ENOSYS`` (its flags sit in memory a filter cannot read), and the C
  library then falls back to ``clone``, which the rule above checks.

The program is written by libseccomp (``libseccomp.so.2``, present wherever systemd or Docker is),
called through ctypes; without it :func:`user_namespace_filter` returns None and the caller says so.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import tempfile

CLONE_NEWUSER = 0x10000000
_ALLOW = 0x7FFF0000
_SCMP_CMP_MASKED_EQ = 7


def _errno_action(number: int) -> int:
    return 0x00050000 | (number & 0xFFFF)


class _ArgumentComparison(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


def _library():
    name = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
    try:
        library = ctypes.CDLL(name, use_errno=True)
    except OSError:
        return None
    library.seccomp_init.restype = ctypes.c_void_p
    library.seccomp_init.argtypes = [ctypes.c_uint32]
    library.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    library.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint, ctypes.POINTER(_ArgumentComparison)
    ]  # fmt: skip
    library.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    library.seccomp_release.argtypes = [ctypes.c_void_p]
    return library


def user_namespace_filter() -> bytes | None:
    """The compiled BPF program (for bwrap's ``--seccomp``), or None when libseccomp is missing."""
    library = _library()
    if library is None:
        return None
    context = library.seccomp_init(_ALLOW)
    if not context:
        return None
    try:
        new_user = _ArgumentComparison(0, _SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)
        for name in (b"unshare", b"clone"):
            number = library.seccomp_syscall_resolve_name(name)
            if library.seccomp_rule_add_array(context, _errno_action(errno.EPERM), number, 1, ctypes.byref(new_user)):
                return None
        number = library.seccomp_syscall_resolve_name(b"clone3")
        if number >= 0 and library.seccomp_rule_add_array(context, _errno_action(errno.ENOSYS), number, 0, None):
            return None
        with tempfile.TemporaryFile() as handle:
            if library.seccomp_export_bpf(context, handle.fileno()):
                return None
            handle.seek(0)
            return handle.read()
    finally:
        library.seccomp_release(context)


def program_descriptor(program: bytes) -> int:
    """A descriptor bubblewrap can read the program from (a memfd, rewound); the caller closes it."""
    descriptor = os.memfd_create("minitorch-seccomp", 0)  # not inheritable: passed with pass_fds
    os.write(descriptor, program)
    os.lseek(descriptor, 0, os.SEEK_SET)
    return descriptor
