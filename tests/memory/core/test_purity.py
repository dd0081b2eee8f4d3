"""The core stays pure: no Django, no wall clock (STYLE point 3, SPEC §3)."""

import pathlib
import subprocess
import sys

import pytest

CORE = pathlib.Path(__file__).resolve().parents[3] / "memory" / "core"


def _module(path: pathlib.Path) -> str:
    """``cleaning/batch.py`` → ``cleaning.batch``; a package's ``__init__.py`` → its name."""
    parts = path.relative_to(CORE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


# Every module, those inside core's packages (memory/core/cleaning/) included.
SOURCES = {_module(p): p for p in CORE.rglob("*.py") if p != CORE / "__init__.py"}
MODULES = sorted(SOURCES)


def test_every_core_module_is_covered():
    assert set(MODULES) >= {
        "words",
        "seeding",
        "activation",
        "injection",
        "decay",
        "cleaning",
        "merge_rules",
    }


def test_importing_the_core_does_not_import_django():
    code = (
        "import sys\n"
        + "".join(f"import memory.core.{m}\n" for m in MODULES)
        + "print(sorted(m for m in sys.modules if m.split('.')[0] == 'django'))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=CORE.parents[1],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("module", MODULES)
def test_core_code_never_reads_the_clock(module):
    source = SOURCES[module].read_text()
    for forbidden in ("datetime.now(", "timezone.now(", "time.time(", "utcnow(", "date.today("):
        assert forbidden not in source
