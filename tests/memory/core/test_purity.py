"""The core stays pure: no Django, no wall clock (STYLE point 3, SPEC §3)."""

import pathlib
import subprocess
import sys

import pytest

CORE = pathlib.Path(__file__).resolve().parents[3] / "memory" / "core"
MODULES = sorted(p.stem for p in CORE.glob("*.py") if p.stem != "__init__")


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
    source = (CORE / f"{module}.py").read_text()
    for forbidden in ("datetime.now(", "timezone.now(", "time.time(", "utcnow(", "date.today("):
        assert forbidden not in source
