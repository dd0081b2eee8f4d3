"""The deterministic cleaning pass over an extractor batch (SPEC §5.5, §6.2).

Both extractors (Claude with tools, offline spaCy) emit a ``pegasus-batch/1`` dict.
Nothing in it is trusted: every field is type-checked, labels and names are
normalised, and every relation must be anchored in the user's own words. Items
that cannot be repaired are dropped one by one with a reason; only a batch whose
top-level shape is wrong is rejected as a whole (``BatchError``).

Stored text is shown to a model again at every later Read, so no text that reads like
an order to a model (``instruction_like``) survives cleaning: not as a name, alias,
property, relation label, snippet, evidence, summary, tag or self name.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

__all__ = [
    "BATCH_FORMAT",
    "CARDINALITIES",
    "KINDS",
    "RELATION_LABEL",
    "SELF_PLACEHOLDERS",
    "STABILITIES",
    "BatchError",
    "CleanResult",
    "Drop",
    "clean_batch",
    "fold_lookalikes",
    "instruction_like",
    "normalise_name",
    "normalise_ws",
]

BATCH_FORMAT = "pegasus-batch/1"
KINDS = frozenset({"PERSON", "ORG", "PLACE", "EVENT", "THING", "TOPIC", "PREFERENCE", "OTHER"})
STABILITIES = frozenset({"immutable", "stable", "mutable", "time_bound", "ephemeral"})
TEMPORARY = frozenset({"time_bound", "ephemeral"})
CARDINALITIES = frozenset({"one_to_one", "one_to_many"})
RELATION_LABEL = re.compile(r"^[A-Z][A-Z0-9]*(_[A-Z0-9]+){0,3}$")
OCCURRED_PATTERN = r"^([0-9]{4}(-[0-9]{2}(-[0-9]{2}(/[0-9]{4}-[0-9]{2}-[0-9]{2})?)?)?)?$"
"""When a claim happened (SPEC §5.5): ``""`` (unknown), ``YYYY``, ``YYYY-MM``, ``YYYY-MM-DD``
or a day range ``YYYY-MM-DD/YYYY-MM-DD`` (the database checks the same pattern)."""
_OCCURRED = re.compile(OCCURRED_PATTERN)

SELF_PLACEHOLDERS: frozenset[str] = frozenset(
    {"user", "the user", "me", "i", "myself", "my", "mine", "self"}
)
"""Normalised relation ends that mean the user (§5.6). "you" is deliberately absent:
in the user's turns it is the assistant, and extractors quote it in that sense."""

PROVISIONAL_CONFIDENCE = 0.3
DEFAULT_CONFIDENCE = 0.5

# Kinds whose names are proper nouns: an all-lowercase name is a casing slip.
_TITLE_CASE_KINDS = frozenset({"PERSON", "ORG", "PLACE"})
_WS = re.compile(r"\s+")
_LABEL_SEPARATORS = re.compile(r"[\s\-]+")
_WORD_START = re.compile(r"(^|[\s\-])(\w)")
# Quotes, brackets, dashes and sentence punctuation are wrapping, not part of a
# name; symbols such as "#", "&" or "+" can be ("C#", "AT&T") and are kept.
_EDGE_PUNCT_CATEGORIES = frozenset({"Pi", "Pf", "Ps", "Pe", "Pd", "Pc"})
_EDGE_PUNCT_CHARS = frozenset(".,;:!?\"'`…¡¿·")


class BatchError(ValueError):
    """The batch as a whole is unusable (wrong format tag or top-level shape)."""


@dataclass(frozen=True)
class Drop:
    """One dropped item: ``item`` describes it (``"relation a -[X]-> b"``,
    ``"entity 'x'"``), ``reason`` says why."""

    item: str
    reason: str


@dataclass
class CleanResult:
    """Output of ``clean_batch``.

    batch: a new ``pegasus-batch/1`` dict holding only clean items; every entity
        carries ``"provisional"`` (true only for those created here).
    drops: every dropped item with its reason.
    provisional: refs of the provisional entities created for unknown ends.
    fixes: human-readable notes of every repair made.
    """

    batch: dict
    drops: list[Drop] = field(default_factory=list)
    provisional: list[str] = field(default_factory=list)
    fixes: list[str] = field(default_factory=list)


