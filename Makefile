# The quick start is two commands: `make lab` (open the course) and `make test` (run the whole suite).
# Both create .venv on first use; later runs reuse it and re-install only when pyproject.toml changes.
#
#   make lab         JupyterLab on the course (extra options: make lab LAB_ARGS="--no-browser --port 8899")
#   make test        the whole test suite, on every core (select tests: make test PYTEST_ARGS="-k matmul -x")
#   make test-gpu    the op-table tests on a CUDA GPU (installs the cuda extra, CuPy)
#   make gpu-check   on a machine with a GPU, in under 8 minutes: the GPU API tests, a 1-GPU NCCL DDP job, the
#                    DeviceTimer sweep saved for chapter 3, the op table; a summary (tools/gpu_check.py). Without
#                    a GPU it says so and fails; `python tools/gpu_check.py --dry-run` runs it on the stand-in
#   make test-gpu-standin  without a GPU: the op table on the CuPy stand-in (tests/gpu_standin), as CI runs it
#   make lint        ruff over the whole tree, and import-linter's layers (.importlinter)
#   make learner-dist      dist/learner/: what a class hands to learners (the kit's wheel without the answer key,
#                          and the learner's notebooks); make instructor-dist: dist/instructor/, the answer key
#                          and the batch grader as a second wheel (tools/dist.py)

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PYTEST_ARGS ?=
LAB_ARGS ?=

# The course as a learner gets it: the chapters' learner edition and the widgets tour beside them.
LAB_ROOT := notebooks/release

# Programs that tools start by name (nbgrader runs `alembic`, nbclient starts kernels with `jupyter`
# tools) come from .venv/bin, whether or not anyone activated the virtual environment.
export PATH := $(CURDIR)/$(BIN):$(PATH)

# JupyterLab refuses to start as root unless told it may (containers often run as root).
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root)

# Each install leaves a stamp whose prerequisite is pyproject.toml: a changed pyproject.toml
# re-installs; otherwise the install step is skipped.
stamp = $(VENV)/.installed-$(1)

# What each stamp installs: the kit (with onnx and ONNX Runtime for the deployment chapter, MPI for chapter 12's
# processes), the kit with the test tools, and the test tools with CuPy.
EXTRAS_base := [deploy,distributed]
EXTRAS_test := [test]
EXTRAS_gpu := [test,cuda]

.PHONY: lab test test-gpu test-gpu-standin gpu-check lint learner-dist instructor-dist

# The lab of the kit saves widget state with the notebook (JupyterLab's default is not to), so a saved
# chapter reopens with its widgets instead of "Error displaying widget: model not found"; and it starts
# the default kernel (Python 3) when a notebook opens, instead of a "Select Kernel" dialog that blocks a
# learner who has not chosen one yet. The settings are jupyter-config/lab/overrides.json.
LAB_SETTINGS := jupyter-config/lab/overrides.json
LAB_OVERRIDES := $(VENV)/share/jupyter/lab/settings/overrides.json

# With JupyterLab's default settings (no widget state saved), the kit's Jupyter server extension
# (widgets/saving.py) keeps saved notebooks showing each widget's static picture instead of that error.
# pip installs pyproject.toml's data-files (which enable it) only when the install is not editable,
# so every install step here enables it in the environment itself.
SERVER_CONFIG := jupyter-config/jupyter_server_config.d/minitorch-kit.json
SERVER_EXTENSION := $(VENV)/etc/jupyter/jupyter_server_config.d/minitorch-kit.json

lab: $(call stamp,base) $(LAB_OVERRIDES) $(SERVER_EXTENSION)
	$(BIN)/jupyter lab $(ALLOW_ROOT) $(LAB_ARGS) $(LAB_ROOT)

$(LAB_OVERRIDES): $(LAB_SETTINGS) | $(BIN)/python
	@mkdir -p $(dir $@)
	cp $(LAB_SETTINGS) $@

$(SERVER_EXTENSION): $(SERVER_CONFIG) | $(BIN)/python
	@mkdir -p $(dir $@)
	cp $(SERVER_CONFIG) $@

# The suite runs side by side on every core, at most 4 (pytest-xdist; its heaviest tests start processes of their
# own). Each test file runs on one worker (--dist loadfile), so a fixture its tests share (the learner's kit, the
# graded batch, the corpus's runs, a DDP job) is built once, and the files that take minutes go out first
# (tests/conftest.py); the tests marked `serial` measure wall-clock time or work close to a time limit, so they run
# afterwards, alone. TEST_WORKERS=0 runs everything in one process.
TEST_WORKERS ?= auto

test: $(call stamp,test)
	status=0; \
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --maxprocesses 4 --dist loadfile --no-loadscope-reorder \
		-m "not serial" $(PYTEST_ARGS) || status=$$?; \
	$(BIN)/python -m pytest -m serial $(PYTEST_ARGS) || [ $$? = 5 ] || status=1; \
	exit $$status

test-gpu: $(call stamp,gpu)
	MINITORCH_TEST_DEVICE=cuda $(BIN)/python -m pytest tests/ops $(PYTEST_ARGS)

# The GPU code path without a GPU: cuda tensors hold the stand-in's arrays, which refuse implicit copies to
# NumPy and offer only CuPy's names (tests/gpu_standin/__init__.py says how).
test-gpu-standin: $(call stamp,test)
	MINITORCH_GPU_STANDIN=1 MINITORCH_TEST_DEVICE=cuda $(BIN)/python -m pytest tests/ops tests/test_gpu_standin.py \
		tests/gpu_standin tests/test_cuda_device.py $(PYTEST_ARGS)

# Checked for a GPU first (nvidia-smi), before installing CuPy: without one it stops with the reason.
gpu-check:
	@$(PYTHON) tools/gpu_check.py --preflight
	@$(MAKE) --no-print-directory $(call stamp,gpu)
	$(BIN)/python tools/gpu_check.py

lint: $(call stamp,test)
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-cache

# The two distributions a class uses (tools/dist.py says what goes where). Both are built from this checkout,
# which keeps everything: `make lab` here is the self-study route, with the answer key beside the course.
learner-dist: $(call stamp,base)
	$(BIN)/python tools/dist.py learner dist/learner

instructor-dist: $(call stamp,base)
	$(BIN)/python tools/dist.py instructor dist/instructor

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10) and "Python 3.10+ is needed: $(PYTHON) is " + sys.version.split()[0])'
	$(PYTHON) -m venv --upgrade-deps $(VENV)

$(VENV)/.installed-%: pyproject.toml $(SERVER_CONFIG) | $(BIN)/python
	$(BIN)/python -m pip install -e ".$(EXTRAS_$*)"
	@mkdir -p $(dir $(SERVER_EXTENSION))
	cp $(SERVER_CONFIG) $(SERVER_EXTENSION)
	@touch $@
