"""What one merge decision costs against a large graph (``manage.py bench_merge_speed``).

``synthetic_nodes(size)`` draws stored nodes as the merge rules see them (no database): two
thirds people with a short note and maybe a relation, a fifth organisations, the rest events
with a year, plus a sister "Priya Raman" and a car "Ford Kuga". ``NAMES`` are what a user says
of them: a first name, an organisation, a description, an occasion and a thing.
``measure(nodes, repeat)`` times ``decide_merge`` for each (CPU time, least and median of
``repeat`` runs after one warm-up) and counts the Python calls one decision makes — a figure
that, unlike time on a shared machine, does not move from run to run.
"""

from __future__ import annotations

import cProfile
import pstats
import random
import statistics
import time

from memory.core.merge_rules import Mention, StoredNode, decide_merge

_FIRST = (
    *("James", "Mary", "Wei", "Aisha", "Carlos", "Priyanka", "Olu", "Sofia", "Kenji", "Fatima"),
    *("Lukas", "Ana", "Mohammed", "Elena", "Jin", "Grace", "Tomasz", "Chloe", "Ravi", "Nadia"),
)
_LAST = (
    *("Smith", "Garcia", "Chen", "Okafor", "Kowalski", "Silva", "Tanaka", "Khan", "Müller"),
    *("Rossi", "Nguyen", "Patel", "Ivanova", "Kim", "Brown", "Haddad", "Santos", "Dubois"),
    *("Olsen", "Mensah"),
)
_NOTES = (
    *("my colleague in the Leeds office", "friend from uni, lives in Berlin"),
    *("Mum's neighbour, retired nurse", "the plumber who fixed the boiler in 2023"),
    *("Sophie's new boyfriend", "client at a logistics firm, calls every Monday"),
    *("born 1950 in Cork", "my landlord, owns the flat on Elm Street"),
    *("my sister's friend from Manila", "goes by Jim at work"),
)
_ORG_WORDS = ("Holdings", "Bank", "Cafe", "Clinic", "School", "Group")
_EVENTS = ("wedding", "birthday", "graduation")

# (name said, kind, what the note says) — the decisions timed.
NAMES = (
    ("Priya", "PERSON", "Priya called about the weekend"),
    ("Garcia Holdings", "ORG", "they sent the invoice"),
    ("the landlord", "PERSON", "the landlord is raising the rent"),
    ("my sister's wedding", "EVENT", "the photos from it"),
    ("the Kuga", "THING", "needs an MOT"),
)


def synthetic_nodes(size: int, *, seed: int = 7) -> list[StoredNode]:
    """``size`` stored nodes (two thirds people, a fifth organisations, the rest events),
    then the sister and the car the names point at."""
    rng = random.Random(seed)
    people, orgs = size * 2 // 3, size // 5
    nodes: list[StoredNode] = []
    for k in range(people):
        roles = frozenset(rng.sample(["colleague", "friend", "neighbour", ""], 1)) - {""}
        name = f"{rng.choice(_FIRST)} {rng.choice(_LAST)} {k}"
        note = {"note": rng.choice(_NOTES)}
        nodes.append(StoredNode(len(nodes) + 1, "PERSON", name, roles=roles, properties=note))
    for k in range(orgs):
        name = f"{rng.choice(_LAST)} {rng.choice(_ORG_WORDS)} {k}"
        note = {"note": "in " + rng.choice(("Leeds", "Lagos", "Pune", "Lyon"))}
        nodes.append(StoredNode(len(nodes) + 1, "ORG", name, properties=note))
    for k in range(size - people - orgs):
        name = f"{rng.choice(_FIRST)}'s {rng.choice(_EVENTS)} {2000 + k % 25}"
        nodes.append(StoredNode(len(nodes) + 1, "EVENT", name, properties={"note": "at the hotel"}))
    sister = StoredNode(
        len(nodes) + 1,
        "PERSON",
        "Priya Raman",
        roles=frozenset({"sister"}),
        properties={"note": "my sister"},
    )
    car = StoredNode(len(nodes) + 2, "THING", "Ford Kuga", properties={"note": "my car"})
    return [*nodes, sister, car]


def _considered(nodes: list[StoredNode], kind: str) -> list[StoredNode]:
    # What the Write loads for a kind: its own nodes, and people and firms tied to the user.
    if kind == "THING":
        return [n for n in nodes if n.kind == "THING"]
    return [n for n in nodes if n.kind in (kind, "PERSON", "ORG")]


def measure(
    nodes: list[StoredNode], repeat: int, names: tuple[tuple[str, str, str], ...] = NAMES
) -> list[dict]:
    """One row per name said: the nodes considered, the verdict, the least and median CPU
    milliseconds of ``repeat`` decisions, and the Python calls of one."""
    rows = []
    for name, kind, note in names:
        stored = _considered(nodes, kind)
        mention = Mention(properties={"note": note})
        verdict = decide_merge(name, kind, stored, mention=mention)  # warm-up (caches)
        times = []
        for _ in range(repeat):
            started = time.process_time()
            decide_merge(name, kind, stored, mention=mention)
            times.append((time.process_time() - started) * 1000)
        profile = cProfile.Profile()
        profile.runcall(decide_merge, name, kind, stored, mention=mention)
        calls = pstats.Stats(profile).total_calls  # type: ignore[attr-defined]
        rows.append(
            {
                "name": name,
                "kind": kind,
                "nodes": len(stored),
                "action": verdict.action,
                "rule": verdict.rule,
                "least_ms": round(min(times), 1),
                "median_ms": round(statistics.median(times), 1),
                "python_calls": calls,
            }
        )
    return rows
