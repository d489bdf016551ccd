"""One module per chapter, registering that chapter's exercises (see :mod:`grading.registry`).

The module's name is the chapter's prefix: exercise ``"ch02.linear_forward"`` lives in
``grading/exercises/ch02.py`` and is imported the first time it is checked.
"""
