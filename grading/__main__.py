"""``python -m grading``: the batch grader (see :mod:`grading.cli`)."""

import sys

from grading.cli import main

sys.exit(main())