def normalise_ws(text: str) -> str:
    """Collapse every run of whitespace to one space and strip the ends."""
    return _WS.sub(" ", text).strip()


def _strip_edge_punct(text: str) -> str:
    def wrapping(ch: str) -> bool:
        return (
            ch.isspace()
            or ch in _EDGE_PUNCT_CHARS
            or unicodedata.category(ch) in _EDGE_PUNCT_CATEGORIES
        )

    start, end = 0, len(text)
    while start < end and wrapping(text[start]):
        start += 1
    while end > start and wrapping(text[end - 1]):
        end -= 1
    return text[start:end]


def normalise_name(name: str) -> str:
    """The comparison form of a name (SPEC §4 unique key, §5.6 rule 1).

    NFKC (full-width and compatibility forms fold), casefold, whitespace collapsed,
    surrounding quotes/brackets/punctuation stripped. ``'  "Bill  Smith". '`` →
    ``"bill smith"``.
    """
    folded = unicodedata.normalize("NFKC", name).casefold()
    return _strip_edge_punct(normalise_ws(folded))


# Common Cyrillic and Greek letters that look like Latin ones (after case folding).
_LOOKALIKES = str.maketrans(
    dict(zip("асϲеεһіικκмоοσрρʀѕтτхχуγүոԁɡј", "acceehiikkmooopprsttxxyyyndgj", strict=True))
)
# Characters that show nothing of their own: combining marks and format characters
# (zero-width, bidi controls, tag characters), plus the Hangul fillers.
_UNSEEN_CATEGORIES = frozenset({"Mn", "Me", "Cf"})
_FILLERS = frozenset("\u115f\u1160\u3164\uffa0")


def fold_lookalikes(text: str) -> str:
    """The form of ``text`` a reader (or a model) recognises: NFKD (full-width and other
    compatibility forms fold, accents split off), case-folded, with combining marks,
    format characters (zero-width, bidi, tag characters) and Hangul fillers removed and
    common Cyrillic/Greek look-alikes mapped to Latin letters: full-width "ＩＧＮＯＲＥ",
    "ig" + ZERO WIDTH SPACE + "nore" and Cyrillic "іgnоrе" all fold to "ignore".
    For matching only; stored text is never replaced by it."""
    folded = unicodedata.normalize("NFKD", text).casefold()
    if folded.isascii():
        return folded
    kept = (
        c for c in folded if c not in _FILLERS and unicodedata.category(c) not in _UNSEEN_CATEGORIES
    )
    return "".join(kept).translate(_LOOKALIKES)


# Applied to ``fold_lookalikes(text)``. Each branch is a way of addressing a model rather
# than saying something about one's life; see ``instruction_like``.
_INSTRUCTION = re.compile(
    r"""
    \b(?:ignore|disregard|forget|override|bypass)\b[^.!?\n]{0,40}?
        \b(?:instructions?|prompts?|rules|guidelines|directives?|messages?|context|above)\b
    | \bsystem\s+(?:prompt|message|instructions?)\b
    | \b(?:initial|original|hidden|secret|developer)\s+(?:prompt|instructions?)\b
    | \byou\s+(?:must|are\s+now|will\s+now|should\s+now|have\s+to\s+now)\b
    | \b(?:new|updated|real)\s+instructions?\b
    | \b(?:act|behave|respond)\s+as\s+(?:if|an?|the)\b
    | \bpretend\s+(?:to\s+be|you)\b
    | \b(?:jailbreak|developer\s+mode|prompt\s+injection|do\s+anything\s+now)\b
    | [\[<]\s*/?\s*(?:memory|context|system|inst|sys|assistant|human|developer)\s*[\]>]
    | <\|?/?(?:system|im_start|im_end|assistant|endoftext)\b
    | (?:^|[\n.!?;])\s*(?:system|assistant|developer|human)\s*:
    | \bfrom\s+now\s+on\b[^.!?\n]{0,40}?\b(?:you|always|never)\b
    | \b(?:reveal|print|show|repeat|output|dump|leak|list|tell\s+me|give\s+me)\b[^.!?\n]{0,40}?
        (?:\b(?:your|the)\s+(?:instructions|prompt)\b
          | \b(?:other|another|all|every)\s+(?:users?|accounts?)\b|\beveryone\s+else)
    | \b(?:other|another)\s+(?:users?|accounts?)(?:'s?)?\s+
        (?:memor\w*|data|conversations?|secrets?|graphs?|messages?|chats?)\b
    | \b(?:memor(?:y|ies)|data|conversations?|secrets?)\s+(?:of|from|belonging\s+to)\s+
        (?:other|another|all|every)\s+(?:users?|accounts?)\b
    """,
    re.VERBOSE,
)


