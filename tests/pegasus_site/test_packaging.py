"""Packaging metadata that setuptools builds without deprecation warnings."""

import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def test_project_license_is_an_spdx_expression_string():
    # The table form ({text = ...}) makes setuptools >= 77 warn on every build.
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    assert isinstance(project["license"], str)
    assert project["license"] == "LicenseRef-Proprietary"
    assert not any(c.startswith("License ::") for c in project.get("classifiers", []))


def test_every_data_file_of_the_merge_rules_is_packaged():
    # The tables next to memory/core's modules are read at run time; one left out of
    # package-data is missing from a non-editable install.
    listed = set(
        tomllib.loads(PYPROJECT.read_text())["tool"]["setuptools"]["package-data"]["memory.core"]
    )
    on_disk = {p.name for p in (PYPROJECT.parent / "memory" / "core").glob("*.txt")}
    assert on_disk and on_disk <= listed
