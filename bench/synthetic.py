"""Synthetic per-user memory graphs for the benchmarks (``bench_recall``, ``bench_chat``).

``generate(size, seed=..., now=...)`` draws a graph of ``size`` nodes with realistic names
(people, companies, places, things, topics, events, preferences): mean degree 5, five
power-law hubs, a self node linked to 10 % of the nodes, ~40 relation labels, one snippet per
edge, ~1 % superseded edges, episodes of ~20 nodes. A separate ``names_seed`` lets graphs
share their node names (hence their vectors) while each keeps its own structure.
``build_graph(user, size, ...)`` writes one into the database for an (empty) account: rows go
in with COPY in one transaction, with a MemoryKey per surface form (each name, alias and
relation phrase).

Every surface form comes from a fixed vocabulary (the word lists below), so vectors are
shared between users and runs: ``VectorCache`` embeds each distinct form once with the real
sentence model and keeps it on disk under ``var/bench-cache/embeddings/<model>-<dim>-<path
hash>/``.

**Reuse.** A built graph carries a marker in its self node's ``properties["bench_graph"]``
(generator version, size, seeds, model, build time and row counts), written in the same
transaction as the rows, so a marker means a complete graph. ``reusable(user, size,
seed=...)`` returns the marker when the graph is still the one that was built (same
generator version, size, seeds and model, same node, edge and key counts); anything that
changes the graph beyond appending Traversal rows (a Write) must call ``invalidate`` first.
``ensure_graph`` reuses or (re)builds; ``drop_user`` deletes a bench account with
set-based SQL.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import itertools
import json
import random
import re
import struct
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction

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

# Bump when the generator's output for a given (size, seed) changes: older graphs rebuild.
GENERATOR_VERSION = 1
MARKER = "bench_graph"
SELF_NAME, SELF_ALIAS = "Trevor Quinn", "Trev"

Say = Callable[[str], None]

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
SELF_FAMILY = [
    "HAS_PARTNER",
    "HAS_MOTHER",
    "HAS_FATHER",
    "HAS_SISTER",
    "HAS_BROTHER",
    "HAS_DAUGHTER",
    "HAS_SON",
    "HAS_BOSS",
]

KIND_SHARES = [
    ("PERSON", 0.35),
    ("ORG", 0.15),
    ("PLACE", 0.10),
    ("THING", 0.15),
    ("TOPIC", 0.08),
    ("EVENT", 0.10),
    ("PREFERENCE", 0.07),
]
STABILITY = [
    ("stable", 0.5),
    ("mutable", 0.25),
    ("immutable", 0.1),
    ("time_bound", 0.1),
    ("ephemeral", 0.05),
]
HUB_KINDS = ["ORG", "PLACE", "TOPIC", "ORG", "PLACE"]

# Chat-like messages that mention one to three node names among ordinary words.
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


# --- Generation (pure Python, deterministic for a (size, seed)) ------------------------------


def _name_spaces() -> dict[str, list]:
    """Per kind, the combinatorial name space (lists of word lists) to sample names from."""
    return {
        "PERSON": [[FIRST, LAST]],
        "ORG": [[ORG_PREFIX, ORG_SECTOR], [ORG_PREFIX, ORG_SECTOR, ORG_SUFFIX]],
        "PLACE": [
            [CITIES],
            [CITIES, FEATURES],
            [LAST, FEATURES],
            [["Old", "New", "North", "South", "East", "West"], CITIES, FEATURES],
        ],
        "THING": [[ADJECTIVES, NOUNS], [[f"{f}'s" for f in FIRST], NOUNS]],
        "TOPIC": [
            [HOBBIES],
            [FIELDS, HOBBIES],
            [FIELDS, FOODS],
            [FIELDS, HOBBIES, ["club", "scene", "history", "community", "podcast"]],
            [CITIES, HOBBIES, ["club", "scene", "league"]],
        ],
        "EVENT": [
            [[f"{f}'s" for f in FIRST], EVENTS],
            [CITIES, EVENTS],
            [LAST, ["family"], EVENTS],
            [ORG_PREFIX, EVENTS],
        ],
        "PREFERENCE": [
            [PREF_VERBS, FOODS],
            [PREF_VERBS, HOBBIES],
            [PREF_VERBS, CITIES],
            [PREF_VERBS, ADJECTIVES, FOODS],
            [PREF_VERBS, FIELDS, FOODS],
        ],
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
    raise ValueError(f"only {len(names)} distinct {kind} names; size too big")


@dataclass
class Graph:
    """A generated graph, not yet in the database.

    ``nodes``: ``(index, kind, name, aliases)``, index 0 the self node. ``edges``:
    ``[source, target, relation, s0, stability, touched, expires, dormant, superseded]``
    (indexes into ``nodes``; ``superseded`` an index into ``edges`` or None). ``episodes``:
    per episode, the indexes of its nodes.
    """

    size: int
    seed: int
    names_seed: int
    now: datetime
    nodes: list[tuple]
    edges: list[list] = field(default_factory=list)
    episodes: list[list[int]] = field(default_factory=list)

    def node_forms(self) -> list[str]:
        return [
            text for _, _, name, aliases in self.nodes for text in dict.fromkeys([name, *aliases])
        ]

    def relations(self) -> list[str]:
        return sorted({edge[2] for edge in self.edges})


def _rng(seed: int) -> random.Random:
    return random.Random(seed)


def make_nodes(size: int, rng: random.Random) -> list[tuple]:
    """``(index, kind, name, aliases)``; index 0 is the self node."""
    if size < 50:
        raise ValueError("a synthetic graph needs at least 50 nodes")
    counts = {kind: int(size * share) for kind, share in KIND_SHARES}
    counts["PERSON"] += size - 1 - sum(counts.values())
    names = {kind: _sample_names(kind, count, rng) for kind, count in counts.items()}
    # "Quinn" is not in LAST, so the self node's name cannot collide with a sampled one.
    nodes: list[tuple] = [(0, "PERSON", SELF_NAME, [SELF_ALIAS])]
    for kind, kind_names in names.items():
        for name in kind_names[: counts[kind]]:
            aliases = []
            if kind == "PERSON" and rng.random() < 0.1:
                aliases = [name.split()[0]]  # known by first name alone
            nodes.append((len(nodes), kind, name, aliases))
    return nodes


def make_edges(nodes: list[tuple], rng: random.Random, now: datetime) -> list[list]:
    """Mean degree 5: the self node links to 10 % of the nodes, five power-law hubs, the rest
    random pairs with a sensible label; about 1 % of the edges superseded."""
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
        dormant = is_dormant(
            strength_at(s0, stability, touched, now),
            stability=stability,
            expires_at=expires,
            now=now,
        )
        edges.append([source, target, relation, s0, stability, touched, expires, dormant, None])

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
    for rank, kind in enumerate(HUB_KINDS, start=1):
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


def make_episodes(size: int, rng: random.Random) -> list[list[int]]:
    """Episodes of ~20 nodes; every node in one or two."""
    count = max(1, size // 13)
    members: list[list[int]] = [[] for _ in range(count)]
    for node in range(size):
        for episode in rng.sample(range(count), 1 if rng.random() < 0.5 else min(2, count)):
            members[episode].append(node)
    return members


def generate(size: int, *, seed: int, now: datetime, names_seed: int | None = None) -> Graph:
    """The graph of ``(size, seed)``; edge times are relative to ``now``.

    ``names_seed`` (default: ``seed``) draws the node names; ``seed`` everything else. Graphs
    that share a ``names_seed`` have the same nodes (so the same surface forms to embed) but
    their own edges, hubs, strengths and episodes.
    """
    names_seed = seed if names_seed is None else names_seed
    rng = _rng(names_seed)
    nodes = make_nodes(size, rng)
    if names_seed != seed:
        rng = _rng(seed)
    edges = make_edges(nodes, rng, now)
    episodes = make_episodes(size, rng)
    return Graph(
        size=size,
        seed=seed,
        names_seed=names_seed,
        now=now,
        nodes=nodes,
        edges=edges,
        episodes=episodes,
    )


def node_forms(size: int, *, seed: int, names_seed: int | None = None) -> list[str]:
    """The names and aliases ``generate`` gives the nodes (cheap: the nodes are drawn first,
    so the edges need not be)."""
    names_seed = seed if names_seed is None else names_seed
    nodes = make_nodes(size, _rng(names_seed))
    return Graph(
        size=size, seed=seed, names_seed=names_seed, now=datetime.min, nodes=nodes
    ).node_forms()


def relation_forms() -> list[str]:
    """Every relation phrase the generator can use (the whole label vocabulary)."""
    labels = {label for labels in BULK_RELATIONS.values() for label in labels} | set(SELF_FAMILY)
    return sorted(relation_phrase(label) for label in labels)


def sample_messages(
    names_by_kind: dict[str, list[str]], count: int, rng: random.Random
) -> list[str]:
    """``count`` chat-like messages from ``TEMPLATES``, each slot filled with a name of its
    kind from ``names_by_kind``; templates with a kind that has no names are skipped."""
    usable = [t for t in TEMPLATES if all(names_by_kind.get(slot) for slot in _slots(t))]
    if not usable:
        raise ValueError("no names to fill the message templates with")
    out = []
    while len(out) < count:
        template = rng.choice(TEMPLATES)
        slots = _slots(template)
        if any(not names_by_kind.get(slot) for slot in slots):
            continue
        text = template
        for slot in slots:
            text = text.replace("{" + slot + "}", rng.choice(names_by_kind[slot]), 1)
        out.append(text)
    return out


def _slots(template: str) -> list[str]:
    return [s.split("}")[0] for s in template.split("{")[1:]]


def names_by_kind(user, *, per_kind: int | None = None) -> dict[str, list[str]]:
    """The user's non-self node names by kind (at most ``per_kind`` each, lowest ids)."""
    out: dict[str, list[str]] = {}
    rows = (
        Node.objects.for_user(user).filter(is_self=False).order_by("id").values_list("kind", "name")
    )
    for kind, name in rows.iterator(chunk_size=5000):
        names = out.setdefault(kind, [])
        if per_kind is None or len(names) < per_kind:
            names.append(name)
    return out


