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
