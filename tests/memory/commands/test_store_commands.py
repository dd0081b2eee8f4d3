"""import_graph, export_graph, decay and reembed from the command line (SPEC §6.3)."""

import io
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from memory.models import Edge, MemoryKey, Node
from memory.services.graph_io import canonical_graph, import_graph

pytestmark = pytest.mark.django_db

RICH = Path(__file__).resolve().parent.parent / "fixtures" / "rich_graph.json"
NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


def run(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_import_graph_command_imports_and_summarises(alice):
    out = run("import_graph", str(RICH), "--user", "alice", "--now", "2026-03-02T12:00:00Z")
    last = out.strip().splitlines()[-1]
    assert last.startswith("imported into alice: 12 nodes, 13 edges, 3 episodes, 10 snippets, ")
    assert Node.objects.for_user(alice).count() == 12
    assert Edge.objects.for_user(alice).get(relation="TRAINS_FOR").created_at == NOW


def test_export_graph_command_prints_only_json_to_stdout(alice):
    import_graph(user=alice, data=json.loads(RICH.read_text(encoding="utf-8")), now=NOW)
    exported = json.loads(run("export_graph", "--user", "alice"))
    assert canonical_graph(exported) == canonical_graph(json.loads(RICH.read_text("utf-8")))


def test_export_then_import_through_files_round_trips(alice, bob, tmp_path):
    import_graph(user=alice, data=json.loads(RICH.read_text(encoding="utf-8")), now=NOW)
    first, second = tmp_path / "alice.json", tmp_path / "bob.json"
    out = run("export_graph", str(first), "--user", "alice")
    assert out.strip() == f"exported 12 nodes, 13 edges, 3 episodes of alice to {first}"
    run("import_graph", str(first), "--user", "bob")
    run("export_graph", str(second), "--user", "bob")
    assert canonical_graph(json.loads(second.read_text("utf-8"))) == canonical_graph(
        json.loads(first.read_text("utf-8"))
    )


def test_bobs_export_command_shows_nothing_of_alices(alice, bob):
    import_graph(user=alice, data=json.loads(RICH.read_text(encoding="utf-8")), now=NOW)
    exported = json.loads(run("export_graph", "--user", "bob"))
    assert exported == {"format": "pegasus-graph/1", "nodes": [], "edges": [], "episodes": []}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read"),
        (
            b"{not json",
            "is not valid JSON: Expecting property name enclosed in double quotes "
            "at line 1 column 2",
        ),
        (b"\xff\xfe{}", "is not UTF-8 text"),
        (
            b'{"format": "pegasus-graph/1", "nodes": [{"id": "n1", "kind": "ANIMAL", '
            b'"name": "Rex"}]}',
            'nodes[0] (id "n1"): "kind" must be one of',
        ),
    ],
    ids=["missing file", "invalid json", "not utf-8", "format error"],
)
def test_import_graph_command_fails_with_a_clear_one_line_error(alice, tmp_path, content, message):
    path = tmp_path / "graph.json"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(CommandError) as caught:
        run("import_graph", str(path), "--user", "alice")
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)
    assert Node.objects.for_user(alice).count() == 0


def test_import_graph_command_reports_clashing_nodes(alice, tmp_path):
    run("import_graph", str(RICH), "--user", "alice")
    with pytest.raises(CommandError, match="12 nodes of this graph already exist"):
        run("import_graph", str(RICH), "--user", "alice")


@pytest.mark.parametrize("command", ["import_graph", "export_graph", "decay", "reembed"])
def test_commands_refuse_an_unknown_account(command, tmp_path):
    args = [str(tmp_path / "g.json")] if command == "import_graph" else []
    with pytest.raises(CommandError, match="no account with username 'nobody'"):
        run(command, *args, "--user", "nobody")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("yesterday", "is not an ISO 8601 date-time"),
        ("2026-01-01T00:00:00", "needs a UTC offset"),
    ],
)
def test_commands_refuse_a_bad_now(alice, value, message):
    with pytest.raises(CommandError, match=message):
        run("decay", "--user", "alice", "--now", value)


def test_export_graph_command_reports_an_unwritable_file(alice, tmp_path):
    with pytest.raises(CommandError, match="cannot write"):
        run("export_graph", str(tmp_path / "missing" / "g.json"), "--user", "alice")


def test_decay_command_for_one_user(alice, bob):
    import_graph(user=alice, data=json.loads(RICH.read_text(encoding="utf-8")), now=NOW)
    out = run("decay", "--user", "alice", "--now", "2026-03-02T12:00:00+00:00")
    # Café Müller's ephemeral edge was already dormant; Sushi (stable, 42 in Nov) is not yet;
    # the time_bound IS_NICKNAME_OF edge (12.0 on 1 Mar) is still above 2.0.
    assert out.startswith("decay at 2026-03-02T12:00:00+00:00: alice: 0 edges flagged dormant")
    out = run("decay", "--user", "alice", "--now", "2026-12-01T00:00:00Z")
    flagged = int(out.split(": ")[2].split()[0])
    assert flagged == Edge.objects.for_user(alice).filter(dormant=True).count() - 3
    assert flagged > 0


def test_decay_command_for_everyone_prints_progress_and_a_total(alice, bob):
    import_graph(user=alice, data=json.loads(RICH.read_text(encoding="utf-8")), now=NOW)
    out = run("decay", "--now", "2030-01-01T00:00:00Z")
    lines = out.strip().splitlines()
    assert lines[0].startswith("decay: 1/1 (100%)")
    assert "ETA" in lines[0]
    assert lines[-1].startswith("decay at 2030-01-01T00:00:00+00:00: 1 users, ")
    assert (
        run("decay", "--now", "2030-01-01T00:00:00Z")
        .strip()
        .splitlines()[-1]
        .startswith("decay at 2030-01-01T00:00:00+00:00: 1 users, 0 edges flagged dormant")
    )


def test_reembed_command_recomputes_only_the_chosen_users_keys(alice, bob):
    import_graph(user=alice, data=json.loads(RICH.read_text(encoding="utf-8")), now=NOW)
    total = MemoryKey.objects.for_user(alice).count()
    out = run("reembed", "--user", "bob")
    assert (
        out.strip().splitlines()[-1].startswith("reembed: 0 keys and 0 sentences of bob recomputed")
    )
    out = run("reembed", "--user", "alice")
    lines = out.strip().splitlines()
    assert lines[0].startswith(f"reembed keys: {total}/{total} (100%)")
    assert lines[-1].startswith(f"reembed: {total} keys and 0 sentences of alice recomputed with ")


def test_bench_store_measures_a_small_run_and_leaves_no_account_behind(alice, django_user_model):
    out = run("bench_store", "--users", "3", "--edges", "60", "--import-edges", "30")
    results = [line for line in out.splitlines() if line.startswith("RESULT")]
    assert results[0].startswith("RESULT decay run 1: 3 users, 60 edges, ")
    assert results[1].startswith("RESULT decay run 2: 3 users, 60 edges, 0 flagged dormant")
    assert results[2].startswith("RESULT import: 10 nodes, 30 edges, ")
    assert "embedding" in results[2] and "key SQL" in results[2]
    assert list(django_user_model.objects.values_list("username", flat=True)) == ["alice"]
    assert Edge.objects.count() == 0


def test_bench_store_refuses_to_run_in_production(settings):
    settings.PEGASUS_ENV = "production"
    with pytest.raises(CommandError, match="refusing to run with PEGASUS_ENV=production"):
        run("bench_store", "--users", "1", "--edges", "1")
