"""``manage.py bench_merge_speed``: the merge decisions it times are the real ones, and it
prints a row per name with its figures."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from bench.merge_speed import synthetic_nodes


def test_the_graph_has_the_size_asked_and_the_nodes_the_names_point_at():
    nodes = synthetic_nodes(300)
    assert len(nodes) == 302
    assert len({n.id for n in nodes}) == 302
    assert {n.kind for n in nodes} == {"PERSON", "ORG", "EVENT", "THING"}
    assert any(n.name == "Priya Raman" and "sister" in n.roles for n in nodes)


def test_the_command_times_each_name_and_reports_the_verdicts():
    out, err = StringIO(), StringIO()
    call_command(
        "bench_merge_speed", "--nodes", "300", "--repeat", "2", "--json", stdout=out, stderr=err
    )
    report = json.loads(out.getvalue())
    rows = {row["name"]: row for row in report["rows"]}
    assert report["nodes"] == 302 and not report["interrupted"]
    assert len(rows) == 5
    # The thing is the car; the first name has many Priyas besides the sister, so it asks.
    assert (rows["the Kuga"]["action"], rows["the Kuga"]["nodes"]) == ("merge", 1)
    assert rows["Priya"]["action"] == "hold"
    for row in rows.values():
        assert 0 < row["least_ms"] <= row["median_ms"]
        assert row["python_calls"] > 100
    # More stored nodes, more work.
    assert rows["Priya"]["python_calls"] > rows["the Kuga"]["python_calls"] * 10
    assert "5/5 names" in err.getvalue()


def test_nonsense_sizes_are_refused():
    with pytest.raises(CommandError):
        call_command("bench_merge_speed", "--nodes", "3", stdout=StringIO())
