"""Replaying labelled entity-resolution cases through the real Write path (issue 21).

A case file (``pegasus-merge-cases/1``) holds cases of: an existing graph (nodes with kind,
name, aliases, properties and relations from the user, ``"self": ["HAS_SISTER"]``), an
incoming batch of entities (with the same optional fields) and, per incoming entity, the
expected outcome: ``merge:<existing name>``, ``new`` or ``held``.

Each case runs on a fresh account inside a transaction that is rolled back: the graph is
written with ``commit_batch`` (one batch; its entities are never candidates for each other),
then the incoming batch with ``commit_batch`` — exactly what ``write_batch`` does. Merge
judging by a language model is switched off, so "held" means "would be asked".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from django.contrib.auth import get_user_model
from django.db import transaction
from django.test.utils import override_settings

from memory.core.merge_rules import normalise_name
from memory.models import Node
from memory.services.write import commit_batch

FORMAT = "pegasus-merge-cases/1"
T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
T1 = datetime(2026, 1, 2, 12, 0, tzinfo=UTC)
# Outcomes (``Resolution.outcome``) that leave the entity in a node that was there before.
MERGED = frozenset({"self", "matched", "merged", "flagged", "upgraded"})


class CaseError(ValueError):
    """A malformed case file or case."""


def load_cases(data) -> list[dict]:
    """Validate a parsed case file; return its cases. Raises ``CaseError`` with the reason."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CaseError(f'not a {FORMAT} file (expected {{"format": "{FORMAT}", "cases": [...]}})')
    cases = data.get("cases")
    if not isinstance(cases, list) or not cases:
        raise CaseError("'cases' must be a non-empty list")
    for i, case in enumerate(cases):
        where = f"case {i} ({case.get('id', '?') if isinstance(case, dict) else '?'})"
        if not isinstance(case, dict) or not isinstance(case.get("id"), str):
            raise CaseError(f"{where}: a case is an object with a string 'id'")
        for key in ("graph", "incoming"):
            items = case.get(key)
            if not isinstance(items, list) or not all(
                isinstance(e, dict) and isinstance(e.get("name"), str) and e["name"].strip()
                for e in items
            ):
                raise CaseError(f"{where}: '{key}' must be a list of entities with a name")
        if not case["incoming"]:
            raise CaseError(f"{where}: 'incoming' is empty")
        said = [(e.get("kind", "PERSON"), normalise_name(e["name"])) for e in case["incoming"]]
        if len(set(said)) < len(said):
            raise CaseError(
                f"{where}: two incoming entities of one kind and name (one batch folds "
                "them into one entity; write them as two cases)"
            )
        names = {normalise_name(e["name"]) for e in case["graph"]}
        for e in case["incoming"]:
            expect = e.get("expect")
            if expect in ("new", "held"):
                continue
            if not (isinstance(expect, str) and expect.startswith("merge:")):
                raise CaseError(f"{where}: {e['name']!r} needs expect = merge:<name> | new | held")
            if normalise_name(expect[6:]) not in names:
                raise CaseError(
                    f"{where}: {e['name']!r} expects a merge into "
                    f"{expect[6:]!r}, which is not in the graph"
                )
    return cases


def _batch(entities: list[dict], prefix: str) -> dict:
    out, relations = [], []
    for i, e in enumerate(entities):
        ref = f"{prefix}{i}"
        out.append(
            {
                "ref": ref,
                "kind": e.get("kind", "PERSON"),
                "name": e["name"],
                "aliases": list(e.get("aliases", [])),
                "properties": dict(e.get("properties") or {}),
                "confidence": 0.9,
            }
        )
        labels = e.get("self") or []
        for label in [labels] if isinstance(labels, str) else labels:
            relations.append(
                {
                    "source": "user",
                    "relation": label,
                    "target": ref,
                    "snippet": f"({label.lower()} {e['name']})",
                    "confidence": 0.9,
                }
            )
    return {"format": "pegasus-batch/1", "entities": out, "relations": relations}


