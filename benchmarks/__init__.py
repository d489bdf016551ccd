"""Side-by-side speed of minitorch, PyTorch (CPU) and hand-written NumPy.

Run ``python benchmarks/run.py`` (``--quick`` for a short run, ``--only NAME`` for one
workload, ``--json FILE`` to keep the numbers). Each module here other than ``run`` and
``workload`` defines ``WORKLOADS``, a list of ``workload.Workload`` objects; ``run.py``
finds them by itself, so a new family of benchmarks is one new module.
"""
