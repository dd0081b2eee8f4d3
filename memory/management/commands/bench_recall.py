"""``manage.py bench_recall [--sizes 1000,10000,100000] [--messages 200] [--json]`` — Read latency
on synthetic per-user graphs (SPEC §5.1–§5.3; targets in docs/BENCHMARKS.md).

For each size N it builds the graph of a throwaway account ``bench_recall_<N>``: N nodes with
realistic names (people, companies, places, things, topics, events, preferences), mean degree
5, a few power-law hubs, a self node linked to 10% of the nodes, ~40 relation labels, one
snippet per edge, episodes of ~20 nodes, and a MemoryKey per surface form embedded with the
real sentence model (each distinct text once). Rows go in with COPY. Then it times ``recall``
on ``--messages`` sentences that mention one to three node names among ordinary words, and
prints p50/p95/p99 of the whole Read and of each stage, and queries per Read. The account is
deleted afterwards (also when interrupted); building is reported separately from reading.

Refuses to run in production: it writes (and deletes) a large graph in the database.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import time
from datetime import timedelta

import numpy as np
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memory import embedding
from memory.core.cleaning import normalise_name
from memory.core.decay import is_dormant, strength_at
from memory.models import (
    Edge,
    EdgeEpisode,
    Episode,
    MemoryKey,
    Node,
    NodeEpisode,
    Snippet,
    Traversal,
)
from memory.services.keys import Progress, relation_phrase
from memory.services.read import ReadOptions, recall

# fmt: off
FIRST = """James Mary John Patricia Robert Jennifer Michael Linda William Elizabeth David Barbara
Richard Susan Joseph Jessica Thomas Sarah Charles Karen Christopher Lisa Daniel Nancy Matthew
Betty Anthony Margaret Mark Sandra Donald Ashley Steven Kimberly Paul Emily Andrew Donna Joshua
Michelle Kenneth Carol Kevin Amanda Brian Dorothy George Melissa Timothy Deborah Ronald
Stephanie Edward Rebecca Jason Sharon Jeffrey Laura Ryan Cynthia Jacob Kathleen Gary Amy
Nicholas Angela Eric Shirley Jonathan Anna Stephen Brenda Larry Pamela Justin Emma Scott Nicole
Brandon Helen Benjamin Samantha Samuel Katherine Gregory Christine Alexander Debra Frank Rachel
Patrick Carolyn Raymond Janet Jack Catherine Dennis Maria Jerry Heather Tyler Diane Aaron Ruth
Jose Julie Adam Olivia Nathan Joyce Henry Virginia Douglas Victoria Zachary Kelly Peter Lauren
Kyle Christina Ethan Joan Walter Evelyn Noah Judith Jeremy Megan Christian Andrea Keith Cheryl
Roger Hannah Terry Jacqueline Gerald Martha Harold Gloria Sean Teresa Austin Ann Carl Sara
Arthur Madison Lawrence Frances Dylan Kathryn Jesse Janice Jordan Jean Bryan Abigail Billy Alice
Bruce Judy Gabriel Sophia Joe Grace Logan Denise Albert Amber Willie Doris Alan Marilyn Juan
Danielle Wayne Beverly Elijah Isabella Randy Theresa Roy Diana Vincent Natalie Ralph Brittany
Eugene Charlotte Russell Marie Bobby Kayla Mason Alexis Philip Lori Louis Trevor Priya Mateo
""".split()
LAST = """Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez
Gonzalez Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White Harris
Sanchez Clark Ramirez Lewis Robinson Walker Young Allen King Wright Scott Torres Nguyen Hill
Flores Green Adams Nelson Baker Hall Rivera Campbell Mitchell Carter Roberts Gomez Phillips
Evans Turner Diaz Parker Cruz Edwards Collins Reyes Stewart Morris Morales Murphy Cook Rogers
Gutierrez Ortiz Morgan Cooper Peterson Bailey Reed Kelly Howard Ramos Kim Cox Ward Richardson
Watson Brooks Chavez Wood James Bennett Gray Mendoza Ruiz Hughes Price Alvarez Castillo Sanders
Patel Myers Long Ross Foster Jimenez Powell Jenkins Perry Russell Sullivan Bell Coleman Butler
Henderson Barnes Gonzales Fisher Vasquez Simmons Romero Jordan Patterson Alexander Hamilton
Graham Reynolds Griffin Wallace Moreno West Cole Hayes Bryant Herrera Gibson Ellis Tran Medina
Aguilar Stevens Murray Ford Castro Marshall Owens Harrison Fernandez McDonald Woods Washington
Kennedy Wells Vargas Henry Chen Freeman Webb Tucker Guzman Burns Crawford Olson Simpson Porter
Hunter Gordon Mendez Silva Shaw Snyder Mason Dixon Munoz Hunt Hicks Holmes Palmer Wagner Black
Robertson Boyd Rose Stone Salazar Fox Warren Mills Meyer Rice Schmidt Garza Daniels Ferguson
Nichols Stephens Soto Weaver Ryan Gardner Payne Grant Dunn Kelley Spencer Hawkins Arnold Pierce
""".split()
CITIES = """Boston Chicago Denver Seattle Austin Portland Atlanta Miami Dallas Houston Phoenix
Detroit Nashville Memphis Baltimore Pittsburgh Cleveland Cincinnati Minneapolis Milwaukee
Sacramento Oakland Tucson Albuquerque Omaha Tulsa Raleigh Charlotte Richmond Norfolk Buffalo
Rochester Hartford Providence Burlington Savannah Charleston Orlando Tampa Louisville Lexington
London Paris Berlin Madrid Lisbon Rome Milan Vienna Prague Budapest Warsaw Dublin Edinburgh
Glasgow Manchester Liverpool Amsterdam Rotterdam Brussels Antwerp Zurich Geneva Munich Hamburg
Copenhagen Stockholm Oslo Helsinki Reykjavik Athens Istanbul Cairo Marrakesh Nairobi Lagos
Johannesburg Tokyo Osaka Kyoto Seoul Beijing Shanghai Singapore Bangkok Hanoi Manila Jakarta
Sydney Melbourne Auckland Toronto Montreal Vancouver Calgary Ottawa Lima Bogota Santiago Quito
Havana Cancun Oaxaca Tijuana Valencia Seville Porto Florence Naples Krakow Tallinn Riga Vilnius
""".split()
FEATURES = """Street Avenue Park Square Harbor Bridge Market Station Library Museum Cafe Bakery
Gym Pool Beach Lake Hill Garden Pier Plaza Theater Stadium Hospital Clinic School""".split()
ORG_PREFIX = """Northwind Bluebird Redwood Silverline Ironclad Brightpath Greenleaf Stonebridge
Clearwater Highland Oakridge Sunrise Evergreen Riverbend Lakeside Summit Pioneer Horizon
Beacon Cobalt Crimson Granite Harbor Juniper Keystone Lighthouse Meridian Nimbus Orchard Pinnacle
Quartz Sapphire Tidewater Umbrella Vanguard Willow Zenith Atlas Falcon Copper Maple Cedar Aspen
Birch Delta Echo Fjord Glacier Lantern Mosaic Nova Onyx Polaris Prairie Sequoia Trident
""".split()
ORG_SECTOR = """Analytics Logistics Health Energy Foods Media Capital Robotics Software Design
Consulting Insurance Pharma Motors Textiles Studios Foundry Brewing Dental Legal Realty Travel
Fitness Security Labs""".split()
ORG_SUFFIX = """Group Partners Inc Holdings Collective Company Associates Works Agency
Ventures""".split()
ADJECTIVES = """old new vintage red blue green black white silver wooden electric antique tiny
huge favourite broken spare second shared rented borrowed secondhand handmade folding cheap
expensive lucky noisy quiet heavy portable""".split()
NOUNS = [noun.replace("-", " ") for noun in """bicycle guitar camera laptop piano kayak tent
car van truck scooter motorbike watch
phone tablet drone telescope microscope sewing-machine espresso-machine blender oven grill
sofa bookshelf desk chair lamp rug painting sculpture vinyl-collection record-player
headphones speaker keyboard violin cello trumpet saxophone drum-kit surfboard snowboard skis
skates backpack suitcase umbrella jacket coat boots sneakers ring necklace bracelet notebook
journal planner typewriter printer router monitor projector aquarium birdhouse greenhouse
treehouse boat sailboat canoe paddleboard hammock barbecue firepit mower chainsaw toolbox
""".split()]
HOBBIES = """gardening running cycling baking climbing chess photography painting knitting
pottery woodworking birdwatching fishing hiking sailing surfing skiing yoga pilates boxing
fencing archery dancing singing drumming poetry astronomy genealogy meditation cooking
""".split()
FIELDS = """urban modern classical medieval ancient digital sustainable competitive amateur
japanese italian french indian mexican korean nordic""".split()
EVENTS = """wedding birthday party graduation reunion funeral retirement housewarming
marathon concert festival conference hackathon workshop trip vacation interview
launch anniversary barbecue recital""".split()
FOODS = """sushi ramen tacos pizza curry pho dumplings falafel hummus risotto paella burritos
oysters lobster steak tofu kimchi bagels croissants espresso matcha kombucha chocolate cheesecake
olives mushrooms cilantro peanuts shellfish gluten dairy""".split()
PREF_VERBS = ["likes", "loves", "dislikes", "avoids", "prefers", "hates", "craves"]
# fmt: on

# Relation labels by (source kind, target kind): ~40 in all, the family ones only on the
# self node (a personal graph has one mother, not thousands).
BULK_RELATIONS = {
    ("PERSON", "PERSON"): ["KNOWS", "HAS_FRIEND", "HAS_COLLEAGUE", "HAS_NEIGHBOUR", "HAS_MENTOR"],
    ("PERSON", "ORG"): ["WORKS_AT", "STUDIED_AT", "FOUNDED", "INVESTED_IN", "CONSULTS_FOR"],
    ("PERSON", "PLACE"): ["LIVES_IN", "VISITED", "BORN_IN", "MOVED_TO", "PLANS_TRIP_TO"],
    ("PERSON", "THING"): ["OWNS", "BOUGHT", "SOLD", "PLAYS", "BORROWED"],
    ("PERSON", "TOPIC"): ["INTERESTED_IN", "STUDIES", "WRITES_ABOUT"],
    ("PERSON", "EVENT"): ["ATTENDED", "ORGANISED", "MISSED"],
    ("PERSON", "PREFERENCE"): ["HAS_PREFERENCE"],
    ("ORG", "PLACE"): ["HEADQUARTERED_IN", "HAS_OFFICE_IN"],
    ("ORG", "ORG"): ["ACQUIRED", "PARTNERS_WITH"],
    ("EVENT", "PLACE"): ["TOOK_PLACE_IN"],
    ("THING", "PLACE"): ["KEPT_IN"],
    ("TOPIC", "TOPIC"): ["RELATED_TO"],
}
SELF_FAMILY = ["HAS_PARTNER", "HAS_MOTHER", "HAS_FATHER", "HAS_SISTER", "HAS_BROTHER",
               "HAS_DAUGHTER", "HAS_SON", "HAS_BOSS"]

KIND_SHARES = [("PERSON", 0.35), ("ORG", 0.15), ("PLACE", 0.10), ("THING", 0.15),
               ("TOPIC", 0.08), ("EVENT", 0.10), ("PREFERENCE", 0.07)]
STABILITY = [("stable", 0.5), ("mutable", 0.25), ("immutable", 0.1), ("time_bound", 0.1),
             ("ephemeral", 0.05)]

TEMPLATES = [
    "Had coffee with {PERSON} yesterday and we talked about {TOPIC} for ages",
    "Does {PERSON} still work at {ORG}? I lost track",
    "I'm flying to {PLACE} next week, any tips?",
    "Remind me what {PERSON} said about the {THING}",
    "{PERSON} and {PERSON} are coming over on Saturday for dinner",
    "What was the name of the restaurant near {PLACE}?",
    "Any idea when the {EVENT} is happening?",
    "I keep thinking about {ORG} and whether to apply there",
    "{PERSON} recommended {TOPIC}, should I give it a try?",
    "Ran into {PERSON} at {PLACE} this morning, so random",
    "Need to fix the {THING} before {EVENT}",
    "Can you help me write a thank-you note to {PERSON}?",
    "Is {ORG} anywhere near {PLACE}? Thinking about a visit",
    "Ugh, Monday again. {PERSON} is out sick and the deadline is Friday",
    "Planning a surprise for {PERSON}, something with {PREFERENCE} maybe",
]

TARGETS_P95_MS = {10_000: 25.0, 100_000: 60.0}
# Read latency by number of seeded nodes: SPEC §5.1 seeds every key a word scores ≥ 0.30
# against, and both ends of every live edge of a matching relation label, so the seed count —
# not the graph size — is what drives the cost.
SEED_BUCKETS = {"1-10": (1, 10), "11-100": (11, 100), "101-1000": (101, 1000),
                ">1000": (1001, 10**9)}
BENCH_PREFIX = "bench_recall_"


def _torch_threads() -> int | None:
    import sys

    torch = sys.modules.get("torch")  # loaded by the encoder; never imported just for this
    return torch.get_num_threads() if torch is not None else None


def _percentiles(values: list[float]) -> dict[str, float]:
    arr = np.asarray(values, dtype=np.float64)
    if arr.size == 0:
        return {"p50": 0.0, "p95": 0.0, "p99": 0.0, "max": 0.0}
    return {
        "p50": round(float(np.percentile(arr, 50)), 2),
        "p95": round(float(np.percentile(arr, 95)), 2),
        "p99": round(float(np.percentile(arr, 99)), 2),
        "max": round(float(arr.max()), 2),
    }


def _name_spaces() -> dict[str, list]:
    """Per kind, the combinatorial name space (lists of word lists) to sample names from."""
    return {
        "PERSON": [[FIRST, LAST]],
        "ORG": [[ORG_PREFIX, ORG_SECTOR], [ORG_PREFIX, ORG_SECTOR, ORG_SUFFIX]],
        "PLACE": [[CITIES], [CITIES, FEATURES], [LAST, FEATURES],
                  [["Old", "New", "North", "South", "East", "West"], CITIES, FEATURES]],
        "THING": [[ADJECTIVES, NOUNS], [[f"{f}'s" for f in FIRST], NOUNS]],
        "TOPIC": [[HOBBIES], [FIELDS, HOBBIES], [FIELDS, FOODS],
                  [FIELDS, HOBBIES, ["club", "scene", "history", "community", "podcast"]],
                  [CITIES, HOBBIES, ["club", "scene", "league"]]],
        "EVENT": [[[f"{f}'s" for f in FIRST], EVENTS], [CITIES, EVENTS],
                  [LAST, ["family"], EVENTS], [ORG_PREFIX, EVENTS]],
        "PREFERENCE": [[PREF_VERBS, FOODS], [PREF_VERBS, HOBBIES], [PREF_VERBS, CITIES],
                       [PREF_VERBS, ADJECTIVES, FOODS], [PREF_VERBS, FIELDS, FOODS]],
    }


def _sample_names(kind: str, count: int, rng: random.Random) -> list[str]:
    """``count`` distinct names of one kind (distinct after normalisation)."""
    combos = []
    for parts in _name_spaces()[kind]:
        combos.extend(itertools.product(*parts))
    seen: set[str] = set()
    names: list[str] = []
    for combo in rng.sample(combos, len(combos)):
        name = " ".join(combo)
        key = normalise_name(name)
        if key not in seen:
            seen.add(key)
            names.append(name)
            if len(names) == count:
                return names
    raise CommandError(f"bench_recall: only {len(names)} distinct {kind} names; size too big")


class Command(BaseCommand):
    help = "Benchmark the Read path on synthetic graphs (writes and deletes bench accounts)."

    def add_arguments(self, parser):
        parser.add_argument("--sizes", default="1000,10000,100000",
                            help="comma-separated node counts (default 1000,10000,100000)")
        parser.add_argument("--messages", type=int, default=200,
                            help="Reads timed per size (default 200)")
        parser.add_argument("--seed", type=int, default=7, help="random seed (default 7)")
        parser.add_argument("--json", action="store_true", help="print the results as JSON")
        parser.add_argument("--seed-threshold", type=float, default=None,
                            help="override MEMORY_SEED_THRESHOLD for the timed Reads (to see "
                                 "how the seed count drives the cost); default: the setting")
        parser.add_argument("--strategy", default=None,
                            help="Read strategy to time (default: MEMORY_READ_STRATEGY)")
        parser.add_argument("--keep", action="store_true",
                            help="keep the bench accounts afterwards (to inspect them)")
        parser.add_argument("--reuse", action="store_true",
                            help="time the graph a previous --keep run left, if there is one "
                                 "(no setup figures)")

    def handle(self, *args, **options):
        if settings.PRODUCTION:
            raise CommandError("bench_recall writes large throwaway graphs; not in production")
        try:
            sizes = [int(s) for s in options["sizes"].split(",") if s.strip()]
        except ValueError:
            raise CommandError(f"--sizes {options['sizes']!r}: expected e.g. 1000,10000") from None
        if not sizes or min(sizes) < 50 or options["messages"] < 1:
            raise CommandError("--sizes must be ≥ 50 nodes each and --messages ≥ 1")
        self.quiet = options["json"]
        results = []
        for size in sizes:
            rng = random.Random(options["seed"] * 1_000_003 + size)
            username = f"{BENCH_PREFIX}{size}"
            user = get_user_model().objects.filter(username=username).first()
            if user is None or not options["reuse"]:
                self._drop(username)  # a previous, interrupted run
                user = get_user_model().objects.create_user(username,
                                                            f"{username}@example.invalid")
                built = False
            else:
                built = True
            try:
                now = timezone.now()
                setup = None if built else self._build(user, size, rng, now)
                overrides = {}
                if options["seed_threshold"] is not None:
                    overrides["seed_threshold"] = options["seed_threshold"]
                if options["strategy"] is not None:
                    overrides["strategy"] = options["strategy"]
                result = self._bench(user, size, options["messages"], rng, now,
                                     ReadOptions.from_settings(**overrides))
                result["setup_s"] = setup
                results.append(result)
                self._say(self._summary(result))
            finally:
                if not options["keep"]:
                    self._drop(username)
        out = {"results": results, "targets_p95_ms": {str(k): v for k, v in
                                                      TARGETS_P95_MS.items()},
               "max_queries_target": 6}
        if options["json"]:
            self.stdout.write(json.dumps(out, indent=2))

    def _say(self, line: str) -> None:
        # With --json, stdout carries only the JSON; progress still shows, on stderr.
        (self.stderr if self.quiet else self.stdout).write(line)

    # --- building ---------------------------------------------------------------------------

    def _build(self, user, size: int, rng: random.Random, now) -> dict:
        started = time.perf_counter()
        nodes = self._make_nodes(size, rng)
        edges = self._make_edges(nodes, rng, now)
        episodes = self._make_episodes(size, rng)
        generated = time.perf_counter()

        forms = sorted({text for _, _, name, aliases in nodes for text in [name, *aliases]}
                       | {relation_phrase(e[2]) for e in edges})
        vectors = self._embed(forms)
        embedded = time.perf_counter()

        self._insert(user.pk, nodes, edges, episodes, forms, vectors, now)
        inserted = time.perf_counter()
        self._analyse()
        return {
            "generate": round(generated - started, 1),
            "embed": round(embedded - generated, 1),
            "distinct_surface_forms": len(forms),
            "insert": round(inserted - embedded, 1),
            "total": round(time.perf_counter() - started, 1),
        }

    def _make_nodes(self, size: int, rng: random.Random) -> list[tuple]:
        """``(index, kind, name, aliases)``; index 0 is the self node."""
        counts = {kind: int(size * share) for kind, share in KIND_SHARES}
        counts["PERSON"] += size - 1 - sum(counts.values())
        names = {kind: _sample_names(kind, count, rng) for kind, count in counts.items()}
        # "Quinn" is not in LAST, so the self node's name cannot collide with a sampled one.
        nodes: list[tuple] = [(0, "PERSON", "Trevor Quinn", ["Trev"])]
        for kind, kind_names in names.items():
            for name in kind_names[: counts[kind]]:
                aliases = []
                if kind == "PERSON" and rng.random() < 0.1:
                    aliases = [name.split()[0]]  # known by first name alone
                nodes.append((len(nodes), kind, name, aliases))
        return nodes

    def _make_edges(self, nodes: list[tuple], rng: random.Random, now) -> list[list]:
        """``[source, target, relation, s0, stability, touched, expires, dormant, superseded]``
        with mean degree 5: self links to 10% of nodes, five power-law hubs, the rest random."""
        size = len(nodes)
        by_kind: dict[str, list[int]] = {}
        for index, kind, _, _ in nodes[1:]:
            by_kind.setdefault(kind, []).append(index)
        edges: list[list] = []
        claims: set[tuple[int, str, int]] = set()
        stabilities, weights = zip(*STABILITY, strict=True)

        def add(source: int, relation: str, target: int) -> None:
            if source == target or (source, relation, target) in claims:
                return
            claims.add((source, relation, target))
            stability = rng.choices(stabilities, weights)[0]
            touched = now - timedelta(days=rng.uniform(0, 400))
            s0 = rng.uniform(30, 100)
            expires = None
            if stability in ("time_bound", "ephemeral"):
                expires = now + timedelta(days=rng.uniform(-60, 120))
            dormant = is_dormant(strength_at(s0, stability, touched, now), stability=stability,
                                 expires_at=expires, now=now)
            edges.append([source, target, relation, s0, stability, touched, expires, dormant,
                          None])

        def relation_for(source_kind: str, target_kind: str) -> tuple[str, bool] | None:
            if (source_kind, target_kind) in BULK_RELATIONS:
                return rng.choice(BULK_RELATIONS[(source_kind, target_kind)]), False
            if (target_kind, source_kind) in BULK_RELATIONS:
                return rng.choice(BULK_RELATIONS[(target_kind, source_kind)]), True
            return None

        # The self node: family first, then 10% of everything.
        people = by_kind["PERSON"]
        for relation in SELF_FAMILY:
            add(0, relation, rng.choice(people))
        for target in rng.sample(range(1, size), max(1, size // 10)):
            found = relation_for("PERSON", nodes[target][1])
            if found:
                add(0, found[0], target)
        # Hubs: a big employer, the home city, a popular topic … with degree N/20, N/40, ...
        hub_kinds = ["ORG", "PLACE", "TOPIC", "ORG", "PLACE"]
        for rank, kind in enumerate(hub_kinds, start=1):
            hub = rng.choice(by_kind[kind])
            for _ in range(size // (20 * rank)):
                other = rng.randrange(1, size)
                found = relation_for(nodes[other][1], kind)
                if found:
                    relation, swapped = found
                    add(hub, relation, other) if swapped else add(other, relation, hub)
        # The rest: random pairs with a sensible label, up to 2.5 N edges in all.
        goal = int(size * 2.5)
        attempts = 0
        while len(edges) < goal and attempts < goal * 20:
            attempts += 1
            a, b = rng.randrange(1, size), rng.randrange(1, size)
            found = relation_for(nodes[a][1], nodes[b][1])
            if found:
                relation, swapped = found
                add(b, relation, a) if swapped else add(a, relation, b)
        # About 1% superseded: same source and label, a newer edge to another node.
        for i in rng.sample(range(len(edges)), len(edges) // 100):
            source, target, relation = edges[i][0], edges[i][1], edges[i][2]
            replacement = rng.choice(by_kind.get(nodes[target][1], [target]))
            before = len(edges)
            add(source, relation, replacement)
            if len(edges) > before:
                edges[i][8] = len(edges) - 1
        return edges

    def _make_episodes(self, size: int, rng: random.Random) -> list[list[int]]:
        """Episodes of ~20 nodes; every node in one or two."""
        count = max(1, size // 13)
        members: list[list[int]] = [[] for _ in range(count)]
        for node in range(size):
            for episode in rng.sample(range(count), 1 if rng.random() < 0.5 else min(2, count)):
                members[episode].append(node)
        return members

    def _embed(self, forms: list[str]) -> np.ndarray:
        # The encoder directly: the benchmark's surface forms must not fill the word cache
        # that Reads use, or the message words would be served from it unrealistically.
        encoder = embedding.get_encoder()
        progress = Progress(self._say, "embed surface forms")
        out = np.empty((len(forms), encoder.dim), dtype=np.float32)
        step = 2048
        for start in range(0, len(forms), step):
            rows = np.asarray(encoder.encode(forms[start:start + step]), dtype=np.float32)
            out[start:start + step] = rows / np.linalg.norm(rows, axis=1, keepdims=True)
            progress(min(start + step, len(forms)), len(forms))
        return out

    def _ids(self, cursor, model, count: int) -> list[int]:
        table = model._meta.db_table
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
            [table, count],
        )
        return [row[0] for row in cursor.fetchall()]

    def _copy(self, cursor, model, columns: list[str], rows) -> None:
        sql = f"COPY {model._meta.db_table} ({', '.join(columns)}) FROM STDIN"
        with cursor.cursor.copy(sql) as copy:
            for row in rows:
                copy.write_row(row)

    def _insert(self, user_id: int, nodes, edges, episodes, forms, vectors, now) -> None:
        progress = Progress(self._say, "insert")
        total_steps = 6
        with transaction.atomic(), connection.cursor() as cursor:
            node_ids = self._ids(cursor, Node, len(nodes))
            self._copy(cursor, Node, ["id", "user_id", "kind", "name", "normalised_name",
                                      "aliases", "properties", "confidence", "provisional",
                                      "is_self", "created_at", "updated_at"],
                       ((node_ids[i], user_id, kind, name, normalise_name(name), aliases, "{}",
                         0.9, False, i == 0, now, now) for i, kind, name, aliases in nodes))
            progress(1, total_steps)

            episode_ids = self._ids(cursor, Episode, len(episodes))
            self._copy(cursor, Episode, ["id", "user_id", "summary", "importance", "tags",
                                         "started_at", "ended_at", "status", "attempts",
                                         "last_error", "extractor", "input_tokens",
                                         "output_tokens", "created_at"],
                       ((eid, user_id, "", 0.5, [], now, now, "done", 0, "", "bench", 0, 0, now)
                        for eid in episode_ids))
            self._copy(cursor, NodeEpisode, ["user_id", "node_id", "episode_id"],
                       ((user_id, node_ids[node], episode_ids[e])
                        for e, members in enumerate(episodes) for node in members))
            progress(2, total_steps)

            edge_ids = self._ids(cursor, Edge, len(edges))
            snippet_ids = self._ids(cursor, Snippet, len(edges))
            names = {i: name for i, _, name, _ in nodes}
            # Foreign keys are DEFERRABLE INITIALLY DEFERRED: edges may cite their snippet and
            # successor before those rows exist, within this transaction.
            self._copy(cursor, Edge, ["id", "user_id", "source_id", "relation", "target_id",
                                      "strength_at_touch", "last_touched_at", "confidence",
                                      "stability", "cardinality", "expires_at", "dormant",
                                      "superseded_by_id", "snippet_id", "created_at"],
                       ((edge_ids[i], user_id, node_ids[s], rel, node_ids[t], s0, touched, 0.8,
                         stability, "one_to_many", expires, dormant,
                         None if sup is None else edge_ids[sup], snippet_ids[i], touched)
                        for i, (s, t, rel, s0, stability, touched, expires, dormant, sup)
                        in enumerate(edges)))
            progress(3, total_steps)
            self._copy(cursor, Snippet, ["id", "user_id", "edge_id", "text", "evidence",
                                         "confidence", "created_at"],
                       ((snippet_ids[i], user_id, edge_ids[i],
                         f"you know, {names[s]} {relation_phrase(rel)} {names[t]}, right?",
                         "bench", 0.8, touched)
                        for i, (s, t, rel, _, _, touched, _, _, _) in enumerate(edges)))
            progress(4, total_steps)

            vector_of = {text: i for i, text in enumerate(forms)}
            model = embedding.status()["model"] or ""

            def literal(text: str) -> str:
                return "[" + ",".join(f"{x:.7g}" for x in vectors[vector_of[text]]) + "]"

            key_rows = [(user_id, node_ids[i], "", text, literal(text), model)
                        for i, _, name, aliases in nodes
                        for text in dict.fromkeys([name, *aliases])]
            key_rows += [(user_id, None, rel, relation_phrase(rel),
                          literal(relation_phrase(rel)), model)
                         for rel in sorted({e[2] for e in edges})]
            progress(5, total_steps)
            self._copy(cursor, MemoryKey, ["user_id", "node_id", "relation", "text", "embedding",
                                           "model"], key_rows)
            progress(6, total_steps)

    def _analyse(self) -> None:
        tables = [m._meta.db_table for m in (Node, Edge, MemoryKey, NodeEpisode, Snippet)]
        with connection.cursor() as cursor:
            # Autovacuum would get there on its own; do it now so plans and visibility maps
            # look like a settled production table. VACUUM cannot run inside a transaction.
            verb = "ANALYZE" if connection.in_atomic_block else "VACUUM (ANALYZE)"
            for table in tables:
                cursor.execute(f"{verb} {table}")

    # --- reading ----------------------------------------------------------------------------

    def _messages(self, user, count: int, rng: random.Random) -> list[str]:
        rows = Node.objects.for_user(user).filter(is_self=False).values_list("kind", "name")
        by_kind: dict[str, list[str]] = {}
        for kind, name in rows:
            by_kind.setdefault(kind, []).append(name)
        out = []
        while len(out) < count:
            template = rng.choice(TEMPLATES)
            slots = [s.split("}")[0] for s in template.split("{")[1:]]
            if any(slot not in by_kind for slot in slots):
                continue
            text = template
            for slot in slots:
                text = text.replace("{" + slot + "}", rng.choice(by_kind[slot]), 1)
            out.append(text)
        return out

    def _bench(self, user, size: int, count: int, rng: random.Random, now,
               options: ReadOptions) -> dict:
        messages = self._messages(user, count + 1, rng)
        edges = Edge.objects.for_user(user).count()
        keys = MemoryKey.objects.for_user(user).count()
        load_before = os.getloadavg()[0]
        # The first Read of a user in a process loads (or sizes up) its keys: reported apart.
        started = time.perf_counter()
        with CaptureQueriesContext(connection) as cold_queries:
            recall(user=user, message=messages[0], now=now, options=options)
        cold_ms = (time.perf_counter() - started) * 1000.0

        totals: list[float] = []
        stages: dict[str, list[float]] = {"embed": [], "seed": [], "spread": [], "format": []}
        queries: list[int] = []
        seeds: list[int] = []
        crossed: list[int] = []
        fired: list[int] = []
        slowest = (0.0, "")
        progress = Progress(self._say, f"recall × {count} at {size} nodes")
        for i, message in enumerate(messages[1:], start=1):
            with CaptureQueriesContext(connection) as captured:
                started = time.perf_counter()
                record = recall(user=user, message=message, now=now, options=options)
                elapsed = (time.perf_counter() - started) * 1000.0
            totals.append(elapsed)
            for stage, values in stages.items():
                values.append(record.timings_ms[stage])
            queries.append(len(captured.captured_queries))
            seeds.append(len(record.seeds))
            crossed.append(len(record.crossed_edges))
            fired.append(len(record.fired))
            slowest = max(slowest, (elapsed, message))
            progress(i, count)
        if Traversal.objects.for_user(user).exists():
            raise CommandError("a Read without a conversation logged traversals")
        return {
            "nodes": size,
            "edges": edges,
            "keys": keys,
            "scan": "exact" if keys <= settings.EXACT_SCAN_MAX_KEYS else "hnsw",
            "messages": count,
            "read_ms": _percentiles(totals),
            "stages_ms": {stage: _percentiles(values) for stage, values in stages.items()},
            "queries": {"mean": round(float(np.mean(queries)), 2), "max": max(queries)},
            "first_read": {"ms": round(cold_ms, 2),
                           "queries": len(cold_queries.captured_queries)},
            "seeds": {"mean": round(float(np.mean(seeds)), 2), "max": max(seeds)},
            "crossed_edges": {"mean": round(float(np.mean(crossed)), 1), "max": max(crossed)},
            "fired_mean": round(float(np.mean(fired)), 2),
            "read_ms_by_seeds": {
                label: dict(_percentiles([t for t, n in zip(totals, seeds, strict=True)
                                          if low <= n <= high]),
                            reads=sum(1 for n in seeds if low <= n <= high))
                for label, (low, high) in SEED_BUCKETS.items()
            },
            "seed_threshold": options.seed_threshold,
            "strategy": getattr(options, "strategy", "spec"),
            # Other work on the machine inflates every figure: recorded next to them.
            "machine": {"cpus": os.cpu_count(), "load_1m_before": round(load_before, 2),
                        "load_1m_after": round(os.getloadavg()[0], 2),
                        "torch_threads": _torch_threads()},
            "slowest": {"ms": round(slowest[0], 2), "message": slowest[1]},
            "target_p95_ms": TARGETS_P95_MS.get(size),
        }

    def _summary(self, r: dict) -> str:
        read, st = r["read_ms"], r["stages_ms"]
        setup = r["setup_s"]
        lines = [
            f"== {r['nodes']} nodes · {r['edges']} edges · {r['keys']} keys ({r['scan']} scan)"
            f" · strategy {r['strategy']} ==",
            f"setup: generate {setup['generate']}s · embed {setup['distinct_surface_forms']} "
            f"forms {setup['embed']}s · insert {setup['insert']}s · total {setup['total']}s"
            if setup else "setup: reused the graph of an earlier --keep run",
            f"first read (cold key cache): {r['first_read']['ms']:.1f} ms, "
            f"{r['first_read']['queries']} queries",
            f"read  ms over {r['messages']} messages: p50 {read['p50']} · p95 {read['p95']} · "
            f"p99 {read['p99']} · max {read['max']}"
            + (f"  (target p95 ≤ {r['target_p95_ms']})" if r["target_p95_ms"] else ""),
        ]
        for stage in ("embed", "seed", "spread", "format"):
            s = st[stage]
            lines.append(f"  {stage:<7} p50 {s['p50']} · p95 {s['p95']} · p99 {s['p99']}")
        lines.append(f"queries per read: mean {r['queries']['mean']} · max {r['queries']['max']}"
                     f" · seeds mean {r['seeds']['mean']} (max {r['seeds']['max']})"
                     f" · crossed edges mean {r['crossed_edges']['mean']}"
                     f" (max {r['crossed_edges']['max']}) · fired mean {r['fired_mean']}")
        for label, bucket in r["read_ms_by_seeds"].items():
            if bucket["reads"]:
                lines.append(f"  reads with {label} seeds: {bucket['reads']} · p50 "
                             f"{bucket['p50']} · p95 {bucket['p95']} ms")
        lines.append(f"slowest: {r['slowest']['ms']} ms — {r['slowest']['message']!r}")
        machine = r["machine"]
        lines.append(f"machine: {machine['cpus']} CPUs · load (1 min) {machine['load_1m_before']}"
                     f" → {machine['load_1m_after']} · torch threads {machine['torch_threads']}")
        return "\n".join(lines)

    # --- cleanup ----------------------------------------------------------------------------

    def _drop(self, username: str) -> None:
        """Delete a bench account and its graph with set-based SQL (the ORM's cascade would
        load hundreds of thousands of rows into Python)."""
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            return
        with transaction.atomic(), connection.cursor() as cursor:
            for model in (Traversal, MemoryKey, NodeEpisode, EdgeEpisode, Snippet, Edge, Node,
                          Episode):
                cursor.execute(f"DELETE FROM {model._meta.db_table} WHERE user_id = %s",
                               [user.pk])
            user.delete()
