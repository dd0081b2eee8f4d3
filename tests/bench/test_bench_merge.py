"""``manage.py bench_merge``: replays labelled cases through the real Write path, scores
them, leaves nothing behind, and refuses malformed files."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from memory import embedding
from memory.models import Node
from tests.memory.factories import HashEncoder

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def stand_in_encoder():
    with embedding.use_encoder(HashEncoder()):
        yield


CASES = {
    "format": "pegasus-merge-cases/1",
    "cases": [
        {
            "id": "right",
            "graph": [{"name": "Melanie"}],
            "incoming": [{"name": "Mel", "expect": "merge:Melanie"}],
        },
        {
            "id": "labelled-wrong-on-purpose",
            "graph": [{"name": "Elizabeth"}],
            "incoming": [{"name": "Liz", "expect": "new"}],
        },
        {
            "id": "miss-on-purpose",
            "graph": [{"name": "Stephen Hall"}],
            "incoming": [{"name": "Mr. Hallam", "expect": "merge:Stephen Hall"}],
        },
        {
            "id": "held",
            "graph": [{"name": "Melanie"}, {"name": "Melissa"}],
            "incoming": [{"name": "Mel", "expect": "held"}],
        },
        {
            "id": "held-though-labelled-new",
            "graph": [{"name": "Georgina"}],
            "incoming": [{"name": "Georgia", "expect": "new"}],
        },
    ],
}


def run(tmp_path, data, *args):
    path = tmp_path / "cases.json"
    path.write_text(json.dumps(data))
    out, err = StringIO(), StringIO()
    call_command("bench_merge", str(path), *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_scores_wrong_merges_misses_and_holds(tmp_path):
    out, err = run(tmp_path, CASES, "--json")
    report = json.loads(out)
    assert report["cases"] == 5 and report["entities"] == 5
    assert (report["automatic_merges"], report["correct_merges"], report["wrong_merges"]) == (
        2,
        1,
        1,
    )
    assert report["precision"] == 0.5 and report["recall"] == 0.5
    assert [w["case"] for w in report["wrong"]] == ["labelled-wrong-on-purpose"]
    assert [m["case"] for m in report["missed"]] == ["miss-on-purpose"]
    assert report["held"] == 2 and report["with_candidate"] == 5
    # Only the hold the set does not label as an ambiguity counts beyond the labelled ones.
    assert report["held_unlabelled"] == 1 and report["held_unlabelled_share"] == 0.2
    assert [h["case"] for h in report["needless_holds"]] == ["held-though-labelled-new"]
    assert report["targets"]["wrong_merges"] is False
    assert "5/5 cases" in err
    assert not Node.objects.exists()  # every case was rolled back


def test_text_report_lists_every_wrong_merge_and_miss(tmp_path):
    out, _ = run(tmp_path, CASES)
    assert "wrong 1 (MISSES target: 0)" in out
    assert "[labelled-wrong-on-purpose] 'Liz' → merge:Elizabeth (expected new)" in out
    assert "[miss-on-purpose] 'Mr. Hallam' → new (expected merge:Stephen Hall)" in out
    assert "held beyond the labelled ambiguities: 1 = 20.0 % of entities" in out


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"cases": []}, "not a pegasus-merge-cases/1 file"),
        (
            {
                "format": "pegasus-merge-cases/1",
                "cases": [
                    {
                        "id": "x",
                        "graph": [],
                        "incoming": [{"name": "Mel", "expect": "merge:Melanie"}],
                    }
                ],
            },
            "not in the graph",
        ),
        (
            {
                "format": "pegasus-merge-cases/1",
                "cases": [
                    {"id": "x", "graph": [], "incoming": [{"name": "Mel", "expect": "maybe"}]}
                ],
            },
            "needs expect",
        ),
        (
            {
                "format": "pegasus-merge-cases/1",
                "cases": [
                    {
                        "id": "x",
                        "graph": [{"name": "Maria Rossi"}],
                        "incoming": [
                            {"name": "Maria", "expect": "merge:Maria Rossi"},
                            {"name": "maria", "expect": "held"},
                        ],
                    }
                ],
            },
            "two incoming entities of one kind and name",
        ),
    ],
)
def test_malformed_files_are_refused_with_the_reason(tmp_path, data, message):
    with pytest.raises(CommandError, match=message):
        run(tmp_path, data)
