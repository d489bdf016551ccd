"""nbgrader settings for the minitorch course (this folder is an nbgrader course folder).

``source/NN_topic/*.ipynb`` is the instructor's edition (solutions, hidden tests); the learner's
edition in ``release/`` is generated from it, from this folder, with::

    nbgrader generate_assignment NN_topic --force

(nbgrader is the ``instructor`` extra: ``pip install -e ".[instructor]"``). Solutions become a stub
that raises ``NotImplementedError``, which the check helpers report as "not implemented yet".
Grading: ``minitorch-grade`` (sandboxed; see grading/cli.py), or ``nbgrader autograde`` with the
hardened settings loaded below (see their known limits in grading/nbgrader_hardened_config.py).
"""

import os

c = get_config()  # noqa: F821 - provided by traitlets when nbgrader loads this file

here = os.path.dirname(os.path.abspath(__file__))
load_subconfig(os.path.join(here, os.pardir, "grading", "nbgrader_hardened_config.py"))  # noqa: F821

c.CourseDirectory.root = here
c.CourseDirectory.course_id = "minitorch"
c.CourseDirectory.db_url = "sqlite:///" + os.path.join(here, "gradebook.db")
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
# generate_assignment adds the assignment to the gradebook when it is not there yet.
c.GenerateAssignment.create_assignment = True
