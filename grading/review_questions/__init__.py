"""Each chapter's review questions, as data: ``chNN.py`` holds a list ``QUESTIONS`` (see :mod:`grading.review`)."""
