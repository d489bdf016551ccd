"""The two install routes name the same dependencies: pyproject.toml (pip) and environment.yml (conda).

A runtime dependency added to one file and forgotten in the other breaks one route only, and
only for the learners who take it; these tests make the omission a test failure instead.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml
from hypothesis import settings

from tests.support import in_ci

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, from PyPI (the test extra installs it)
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent

# Python packages whose conda-forge name differs from their PyPI name.
CONDA_NAME = {"graphviz": "python-graphviz"}
# Conda packages that are not Python dependencies: the interpreter, pip itself, and Graphviz's
# `dot` program, which the Python package "graphviz" runs but pip cannot install.
CONDA_ONLY = {"python", "pip", "graphviz"}


def _split(requirement: str) -> tuple[str, str]:
    """``"numpy>=1.24 ; python_version<'3.11'"`` -> ``("numpy", ">=1.24")``: normalised name, version spec."""
    requirement = requirement.split(";")[0].split("#")[0]
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(.*)", requirement)
    assert match, f"cannot read the requirement {requirement!r}"
    name, spec = match.groups()
    return re.sub(r"[-_.]+", "-", name).lower(), spec.replace(" ", "")


def _pyproject() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as file:
        return tomllib.load(file)


def _environment() -> dict:
    with open(ROOT / "environment.yml") as file:
        return yaml.safe_load(file)


def _conda_requirements() -> dict[str, str]:
    """The conda packages of environment.yml, name -> version spec."""
    entries = [entry for entry in _environment()["dependencies"] if isinstance(entry, str)]
    return dict(_split(entry) for entry in entries)


def _pip_requirements() -> list[str]:
    """The ``pip:`` section of environment.yml."""
    sections = [entry["pip"] for entry in _environment()["dependencies"] if isinstance(entry, dict)]
    return [line for section in sections for line in section]


def test_environment_uses_conda_forge_only():
    assert _environment()["channels"] == ["conda-forge"]


def _pip_only() -> dict[str, str]:
    """Runtime dependencies that conda-forge does not package, installed by environment.yml's pip section."""
    return dict(_split(line.replace("[wasmtime]", "")) for line in _pip_requirements() if line.strip() != "-e .")


# Extras the conda route installs too (the course's deployment chapter runs ONNX Runtime; chapter 12 runs
# DistributedDataParallel through mpi4py and MPICH's mpiexec).
CONDA_EXTRAS = ("deploy", "distributed")


def _runtime_requirements() -> list[str]:
    """The requirements environment.yml mirrors: the dependencies and the extras in ``CONDA_EXTRAS``."""
    project = _pyproject()["project"]
    extras = [r for extra in CONDA_EXTRAS for r in project["optional-dependencies"][extra]]
    return project["dependencies"] + extras


def test_every_runtime_dependency_is_in_environment_yml():
    conda = _conda_requirements()
    pip_only = _pip_only()
    for requirement in _runtime_requirements():
        name, spec = _split(requirement.replace("[wasmtime]", ""))
        if name in pip_only:
            assert pip_only[name] == spec, (
                f"{name}: pyproject.toml asks for {spec!r}, environment.yml's pip section for {pip_only[name]!r}"
            )
            continue
        conda_name = CONDA_NAME.get(name, name)
        assert conda_name in conda, f"pyproject.toml needs {requirement!r}; environment.yml lacks {conda_name!r}"
        assert conda[conda_name] == spec, (
            f"{name}: pyproject.toml asks for {spec!r} but environment.yml for {conda[conda_name]!r}"
        )


def test_the_test_extra_includes_the_distributed_extra():
    extras = _pyproject()["project"]["optional-dependencies"]
    assert set(extras["distributed"]) <= set(extras["test"])


def test_environment_yml_has_nothing_pyproject_lacks():
    python_names = {
        CONDA_NAME.get(name, name)
        for name, _ in (_split(r.replace("[wasmtime]", "")) for r in _runtime_requirements())
    }
    extra = set(_conda_requirements()) - python_names - CONDA_ONLY
    assert not extra, f"environment.yml installs {sorted(extra)}, which pyproject.toml does not list"


def test_environment_yml_has_graphviz_dot_python_and_pip():
    # Graphviz's `dot` is a program, not a Python package: conda is the one route that installs it.
    assert CONDA_ONLY <= set(_conda_requirements())


def test_python_versions_agree():
    assert _conda_requirements()["python"] == _pyproject()["project"]["requires-python"].replace(" ", "")


def test_environment_yml_installs_the_kit_itself():
    assert "-e ." in _pip_requirements()


def test_hypothesis_is_derandomized_exactly_in_ci():
    # tests/conftest.py loads the "ci" profile under MINITORCH_CI=1, so CI runs are reproducible.
    assert settings.default.derandomize == in_ci()