# --- Vectors ---------------------------------------------------------------------------------


class VectorCache:
    """Unit vectors of surface forms from the real sentence model, each form embedded once.

    With a ``directory`` the vectors persist there (``forms.jsonl`` + ``vectors.f32``,
    appended under a file lock; a torn append is trimmed on load), keyed by the model's name,
    dimension and path. ``VectorCache.default()`` uses ``var/bench-cache/embeddings/``.
    Reads bypass ``memory.embedding.embed``'s word cache on purpose: filling it with surface
    forms would serve the benchmark messages' words from it unrealistically.
    """

    def __init__(self, directory: Path | None = None):
        # The model loads only when something needs embedding (get_encoder checks that it
        # gives EMBEDDING_DIM dimensions).
        self.model = embedding.model_name()
        self.dim = int(settings.EMBEDDING_DIM)
        self._index: dict[str, int] = {}
        self._matrix = np.empty((0, self.dim), dtype=np.float32)
        self._size = 0
        self.directory = None
        if directory is not None:
            # Keyed by the model's name, dimension and location: bundled models are all
            # called "model", so the name alone would mix up two of them.
            safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", self.model)
            where = hashlib.sha256(str(embedding.model_path().resolve()).encode()).hexdigest()
            self.directory = Path(directory) / f"{safe}-{self.dim}-{where[:10]}"
            self.directory.mkdir(parents=True, exist_ok=True)
            self._load()

    @classmethod
    def default(cls) -> VectorCache:
        return cls(Path(settings.VAR_DIR) / "bench-cache" / "embeddings")

    def __len__(self) -> int:
        return self._size

    def __contains__(self, form: str) -> bool:
        return form in self._index

    @contextlib.contextmanager
    def _locked(self) -> Iterator[tuple[Path, Path]]:
        assert self.directory is not None
        with open(self.directory / "lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield self.directory / "forms.jsonl", self.directory / "vectors.f32"
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _load(self) -> None:
        with self._locked() as (forms_path, vectors_path):
            forms = forms_path.read_text().splitlines() if forms_path.exists() else []
            row_bytes = 4 * self.dim
            rows = vectors_path.stat().st_size // row_bytes if vectors_path.exists() else 0
            keep = min(len(forms), rows)
            # An interrupted append leaves one file longer than the other: trim both.
            if rows != keep or (
                vectors_path.exists() and vectors_path.stat().st_size != keep * row_bytes
            ):
                with open(vectors_path, "r+b") as f:
                    f.truncate(keep * row_bytes)
            if len(forms) != keep:
                forms = forms[:keep]
                forms_path.write_text("".join(line + "\n" for line in forms))
            matrix = (
                np.fromfile(vectors_path, dtype=np.float32, count=keep * self.dim).reshape(
                    keep, self.dim
                )
                if keep
                else np.empty((0, self.dim), np.float32)
            )
        self._matrix = matrix.copy()
        self._size = keep
        self._index = {json.loads(line): i for i, line in enumerate(forms)}

    def _append_memory(self, forms: list[str], vectors: np.ndarray) -> None:
        needed = self._size + len(forms)
        if needed > len(self._matrix):
            grown = np.empty((max(needed, 2 * len(self._matrix), 1024), self.dim), np.float32)
            grown[: self._size] = self._matrix[: self._size]
            self._matrix = grown
        self._matrix[self._size : needed] = vectors
        for i, form in enumerate(forms):
            self._index[form] = self._size + i
        self._size = needed

    def missing(self, forms: Iterable[str]) -> list[str]:
        return [form for form in dict.fromkeys(forms) if form not in self._index]

    def ensure(self, forms: Iterable[str], *, say: Say | None = None, batch: int = 2048) -> dict:
        """Embed the forms not cached yet; returns ``{"embedded", "cached", "seconds"}``."""
        started = time.perf_counter()
        wanted = list(dict.fromkeys(forms))
        todo = self.missing(wanted)
        progress = Progress(say, "embed surface forms") if say and todo else None
        for start in range(0, len(todo), batch):
            chunk = todo[start : start + batch]
            rows = np.asarray(embedding.get_encoder().encode(chunk), dtype=np.float32)
            norms = np.linalg.norm(rows, axis=1, keepdims=True)
            norms[norms == 0] = 1.0
            rows = rows / norms
            if self.directory is not None:
                with self._locked() as (forms_path, vectors_path):
                    # Vectors first, then their forms: a torn append is trimmed by _load.
                    with open(vectors_path, "ab") as f:
                        f.write(rows.astype(np.float32).tobytes())
                    with open(forms_path, "a") as f:
                        f.write("".join(json.dumps(form) + "\n" for form in chunk))
            self._append_memory(chunk, rows)
            if progress:
                progress(min(start + batch, len(todo)), len(todo))
        return {
            "embedded": len(todo),
            "cached": len(wanted) - len(todo),
            "seconds": round(time.perf_counter() - started, 2),
        }

    def vector(self, form: str) -> np.ndarray:
        return self._matrix[self._index[form]]


# --- Writing a graph -------------------------------------------------------------------------


def _ids(cursor, model, count: int) -> list[int]:
    table = model._meta.db_table
    cursor.execute(
        "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
        [table, count],
    )
    return [row[0] for row in cursor.fetchall()]


def _copy(cursor, model, columns: list[str], rows) -> None:
    sql = f"COPY {model._meta.db_table} ({', '.join(columns)}) FROM STDIN"
    with cursor.cursor.copy(sql) as copy:
        for row in rows:
            copy.write_row(row)


def _copy_keys(cursor, rows) -> None:
    """MemoryKey rows in binary COPY: formatting 384 floats per key as text would cost more
    than the insert itself."""
    columns = ["user_id", "node_id", "relation", "text", "embedding", "model"]
    table = MemoryKey._meta.db_table
    cursor.execute(
        "SELECT a.attname, t.typname FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid "
        "WHERE a.attrelid = %s::regclass AND a.attnum > 0",
        [table],
    )
    types = dict(cursor.fetchall())
    cursor.execute("SELECT 'vector'::regtype::oid")
    vector_oid = cursor.fetchone()[0]
    raw = cursor.cursor

    class PackedVector(bytes):
        """A vector already in pgvector's binary form (int16 dim, int16 0, float32 BE)."""

    from psycopg.adapt import Dumper
    from psycopg.pq import Format

    class PackedVectorDumper(Dumper):
        format = Format.BINARY
        oid = vector_oid

        def dump(self, obj):
            return obj

    raw.adapters.register_dumper(PackedVector, PackedVectorDumper)
    header = struct.pack(">HH", len(rows[0][4]) if rows else 0, 0)
    sql = f"COPY {table} ({', '.join(columns)}) FROM STDIN (FORMAT BINARY)"
    with raw.copy(sql) as copy:
        copy.set_types([types[c] if c != "embedding" else vector_oid for c in columns])
        for user_id, node_id, relation, text, vector, model in rows:
            copy.write_row(
                (
                    user_id,
                    node_id,
                    relation,
                    text,
                    PackedVector(header + vector.astype(">f4").tobytes()),
                    model,
                )
            )


def build_graph(
    user,
    size: int,
    *,
    seed: int,
    now: datetime,
    names_seed: int | None = None,
    progress: Say | None = None,
    cache: VectorCache | None = None,
) -> dict:
    """Generate the ``(size, seed)`` graph and write it for ``user`` (who must own no nodes
    yet), with the reuse marker, in one transaction. Returns timings in seconds:
    ``generate``, ``embed`` (``distinct_surface_forms``, ``embedded`` new), ``insert`` (and
    ``insert_stages``), ``total``, and the row counts."""
    if Node.objects.for_user(user).exists():
        raise ValueError(f"user {user.pk} already has a memory graph; drop it first")
    started = time.perf_counter()
    graph = generate(size, seed=seed, now=now, names_seed=names_seed)
    generated = time.perf_counter()

    cache = cache if cache is not None else VectorCache.default()
    forms = sorted(set(graph.node_forms()) | {relation_phrase(r) for r in graph.relations()})
    embedded = cache.ensure(forms, say=progress)
    embed_done = time.perf_counter()

    stages = _insert(user.pk, graph, cache, progress)
    inserted = time.perf_counter()
    return {
        "generate": round(generated - started, 1),
        "embed": round(embed_done - generated, 1),
        "distinct_surface_forms": len(forms),
        "embedded": embedded["embedded"],
        "insert": round(inserted - embed_done, 1),
        "insert_stages": stages,
        "nodes": len(graph.nodes),
        "edges": len(graph.edges),
        "keys": stages["key_rows"],
        "total": round(inserted - started, 1),
    }


def _insert(user_id: int, graph: Graph, cache: VectorCache, say: Say | None) -> dict:
    nodes, edges, episodes, now = graph.nodes, graph.edges, graph.episodes, graph.now
    progress = Progress(say, "insert") if say else None
    timings: dict = {}
    clock = time.perf_counter()

    def step(name: str, done: int) -> None:
        nonlocal clock
        timings[name] = round(time.perf_counter() - clock, 2)
        clock = time.perf_counter()
        if progress:
            progress(done, 5)

    key_rows = [
        (user_id, i, "", text)
        for i, _, name, aliases in nodes
        for text in dict.fromkeys([name, *aliases])
    ]
    relations = graph.relations()
    marker = {
        "generator": GENERATOR_VERSION,
        "size": graph.size,
        "seed": graph.seed,
        "names_seed": graph.names_seed,
        "model": cache.model,
        "built_at": now.isoformat(),
        "nodes": len(nodes),
        "edges": len(edges),
        "keys": len(key_rows) + len(relations),
    }
    with transaction.atomic(), connection.cursor() as cursor:
        node_ids = _ids(cursor, Node, len(nodes))
        self_properties = json.dumps({MARKER: marker})
        _copy(
            cursor,
            Node,
            ["id", "user_id", *Node.CONTENT_FIELDS, "created_at", "updated_at"],
            (
                (
                    node_ids[i],
                    user_id,
                    kind,
                    name,
                    normalise_name(name),
                    aliases,
                    self_properties if i == 0 else "{}",
                    0.9,
                    False,
                    i == 0,
                    now,
                    now,
                )
                for i, kind, name, aliases in nodes
            ),
        )
        step("nodes", 1)

        episode_ids = _ids(cursor, Episode, len(episodes))
        _copy(
            cursor,
            Episode,
            [
                "id",
                "user_id",
                *Episode.CONTENT_FIELDS,
                "status",
                "attempts",
                "last_error",
                "extractor",
                "input_tokens",
                "output_tokens",
                "created_at",
            ],
            (
                (eid, user_id, "", 0.5, [], now, now, "done", 0, "", "bench", 0, 0, now)
                for eid in episode_ids
            ),
        )
        _copy(
            cursor,
            NodeEpisode,
            ["user_id", "node_id", "episode_id"],
            (
                (user_id, node_ids[node], episode_ids[e])
                for e, members in enumerate(episodes)
                for node in members
            ),
        )
        step("episodes", 2)

        edge_ids = _ids(cursor, Edge, len(edges))
        snippet_ids = _ids(cursor, Snippet, len(edges))
        names = {i: name for i, _, name, _ in nodes}
        # Foreign keys are DEFERRABLE INITIALLY DEFERRED: edges may cite their snippet and
        # successor before those rows exist, within this transaction.
        _copy(
            cursor,
            Edge,
            [
                "id",
                "user_id",
                "source_id",
                "relation",
                "target_id",
                "strength_at_touch",
                *Edge.STATE_FIELDS,
                "superseded_by_id",
                "snippet_id",
                "created_at",
            ],
            (
                (
                    edge_ids[i],
                    user_id,
                    node_ids[s],
                    rel,
                    node_ids[t],
                    s0,
                    touched,
                    0.8,
                    stability,
                    "one_to_many",
                    expires,
                    dormant,
                    None if sup is None else edge_ids[sup],
                    snippet_ids[i],
                    touched,
                )
                for i, (s, t, rel, s0, stability, touched, expires, dormant, sup) in enumerate(
                    edges
                )
            ),
        )
        step("edges", 3)
        _copy(
            cursor,
            Snippet,
            ["id", "user_id", "edge_id", "text", "evidence", "confidence", "created_at"],
            (
                (
                    snippet_ids[i],
                    user_id,
                    edge_ids[i],
                    f"you know, {names[s]} {relation_phrase(rel)} {names[t]}, right?",
                    "bench",
                    0.8,
                    touched,
                )
                for i, (s, t, rel, _, _, touched, _, _, _) in enumerate(edges)
            ),
        )
        step("snippets", 4)

        rows = [
            (uid, node_ids[i], rel, text, cache.vector(text), cache.model)
            for uid, i, rel, text in key_rows
        ]
        rows += [
            (
                user_id,
                None,
                rel,
                relation_phrase(rel),
                cache.vector(relation_phrase(rel)),
                cache.model,
            )
            for rel in relations
        ]
        _copy_keys(cursor, rows)
        step("keys", 5)
    timings["key_rows"] = len(rows)
    timings["ms_per_key"] = round(1000.0 * timings["keys"] / max(1, len(rows)), 3)
    return timings


def analyse() -> None:
    """Settle the planner statistics after bulk loads (autovacuum would get there later)."""
    tables = [m._meta.db_table for m in (Node, Edge, MemoryKey, NodeEpisode, Snippet)]
    with connection.cursor() as cursor:
        # VACUUM cannot run inside a transaction.
        verb = "ANALYZE" if connection.in_atomic_block else "VACUUM (ANALYZE)"
        for table in tables:
            cursor.execute(f"{verb} {table}")


# --- Reuse -----------------------------------------------------------------------------------


def marker_of(user) -> dict | None:
    """The reuse marker on the user's self node, if any."""
    properties = (
        Node.objects.for_user(user)
        .filter(is_self=True)
        .values_list("properties", flat=True)
        .first()
    )
    marker = (properties or {}).get(MARKER)
    return marker if isinstance(marker, dict) else None


def reusable(user, size: int, *, seed: int, names_seed: int | None = None) -> dict | None:
    """The marker of ``user``'s graph when it is the unchanged ``(size, seed, names_seed)``
    graph of this generator version and the current model, else None."""
    if user is None:
        return None
    marker = marker_of(user)
    if marker is None:
        return None
    wanted = {
        "generator": GENERATOR_VERSION,
        "size": size,
        "seed": seed,
        "names_seed": seed if names_seed is None else names_seed,
        "model": embedding.model_name(),
    }
    if any(marker.get(k) != v for k, v in wanted.items()):
        return None
    counts = {
        "nodes": Node.objects.for_user(user).count(),
        "edges": Edge.objects.for_user(user).count(),
        "keys": MemoryKey.objects.for_user(user).count(),
    }
    if any(counts[k] != marker.get(k) for k in counts):
        return None
    return marker


def invalidate(user) -> None:
    """Forget that ``user``'s graph is a pristine bench graph (call before writing to it)."""
    with transaction.atomic():
        node = Node.objects.for_user(user).filter(is_self=True).select_for_update().first()
        if node is not None and MARKER in node.properties:
            node.properties.pop(MARKER)
            node.save(update_fields=["properties"])


def built_at(marker: dict) -> datetime:
    return datetime.fromisoformat(marker["built_at"])


def drop_user(username: str) -> bool:
    """Delete a bench account and everything it owns. The graph goes with set-based SQL (the
    ORM's cascade would load hundreds of thousands of rows into Python); the rest (chat,
    merge decisions, profile) through the ORM, in the same transaction."""
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        return False
    with transaction.atomic(), connection.cursor() as cursor:
        for model in (Traversal, MemoryKey, NodeEpisode, EdgeEpisode, Snippet, Edge, Node, Episode):
            cursor.execute(f"DELETE FROM {model._meta.db_table} WHERE user_id = %s", [user.pk])
        user.delete()
    return True


def ensure_graph(
    username: str,
    size: int,
    *,
    seed: int,
    now: datetime,
    names_seed: int | None = None,
    rebuild: bool = False,
    progress: Say | None = None,
    cache: VectorCache | None = None,
):
    """The bench account ``username`` with the ``(size, seed, names_seed)`` graph: reused
    when ``reusable``, else (or with ``rebuild``) dropped and built afresh at ``now``.
    Returns ``(user, marker, setup)``; ``setup`` is None when the graph was reused."""
    user_model = get_user_model()
    user = user_model.objects.filter(username=username).first()
    marker = None if rebuild else reusable(user, size, seed=seed, names_seed=names_seed)
    if marker is not None:
        return user, marker, None
    drop_user(username)  # a stale graph, or a build that was interrupted
    user = user_model.objects.create_user(username, f"{username}@example.invalid")
    setup = build_graph(
        user, size, seed=seed, now=now, names_seed=names_seed, progress=progress, cache=cache
    )
    return user, marker_of(user), setup
