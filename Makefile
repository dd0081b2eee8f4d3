# Pegasus — two commands: `make run` and `make test`. Everything else is set up on demand.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000
export PORT

.PHONY: run test _test_inner lint format check-python venv system-packages clean-db help

help:
	@echo "make run    - the app (Daphne + worker) on http://127.0.0.1:$(PORT)/, embedded Postgres"
	@echo "make test   - lint, format check, migration check and the whole test suite on a throwaway database"

check-python:
	@command -v $(PYTHON) >/dev/null 2>&1 || { \
	  echo "pegasus: Python 3.11 is required but '$(PYTHON)' was not found on PATH (set PYTHON=/path/to/python3.11)"; exit 2; }
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else 1)' || { \
	  echo "pegasus: '$(PYTHON)' is not Python 3.11 (Django 5.2 + the CPU torch wheel need 3.11)"; exit 2; }

# Reinstalls only when pyproject.toml is newer than the last install.
$(VENV)/.installed: pyproject.toml | check-python
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@echo "pegasus: installing dependencies into $(VENV) (first run takes a few minutes)"
	@$(PY) -m pip install --quiet --upgrade pip
	@$(PY) -m pip install --quiet -e '.[dev]'
	@touch $@

venv: $(VENV)/.installed

run: venv
	@$(PY) manage.py serve --port $(PORT)

# Debian packages the suite drives for real: Chromium (browser tests through Playwright, never a
# browser download) and redis-server (the two-Daphne Channels tests). Installed when missing and
# running as root; otherwise one line says what to install, and the tests that need them fail
# with the same hint.
SYSTEM_PACKAGES := chromium redis-server
system-packages:
	@missing=""; for p in $(SYSTEM_PACKAGES); do command -v $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "pegasus: installing Debian's$$missing for the browser and Redis tests"; \
	    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; } \
	      || echo "pegasus: could not install$$missing; the tests that need them will say so"; \
	  else echo "pegasus: the test suite needs Debian's$$missing: sudo apt-get install -y$$missing"; fi; \
	fi

test: venv system-packages
	@$(VENV)/bin/ruff check .
	@$(VENV)/bin/ruff format --check . >/dev/null || { $(VENV)/bin/ruff format --check .; echo "pegasus: run make format"; exit 1; }
	@$(PY) -m pegasus_site.devdb throwaway -- $(MAKE) --no-print-directory _test_inner

# Runs with DATABASE_URL pointing at a throwaway cluster (or the operator's server).
_test_inner:
	@$(PY) manage.py makemigrations --check --dry-run >/dev/null || { echo "pegasus: models and migrations differ; run manage.py makemigrations"; exit 1; }
	@$(PY) -m pytest

lint:
	@$(VENV)/bin/ruff check .
	@$(VENV)/bin/ruff format --check .

format:
	@$(VENV)/bin/ruff format .
	@$(VENV)/bin/ruff check --fix .

clean-db:
	@$(PY) -m pegasus_site.devdb stop