def instruction_like(text: str) -> bool:
    """Whether ``text`` reads like an order to a model rather than something about the
    user's life: an "ignore/disregard/forget … instructions/prompt/rules/above" phrase,
    "system prompt", "you must" / "you are now", "new instructions", "act as a …",
    "pretend to be", "jailbreak" / "developer mode", memory, context or chat-template tags
    (``[SYSTEM]``, ``</memory>``, ``<|im_start|>``), a line or sentence opening with
    "assistant:", "system:" or "human:", "from now on … you/always/never", or asking to
    reveal the prompt or other users' memories. Matched on ``fold_lookalikes(text)``, so
    full-width letters, zero-width characters and Cyrillic look-alikes do not hide a phrase.

    Deliberately broad: a missed fact costs little, a stored instruction is re-injected
    into later prompts. Used by the offline extractor (it skips such sentences) and by
    ``clean_batch`` (it drops such items, whatever the extractor)."""
    return bool(_INSTRUCTION.search(fold_lookalikes(text)))


def _instruction_in(value: Any) -> bool:
    """Whether any string inside ``value`` (a JSON value: keys included) is instruction-like."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if instruction_like(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return False


def _clean_properties(properties: dict, item: str, fixes: list[str]) -> dict:
    kept = {}
    for key, value in properties.items():
        if _instruction_in(key) or _instruction_in(value):
            fixes.append(f"{item}: property {key!r} dropped (instruction-like)")
            continue
        kept[key] = value
    return kept


_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")


def _clean_summary(summary: str, fixes: list[str]) -> str:
    if not instruction_like(summary):
        return summary
    kept = [s for s in _SENTENCE_END.split(summary) if not instruction_like(s)]
    fixes.append("episode: instruction-like sentence(s) dropped from the summary")
    cleaned = " ".join(kept)
    # A sentence can hide an instruction only together with its neighbour.
    return "" if instruction_like(cleaned) else cleaned


def _is_number(value: Any) -> bool:
    # bool is an int subclass, but True is not a confidence.
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _confidence(value: Any, label: str, fixes: list[str]) -> float:
    if not _is_number(value) or math.isnan(value):
        if value is not None:
            fixes.append(f"{label}: confidence {value!r} is not a number, set to 0.5")
        return DEFAULT_CONFIDENCE
    clamped = min(1.0, max(0.0, float(value)))
    if clamped != value:
        fixes.append(f"{label}: confidence {value!r} clamped to {clamped}")
    return clamped


def _title_case(name: str) -> str:
    return _WORD_START.sub(lambda m: m.group(1) + m.group(2).upper(), name)


def _ref_of(value: Any) -> str | None:
    # Extractors sometimes emit numeric refs; they are labels either way.
    if isinstance(value, str) and value.strip():
        return value.strip()
    if _is_number(value) and not isinstance(value, float):
        return str(value)
    return None


def _clean_episode(raw: Any, fixes: list[str]) -> dict | None:
    if raw is None:
        return None
    episode: dict[str, Any] = {}
    for key in ("started_at", "ended_at"):
        value = raw.get(key)
        if value is not None and not _valid_iso(value):
            fixes.append(f"episode: {key} {value!r} is not an ISO 8601 time, dropped")
            value = None
        episode[key] = value
    summary = raw.get("summary")
    if summary is not None and not isinstance(summary, str):
        fixes.append("episode: summary is not text, dropped")
        summary = None
    episode["summary"] = _clean_summary(normalise_ws(summary), fixes) if summary else ""
    importance = raw.get("importance")
    episode["importance"] = _confidence(importance, "episode importance", fixes)
    tags = raw.get("tags")
    if tags is None:
        tags = []
    if not isinstance(tags, list):
        fixes.append("episode: tags is not a list, dropped")
        tags = []
    clean_tags: list[str] = []
    for tag in tags:
        if isinstance(tag, str) and instruction_like(tag):
            fixes.append(f"episode: tag {tag!r} dropped (instruction-like)")
        elif isinstance(tag, str) and normalise_ws(tag):
            if normalise_ws(tag) not in clean_tags:
                clean_tags.append(normalise_ws(tag))
        else:
            fixes.append(f"episode: tag {tag!r} dropped")
    episode["tags"] = clean_tags
    return episode


def _valid_iso(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        datetime.fromisoformat(value.strip())
    except ValueError:
        return False
    return True


@dataclass
class _Entity:
    ref: str
    data: dict


def _describe_entity(raw: Any) -> str:
    if isinstance(raw, dict):
        name = raw.get("name")
        if isinstance(name, str) and name.strip():
            return f"entity {normalise_ws(name)!r}"
        return f"entity ref {raw.get('ref')!r}"
    return f"entity {raw!r}"[:120]


def _entity_fields(raw: dict, ref: str, name: str, item: str, fixes: list[str]) -> dict:
    """The cleaned fields of one entity whose ref and (non-empty) name are valid."""
    kind_raw = raw.get("kind")
    kind = kind_raw.strip().upper() if isinstance(kind_raw, str) else ""
    if kind not in KINDS:
        fixes.append(f"{item}: unknown kind {kind_raw!r}, set to OTHER")
        kind = "OTHER"
    if kind in _TITLE_CASE_KINDS and name == name.lower() and name != name.upper():
        fixed = _title_case(name)
        fixes.append(f"{item}: casing {name!r} → {fixed!r}")
        name = fixed

    aliases_raw = raw.get("aliases") or []
    if not isinstance(aliases_raw, list):
        fixes.append(f"{item}: aliases is not a list, dropped")
        aliases_raw = []
    aliases: list[str] = []
    alias_keys = {normalise_name(name)}
    for alias in aliases_raw:
        if not isinstance(alias, str) or not normalise_name(alias):
            fixes.append(f"{item}: alias {alias!r} dropped")
            continue
        if instruction_like(alias):
            fixes.append(f"{item}: alias {alias!r} dropped (instruction-like)")
            continue
        if normalise_name(alias) not in alias_keys:
            alias_keys.add(normalise_name(alias))
            aliases.append(normalise_ws(alias))

    properties = raw.get("properties")
    if properties is None:
        properties = {}
    if not isinstance(properties, dict):
        fixes.append(f"{item}: properties is not an object, dropped")
        properties = {}
    properties = _clean_properties(properties, item, fixes)

    hint = raw.get("hint")
    if hint is not None and not isinstance(hint, str):
        fixes.append(f"{item}: hint {hint!r} is not text, dropped")
        hint = None
    if hint is not None and instruction_like(hint):
        fixes.append(f"{item}: hint dropped (instruction-like)")
        hint = None
    return {
        "ref": ref,
        "kind": kind,
        "name": name,
        "aliases": aliases,
        "properties": dict(properties),
        "confidence": _confidence(raw.get("confidence"), item, fixes),
        "hint": normalise_ws(hint) if hint and hint.strip() else None,
        "provisional": False,
    }


def _fold(first: dict, other: dict) -> None:
    """Merge a same-kind, same-name entity of the batch into the first one."""
    known = {normalise_name(a) for a in first["aliases"]}
    first["aliases"].extend(a for a in other["aliases"] if normalise_name(a) not in known)
    for prop, value in other["properties"].items():
        first["properties"].setdefault(prop, value)
    first["confidence"] = max(first["confidence"], other["confidence"])
    first["hint"] = first["hint"] or other["hint"]


def _clean_entities(
    raw_entities: list, drops: list[Drop], fixes: list[str]
) -> tuple[list[_Entity], dict[str, str], set[str]]:
    """Clean the entity list.

    Returns the kept entities, a map from every accepted ref (including refs
    folded into an earlier duplicate) to the kept ref, and the refs of dropped
    entities (relations naming them must not turn them into provisional nodes).
    """
    kept: list[_Entity] = []
    ref_map: dict[str, str] = {}
    dropped_refs: set[str] = set()
    by_key: dict[tuple[str, str], _Entity] = {}
    for raw in raw_entities:
        item = _describe_entity(raw)
        if not isinstance(raw, dict):
            drops.append(Drop(item, "not an object"))
            continue
        ref = _ref_of(raw.get("ref"))
        name_raw = raw.get("name")
        name = normalise_ws(name_raw) if isinstance(name_raw, str) else ""
        if ref is None:
            drops.append(Drop(item, "missing ref"))
            continue
        if ref in ref_map or ref in dropped_refs:
            drops.append(Drop(item, f"duplicate ref {ref!r}"))
            continue
        if not normalise_name(name):
            drops.append(Drop(item, "empty name"))
            dropped_refs.add(ref)
            continue
        if instruction_like(name):
            drops.append(Drop(item, "instruction-like name"))
            dropped_refs.add(ref)
            continue
        data = _entity_fields(raw, ref, name, item, fixes)

        # Two entities of one kind and name in one batch would become two nodes
        # violating the (user, kind, normalised name) unique key: fold them.
        key = (data["kind"], normalise_name(data["name"]))
        first = by_key.get(key)
        if first is not None:
            fixes.append(f"{item}: ref {ref!r} folded into duplicate ref {first.ref!r}")
            _fold(first.data, data)
            ref_map[ref] = first.ref
            continue
        entity = _Entity(ref, data)
        by_key[key] = entity
        kept.append(entity)
        ref_map[ref] = ref
    return kept, ref_map, dropped_refs


def _end_label(value: Any) -> str:
    return normalise_ws(value) if isinstance(value, str) else repr(value)


_EndKey = tuple[str, str]  # (category, identity): what an end means, for comparisons


@dataclass
class _End:
    category: str  # "ref" | "self" | "known" | "unknown" | "dropped"
    identity: str  # the ref, "" for self, or the normalised name
    out: str  # what the cleaned relation writes for this end

    @property
    def key(self) -> _EndKey:
        return (self.category, self.identity)


@dataclass
class _RelationCleaner:
    """State shared by the relations of one batch: refs, provisional nodes, dedup."""

    messages: Mapping[str, str]
    known_names: Mapping[str, str]
    self_placeholders: frozenset[str]
    entities: list[_Entity]
    ref_map: dict[str, str]
    dropped_refs: set[str]
    drops: list[Drop]
    fixes: list[str]
    provisional: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._batch_names: dict[str, str] = {}
        for entity in self.entities:
            self._batch_names.setdefault(normalise_name(entity.data["name"]), entity.ref)
        self._provisional_by_name: dict[str, str] = {}
        self._used_refs = set(self.ref_map) | self.dropped_refs
        self._counter = 0

    def clean_all(self, raw_relations: list) -> list[dict]:
        kept: list[dict] = []
        kept_items: list[str] = []  # the description of each kept relation, for drops
        index_by_key: dict[tuple[_EndKey, str, _EndKey], int] = {}
        for raw in raw_relations:
            cleaned = self._clean_one(raw)
            if cleaned is None:
                continue
            relation, key, item = cleaned
            if key not in index_by_key:
                index_by_key[key] = len(kept)
                kept.append(relation)
                kept_items.append(item)
                continue
            position = index_by_key[key]
            loser = item
            if relation["confidence"] > kept[position]["confidence"]:
                loser = kept_items[position]
                kept[position], kept_items[position] = relation, item
            self.drops.append(Drop(loser, "duplicate relation (kept the higher confidence)"))
        return kept

    def _resolve(self, value: str) -> _End:
        """Resolve an end: batch ref, self placeholder, batch entity name, known node."""
        if value in self.ref_map:
            ref = self.ref_map[value]
            return _End("ref", ref, ref)
        if value in self.dropped_refs:
            return _End("dropped", value, value)
        norm = normalise_name(value)
        if norm in self.self_placeholders:
            return _End("self", "", normalise_ws(value))
        if norm in self._batch_names:
            # Extractors often name an entity of the same batch instead of citing
            # its ref; a provisional twin of it would never merge (kind OTHER).
            ref = self._batch_names[norm]
            self.fixes.append(f"relation end {value!r} resolved to batch ref {ref!r}")
            return _End("ref", ref, ref)
        if norm in self.known_names:
            return _End("known", norm, normalise_ws(value))
        return _End("unknown", norm, normalise_ws(value))

    def _provisional_ref(self, end: _End, item: str) -> str:
        ref = self._provisional_by_name.get(end.identity)
        if ref is not None:
            return ref
        while True:
            self._counter += 1
            ref = f"p{self._counter}"
            if ref not in self._used_refs:
                break
        self._used_refs.add(ref)
        self._provisional_by_name[end.identity] = ref
        self.provisional.append(ref)
        data = {
            "ref": ref,
            "kind": "OTHER",
            "name": end.out,
            "aliases": [],
            "properties": {},
            "confidence": PROVISIONAL_CONFIDENCE,
            "hint": None,
            "provisional": True,
        }
        self.entities.append(_Entity(ref, data))
        self.fixes.append(f"{item}: unknown end {end.out!r} created as provisional {ref!r}")
        return ref

    def _drop(self, item: str, reason: str) -> None:
        self.drops.append(Drop(item, reason))

    def _clean_one(self, raw: Any) -> tuple[dict, tuple[_EndKey, str, _EndKey], str] | None:
        if not isinstance(raw, dict):
            self._drop(f"relation {raw!r}"[:120], "not an object")
            return None
        label_raw = raw.get("relation")
        src_raw, tgt_raw = raw.get("source"), raw.get("target")
        item = f"relation {_end_label(src_raw)} -[{_end_label(label_raw)}]-> {_end_label(tgt_raw)}"

        label = _relation_label(label_raw)
        if label is None:
            self._drop(item, "malformed relation label")
            return None
        if label != label_raw:
            self.fixes.append(f"{item}: label normalised to {label}")
        if instruction_like(label.replace("_", " ")):
            self._drop(item, "instruction-like relation label")
            return None

        src_value, tgt_value = _ref_of(src_raw), _ref_of(tgt_raw)
        if src_value is None or tgt_value is None:
            self._drop(item, "missing source" if src_value is None else "missing target")
            return None

        snippet = raw.get("snippet")
        if not isinstance(snippet, str) or not snippet.strip():
            self._drop(item, "missing snippet")
            return None
        snippet = snippet.strip()
        if instruction_like(snippet):
            self._drop(item, "instruction-like snippet")
            return None
        message = raw.get("message")
        if message is not None:
            message = _ref_of(message)
            if message is None or message not in self.messages:
                self._drop(item, "unknown message")
                return None
            # §4: the snippet is the user's own words, so it must be in the message.
            if normalise_ws(snippet) not in normalise_ws(self.messages[message]):
                self._drop(item, "snippet not found in message")
                return None

        src, tgt = self._resolve(src_value), self._resolve(tgt_value)
        if "dropped" in (src.category, tgt.category):
            self._drop(item, "end refers to a dropped entity")
            return None
        if src.category == "unknown" and tgt.category == "unknown":
            self._drop(item, "both ends unknown")
            return None
        if src.key == tgt.key:
            self._drop(item, "self-relation")
            return None
        if any(end.category == "unknown" and instruction_like(end.out) for end in (src, tgt)):
            self._drop(item, "instruction-like end")
            return None
        for end in (src, tgt):
            if end.category == "unknown":
                ref = self._provisional_ref(end, item)
                end.category, end.identity, end.out = "ref", ref, ref

        stability = _choice(raw.get("stability"), STABILITIES, "stable", "stability")
        cardinality = _choice(raw.get("cardinality"), CARDINALITIES, "one_to_many", "cardinality")
        for note in (stability[1], cardinality[1]):
            if note:
                self.fixes.append(f"{item}: {note}")
        relation = {
            "source": src.out,
            "relation": label,
            "target": tgt.out,
            "confidence": _confidence(raw.get("confidence"), item, self.fixes),
            "stability": stability[0],
            "cardinality": cardinality[0],
            "expires_at": self._expiry(raw.get("expires_at"), stability[0], item),
            "snippet": snippet,
            "evidence": self._evidence(raw.get("evidence"), item),
            "message": message,
            "occurred": self._occurred(raw.get("occurred"), item),
        }
        # The same claim cited from two messages is two sightings, each with its snippet.
        return relation, (src.key, label, tgt.key, message), item

    def _occurred(self, value: Any, item: str) -> str:
        if value is None or value == "":
            return ""
        if not isinstance(value, str) or not _OCCURRED.match(value.strip()):
            self.fixes.append(f"{item}: occurred {value!r} is not a date, month, year or "
                              "day range, dropped")
            return ""
        text = value.strip()
        if "/" in text:
            first, last = text.split("/")
            if not (_valid_iso(first) and _valid_iso(last)) or first > last:
                self.fixes.append(f"{item}: occurred {value!r} is not a valid range, dropped")
                return ""
        elif len(text) == 10 and not _valid_iso(text):
            self.fixes.append(f"{item}: occurred {value!r} is not a valid date, dropped")
            return ""
        return text

    def _expiry(self, value: Any, stability: str, item: str) -> str | None:
        if value is None:
            return None
        if stability not in TEMPORARY:
            # §5.5: only time_bound/ephemeral relations expire.
            self.fixes.append(f"{item}: expires_at dropped on a {stability} relation")
            return None
        if not _valid_iso(value):
            self.fixes.append(f"{item}: expires_at {value!r} is not ISO 8601, dropped")
            return None
        return value.strip()

    def _evidence(self, value: Any, item: str) -> str:
        if value is not None and not isinstance(value, str):
            self.fixes.append(f"{item}: evidence is not text, dropped")
            return ""
        if value and instruction_like(value):
            self.fixes.append(f"{item}: evidence dropped (instruction-like)")
            return ""
        return normalise_ws(value) if value else ""


def _relation_label(value: Any) -> str | None:
    """The normalised label, or None when it cannot be one (§4 regex)."""
    if not isinstance(value, str):
        return None
    label = _LABEL_SEPARATORS.sub("_", value.strip().upper()).strip("_")
    return label if RELATION_LABEL.match(label) else None


def _choice(value: Any, allowed: frozenset[str], default: str, label: str) -> tuple[str, str]:
    """(the value lowercased if allowed else ``default``, a fix note or "")."""
    if value is None:
        return default, ""
    if isinstance(value, str) and value.strip().lower() in allowed:
        return value.strip().lower(), ""
    return default, f"unknown {label} {value!r}, set to {default}"


def _clean_self(batch: dict, fixes: list[str]) -> dict:
    """The optional ``self_name``, ``self_aliases`` and ``self_properties`` of a batch (what
    the user said about themself), type-checked, instruction-like values left out; only
    the keys the batch had, and only when something is left."""
    out: dict[str, Any] = {}
    name = batch.get("self_name")
    if name is not None:
        if not isinstance(name, str) or not normalise_name(name):
            fixes.append(f"self_name {name!r} dropped")
        elif instruction_like(name):
            fixes.append("self_name dropped (instruction-like)")
        else:
            out["self_name"] = normalise_ws(name)
    aliases = batch.get("self_aliases")
    if aliases is not None and not isinstance(aliases, list):
        fixes.append("self_aliases is not a list, dropped")
    elif aliases is not None:
        kept: list[str] = []
        for alias in aliases:
            if not isinstance(alias, str) or not normalise_name(alias):
                fixes.append(f"self alias {alias!r} dropped")
            elif instruction_like(alias):
                fixes.append("self alias dropped (instruction-like)")
            elif normalise_ws(alias) not in kept:
                kept.append(normalise_ws(alias))
        if kept:
            out["self_aliases"] = kept
    properties = batch.get("self_properties")
    if properties is not None:
        if not isinstance(properties, dict):
            fixes.append("self_properties is not an object, dropped")
        else:
            kept_properties = _clean_properties(properties, "self", fixes)
            if kept_properties:
                out["self_properties"] = kept_properties
    return out


def clean_batch(
    batch: Any,
    *,
    messages: Mapping[str, str],
    known_names: Mapping[str, str],
    self_placeholders: frozenset[str] = SELF_PLACEHOLDERS,
) -> CleanResult:
    """Clean one extractor batch (SPEC §5.5, format §6.2).

    Inputs:
        batch: the parsed ``pegasus-batch/1`` JSON. ``entities`` / ``relations`` may
            be missing (an empty batch is valid) but, when present, must be lists.
        messages: message id (string) → the message text, for the turns the
            batch was extracted from; snippets are checked against them.
        known_names: normalised name (``normalise_name``) → kind, for the user's
            existing nodes, so a relation end may name one of them.
        self_placeholders: normalised ends that mean the user.

    Raises ``BatchError`` when ``batch`` is not an object, its ``format`` is not
    ``pegasus-batch/1``, or ``episode``/``entities``/``relations`` have the wrong type.

    Entities: kind uppercased, unknown → OTHER; name whitespace-collapsed (empty →
    dropped), an all-lowercase PERSON/ORG/PLACE name title-cased; aliases and tags
    de-duplicated; confidence clamped to 0..1 (non-number → 0.5); two entities
    with the same kind and normalised name are folded into the first.

    Relations: label uppercased with spaces/hyphens → "_", must match
    ``RELATION_LABEL``; ends resolve, in order, to a batch ref, a self placeholder,
    the name of an entity of this batch, or an existing node (``known_names``); a
    relation is dropped for a malformed label, a missing or unverifiable snippet
    (``message`` set: it must be known and contain the snippet, whitespace-normalised,
    case-sensitive), an end naming a dropped entity, both ends unknown, or both
    ends being the same; a single unknown end becomes a provisional OTHER entity
    (confidence 0.3, fresh ref "p1", "p2", …), shared by every relation naming it.
    Unknown stability → "stable", unknown cardinality → "one_to_many", ``expires_at``
    kept only on time_bound/ephemeral relations and only as an ISO 8601 string.
    Of duplicate relations (same resolved source, label, target) the one with the
    higher confidence is kept (the first on a tie).

    Instruction-like text (``instruction_like``): an entity with such a name is dropped
    (and relations naming it), as is a relation with such a label, snippet or unknown
    end; such aliases, properties (key or any string inside the value), hints, evidence,
    tags and summary sentences are left out with a fix note. ``self_name``,
    ``self_aliases`` and ``self_properties`` are cleaned the same way and kept in the
    output only when present and non-empty.

    Invariants of the output: no relation joins an end to itself, every label
    matches ``RELATION_LABEL``, every snippet with a message occurs in it, every
    relation end is a ref of the output batch, a self placeholder or a known name —
    to be resolved by the caller in that order (a ref shadows a placeholder).
    """
    if not isinstance(batch, dict):
        raise BatchError(f"a batch must be a JSON object, got {type(batch).__name__}")
    if batch.get("format") != BATCH_FORMAT:
        raise BatchError(
            f"unsupported batch format {batch.get('format')!r}, expected {BATCH_FORMAT!r}"
        )
    raw_episode = batch.get("episode")
    if raw_episode is not None and not isinstance(raw_episode, dict):
        raise BatchError("'episode' must be an object or null")
    raw_entities = batch.get("entities")
    raw_relations = batch.get("relations")
    for key, value in (("entities", raw_entities), ("relations", raw_relations)):
        if value is not None and not isinstance(value, list):
            raise BatchError(f"{key!r} must be a list, got {type(value).__name__}")

    drops: list[Drop] = []
    fixes: list[str] = []
    entities, ref_map, dropped_refs = _clean_entities(raw_entities or [], drops, fixes)
    cleaner = _RelationCleaner(
        messages=messages,
        known_names=known_names,
        self_placeholders=self_placeholders,
        entities=entities,
        ref_map=ref_map,
        dropped_refs=dropped_refs,
        drops=drops,
        fixes=fixes,
    )
    relations = cleaner.clean_all(raw_relations or [])
    cleaned = {
        "format": BATCH_FORMAT,
        "episode": _clean_episode(raw_episode, fixes),
        "entities": [e.data for e in cleaner.entities],
        "relations": relations,
        **_clean_self(batch, fixes),
    }
    return CleanResult(batch=cleaned, drops=drops, provisional=cleaner.provisional, fixes=fixes)
