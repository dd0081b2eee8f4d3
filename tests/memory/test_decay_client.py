"""The explorer redraws strengths in the browser: its decay maths must be the core's.

The constants reach the page from ``memory.core.decay.client_constants`` (never a copy in the
script), and the script's formula (``static/js/explorer/decay.js``) is run in node on a table
of inputs and compared with ``memory.core.decay.strength_at``.
"""

import html
import json
import math
import re
import shutil
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.urls import reverse

from memory.core.decay import LAMBDA, client_constants, strength_at

DECAY_JS = Path(__file__).resolve().parents[2] / "static" / "js" / "explorer" / "decay.js"
T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)

# (s0, stability, seconds from the touch to "now"): every stability, fractions of a day, a
# touch in the future (counts as 0 days), and ages where the exponent hits its floor.
TABLE = [
    (s0, stability, seconds)
    for s0 in (0.0, 2.0, 37.5, 100.0)
    for stability in sorted(LAMBDA)
    for seconds in (-86_400, 0, 1, 3_600, 86_400 * 7.25, 86_400 * 196, 86_400 * 4_000)
]


def _run_in_node(rows: list[tuple[float, str, float]], constants: dict | None = None) -> list:
    node = shutil.which("node")
    assert node, "node is needed to check the explorer's decay maths (and to build it)"
    script = (
        f"import {{ strengthAt }} from {json.dumps(DECAY_JS.as_uri())};\n"
        "const { constants, rows, t0 } = JSON.parse(process.argv[1]);\n"
        "const out = rows.map(([s0, stability, seconds]) =>\n"
        "  strengthAt(constants, s0, stability, t0, t0 + seconds * 1000));\n"
        "process.stdout.write(JSON.stringify(out));\n"
    )
    constants = client_constants() if constants is None else constants
    payload = {"constants": constants, "rows": rows, "t0": T0.timestamp() * 1000}
    done = subprocess.run(
        [node, "--input-type=module", "-e", script, json.dumps(payload)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout)


def test_the_scripts_strength_equals_the_core_on_a_table_of_inputs():
    got = _run_in_node(TABLE)
    assert len(got) == len(TABLE)
    for (s0, stability, seconds), value in zip(TABLE, got, strict=True):
        expected = strength_at(s0, stability, T0, T0 + timedelta(seconds=seconds))
        assert value == pytest.approx(expected, rel=1e-12, abs=1e-300), (s0, stability, seconds)


def test_the_script_takes_its_rates_from_the_constants_it_is_given():
    # No table of its own: other constants give other answers.
    rows = [(100.0, "mutable", 86_400 * 10)]
    faster = client_constants() | {"lambda": {**LAMBDA, "mutable": 0.5}}
    assert _run_in_node(rows, faster)[0] == pytest.approx(100.0 * math.exp(-5.0), rel=1e-12)


@pytest.mark.django_db
def test_the_explorer_page_carries_the_cores_decay_constants(client, alice):
    client.force_login(alice)
    page = client.get(reverse("memory:explorer")).content.decode()
    match = re.search(r'data-decay="([^"]*)"', page)
    assert match, "the explorer shell must carry the decay constants"
    assert json.loads(html.unescape(match.group(1))) == client_constants()
    assert client_constants()["lambda"] == LAMBDA
