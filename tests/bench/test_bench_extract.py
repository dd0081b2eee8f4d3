"""``manage.py bench_extract``: CPU per conversation of the offline extractor."""

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

SAMPLE = Path(__file__).resolve().parents[2] / "bench" / "fixtures" / "locomo_sample.json"


def test_it_measures_every_conversation_of_the_file():
    out, err = StringIO(), StringIO()
    call_command("bench_extract", str(SAMPLE), "--turns", "5", "--json", stdout=out, stderr=err)
    figures = json.loads(out.getvalue())
    assert figures["turns_per_conversation"] == 5
    assert figures["conversations"] >= figures["turns"] / 5 > 0
    cpu = figures["cpu_s_per_conversation"]
    assert 0 < cpu["p50"] <= cpu["p95"] <= cpu["max"]
    assert figures["edges_per_100_turns"] > 0
    assert "conversations:" in err.getvalue()


def test_a_bad_turn_count_is_a_clear_error():
    with pytest.raises(CommandError, match="--turns"):
        call_command("bench_extract", str(SAMPLE), "--turns", "0")