class _Rollback(Exception):
    pass


def run_case(case: dict, username: str) -> list[dict]:
    """Replay one case on a fresh account (rolled back afterwards); return per incoming entity
    ``{"case", "name", "expect", "got"}`` with ``got`` = ``merge:<name>``, ``new`` or
    ``held``."""
    results: list[dict] = []
    try:
        with transaction.atomic(), override_settings(ANTHROPIC_API_KEY=""):
            user = get_user_model().objects.create_user(username)
            commit_batch(user=user, batch=_batch(case["graph"], "g"), now=T0)
            seeded = {n.pk: n for n in Node.objects.for_user(user).filter(is_self=False)}
            if len(seeded) < len(case["graph"]):
                raise CaseError(
                    f"case {case['id']}: its graph did not write as "
                    f"{len(case['graph'])} separate nodes"
                )
            summary = commit_batch(user=user, batch=_batch(case["incoming"], "i"), now=T1)
            for i, e in enumerate(case["incoming"]):
                # Per ref, not per name: two entities of one name are two mentions.
                # An entity the cleaning dropped merged into nothing: "new".
                became = summary.entities.get(f"i{i}", {"outcome": "dropped"})
                if became["outcome"] == "held":
                    got = "held"
                elif became["outcome"] in MERGED:
                    got = f"merge:{became['node']}"
                else:
                    got = "new"
                results.append(
                    {"case": case["id"], "name": e["name"], "expect": e["expect"], "got": got}
                )
            raise _Rollback
    except _Rollback:
        pass
    return results


@dataclass
class Scores:
    """Counts over every incoming entity of a run."""

    results: list[dict] = field(default_factory=list)

    def report(self) -> dict:
        rows = self.results

        def same(a: str, b: str) -> bool:
            return (
                a.startswith("merge:")
                and b.startswith("merge:")
                and (normalise_name(a[6:]) == normalise_name(b[6:]))
            )

        auto = [r for r in rows if r["got"].startswith("merge:")]
        correct = [r for r in auto if same(r["got"], r["expect"])]
        wrong = [r for r in auto if not same(r["got"], r["expect"])]
        expected = [r for r in rows if r["expect"].startswith("merge:")]
        missed = [r for r in expected if not r["got"].startswith("merge:")]
        with_candidate = [r for r in rows if r["expect"] != "new" or r["got"] != "new"]
        held = [r for r in rows if r["got"] == "held"]
        return {
            "entities": len(rows),
            "automatic_merges": len(auto),
            "correct_merges": len(correct),
            "wrong_merges": len(wrong),
            "expected_merges": len(expected),
            "missed_merges": len(missed),
            "precision": round(len(correct) / len(auto), 4) if auto else None,
            "recall": round(len(correct) / len(expected), 4) if expected else None,
            "missed_share": round(len(missed) / len(expected), 4) if expected else None,
            "with_candidate": len(with_candidate),
            "held": len(held),
            "held_share": round(len(held) / len(with_candidate), 4) if with_candidate else None,
            "held_as_expected": sum(r["expect"] == "held" for r in held),
            "unasked": [r for r in rows if r["expect"] == "held" and r["got"] == "new"],
            "wrong": wrong,
            "missed": missed,
            "needless_holds": [r for r in held if r["expect"] == "new"],
        }


def run_cases(
    cases: list[dict], *, run_id: str, progress: Callable[[int, int], None] | None = None
) -> Scores:
    """Replay every case in order; ``progress(done, total)`` after each. A KeyboardInterrupt
    stops between cases (the current case's work is rolled back) and re-raises with the
    partial scores attached as ``exc.scores``."""
    scores = Scores()
    try:
        for i, case in enumerate(cases):
            scores.results.extend(run_case(case, f"bench-merge-{run_id}-{i}"))
            if progress is not None:
                progress(i + 1, len(cases))
    except KeyboardInterrupt as exc:
        exc.scores = scores  # type: ignore[attr-defined]
        raise
    return scores
