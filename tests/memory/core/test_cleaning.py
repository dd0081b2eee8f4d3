"""The cleaning pass over an extractor batch (SPEC §5.5, §6.2)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memory.core.cleaning import (
    RELATION_LABEL,
    SELF_PLACEHOLDERS,
    BatchError,
    Drop,
    clean_batch,
    normalise_name,
    normalise_ws,
)

MESSAGES = {
    "m1": "My current boss,  Joshua, is great.\nHe runs Acme.",
    "m2": "I moved to Denver last spring.",
}
KNOWN = {"trevor": "PERSON", "acme": "ORG"}
SNIPPET = "My current boss, Joshua"


def batch(entities=(), relations=(), **extra):
    return {
        "format": "pegasus-batch/1",
        "entities": list(entities),
        "relations": list(relations),
        **extra,
    }


def entity(ref="a", name="Joshua", kind="PERSON", **extra):
    return {
        "ref": ref,
        "kind": kind,
        "name": name,
        "aliases": [],
        "properties": {},
        "confidence": 0.9,
        "hint": None,
        **extra,
    }


def rel(source="user", relation="HAS_BOSS", target="a", snippet=SNIPPET, message="m1", **extra):
    return {
        "source": source,
        "relation": relation,
        "target": target,
        "confidence": 0.8,
        "stability": "mutable",
        "cardinality": "one_to_one",
        "expires_at": None,
        "snippet": snippet,
        "evidence": "said so",
        "message": message,
        **extra,
    }


def clean(entities=(), relations=(), **extra):
    return clean_batch(batch(entities, relations, **extra), messages=MESSAGES, known_names=KNOWN)


JOSHUA = entity()


# --- whole-batch checks ---------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ([], "JSON object"),
        ({"entities": []}, "format"),
        ({"format": "pegasus-batch/2"}, "format"),
        ({"format": "pegasus-batch/1", "entities": {}}, "entities"),
        ({"format": "pegasus-batch/1", "relations": "none"}, "relations"),
        ({"format": "pegasus-batch/1", "episode": "yesterday"}, "episode"),
    ],
)
def test_a_batch_with_the_wrong_format_or_shape_is_rejected(raw, message):
    with pytest.raises(BatchError, match=message):
        clean_batch(raw, messages=MESSAGES, known_names=KNOWN)


def test_an_empty_batch_is_valid():
    result = clean_batch({"format": "pegasus-batch/1"}, messages={}, known_names={})
    assert result.batch == {
        "format": "pegasus-batch/1",
        "episode": None,
        "entities": [],
        "relations": [],
    }
    assert (result.drops, result.provisional, result.fixes) == ([], [], [])


def test_the_episode_is_type_checked():
    episode = {
        "started_at": "2026-01-01T10:00:00+00:00",
        "ended_at": "soon",
        "summary": " a  chat ",
        "importance": 3,
        "tags": ["career", 5, "career"],
    }
    assert clean(episode=episode).batch["episode"] == {
        "started_at": "2026-01-01T10:00:00+00:00",
        "ended_at": None,
        "summary": "a chat",
        "importance": 1.0,
        "tags": ["career"],
    }


# --- entities -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "name", "expected_kind", "expected_name"),
    [
        ("PERSON", "  joshua   smith ", "PERSON", "Joshua Smith"),  # casing + whitespace
        ("person", "Joshua", "PERSON", "Joshua"),  # kind uppercased
        ("ORG", "acme", "ORG", "Acme"),
        ("PLACE", "new york", "PLACE", "New York"),
        ("PERSON", "jean-luc", "PERSON", "Jean-Luc"),
        ("PERSON", "McDonald", "PERSON", "McDonald"),  # mixed case is left alone
        ("TOPIC", "jazz", "TOPIC", "jazz"),  # only proper-noun kinds are title-cased
        ("ANIMAL", "Rex", "OTHER", "Rex"),  # unknown kind → OTHER
        (None, "Rex", "OTHER", "Rex"),
    ],
)
def test_entity_kind_and_name_are_normalised(kind, name, expected_kind, expected_name):
    result = clean([entity(kind=kind, name=name)])
    (cleaned,) = result.batch["entities"]
    assert (cleaned["kind"], cleaned["name"]) == (expected_kind, expected_name)
    assert cleaned["provisional"] is False


def test_unknown_kind_is_logged_as_a_fix():
    assert any("unknown kind" in fix for fix in clean([entity(kind="ANIMAL")]).fixes)


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (entity(name="   "), "empty name"),
        (entity(name=42), "empty name"),
        (entity(name='""'), "empty name"),  # nothing left once quotes are stripped
        (entity(ref=None), "missing ref"),
        ("Joshua", "not an object"),
    ],
)
def test_unusable_entities_are_dropped_with_a_reason(raw, reason):
    result = clean([raw])
    assert result.batch["entities"] == []
    assert [d.reason for d in result.drops] == [reason]


def test_a_repeated_ref_is_dropped():
    result = clean([entity(), entity(name="Lisa")])
    assert [e["name"] for e in result.batch["entities"]] == ["Joshua"]
    assert result.drops == [Drop("entity 'Lisa'", "duplicate ref 'a'")]


def test_entity_fields_are_type_checked():
    raw = entity(
        aliases=["Josh", "josh", "", 5, "Joshua", " J  J "],
        properties=[1],
        confidence="high",
        hint=7,
    )
    (cleaned,) = clean([raw]).batch["entities"]
    assert cleaned["aliases"] == ["Josh", "J J"]  # repeats, blanks, non-text and the name go
    assert cleaned["properties"] == {}
    assert cleaned["confidence"] == 0.5
    assert cleaned["hint"] is None


@pytest.mark.parametrize(
    ("given_", "expected"),
    [(1.7, 1.0), (-0.2, 0.0), (True, 0.5), ("0.9", 0.5), (None, 0.5), (0.42, 0.42)],
)
def test_confidence_is_clamped_to_zero_one(given_, expected):
    (cleaned,) = clean([entity(confidence=given_)]).batch["entities"]
    assert cleaned["confidence"] == expected


def test_two_entities_with_one_kind_and_name_are_folded():
    result = clean(
        [entity("a", "Joshua", aliases=["Josh"]), entity("b", "joshua", confidence=0.95)],
        [rel(target="b")],
    )
    (kept,) = result.batch["entities"]
    assert (kept["ref"], kept["aliases"], kept["confidence"]) == ("a", ["Josh"], 0.95)
    assert result.batch["relations"][0]["target"] == "a"


# --- relations: drops ----------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (rel(relation="has boss!"), "malformed relation label"),
        (rel(relation="HAS_A_VERY_LONG_BOSS"), "malformed relation label"),  # 5 words
        (rel(relation="1ST_BOSS"), "malformed relation label"),
        (rel(relation=42), "malformed relation label"),
        (rel(source="Zed", target="Yan"), "both ends unknown"),
        (rel(source="me", target="I"), "self-relation"),  # two placeholders, one user
        (rel(source="a", target="a"), "self-relation"),
        (rel(source="Trevor", target="trevor"), "self-relation"),  # one existing node
        (rel(snippet="my current boss"), "snippet not found in message"),  # case-sensitive
        (rel(snippet="I moved to Denver"), "snippet not found in message"),  # other message
        (rel(message="m9"), "unknown message"),
        (rel(message=["m1"]), "unknown message"),
        (rel(snippet=""), "missing snippet"),
        (rel(snippet="   "), "missing snippet"),
        (rel(snippet=None), "missing snippet"),
        (rel(source=None), "missing source"),
        (rel(target=""), "missing target"),
        (["user", "HAS_BOSS", "a"], "not an object"),
    ],
)
def test_bad_relations_are_dropped_with_a_reason(raw, reason):
    result = clean([JOSHUA], [raw])
    assert result.batch["relations"] == []
    assert [d.reason for d in result.drops] == [reason]
    assert result.provisional == []


def test_drop_names_the_relation():
    result = clean([JOSHUA], [rel(source="Zed", relation="KNOWS", target="Yan")])
    assert result.drops == [Drop("relation Zed -[KNOWS]-> Yan", "both ends unknown")]


def test_a_relation_to_a_dropped_entity_is_dropped_not_made_provisional():
    result = clean([entity(ref="b", name="")], [rel(target="b")])
    assert [d.reason for d in result.drops] == ["empty name", "end refers to a dropped entity"]
    assert result.provisional == []


def test_duplicate_relations_keep_the_higher_confidence():
    low, high = rel(confidence=0.6), rel(confidence=0.9, evidence="better")
    result = clean([JOSHUA], [low, high])
    (kept,) = result.batch["relations"]
    assert (kept["confidence"], kept["evidence"]) == (0.9, "better")
    assert [d.reason for d in result.drops] == ["duplicate relation (kept the higher confidence)"]


def test_duplicates_are_judged_on_resolved_ends():
    # "USER" and "me" are the same end; "Joshua" names ref "a".
    result = clean([JOSHUA], [rel(source="USER"), rel(source="me", target="Joshua")])
    assert len(result.batch["relations"]) == 1


# --- relations: repairs ---------------------------------------------------------


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("has boss", "HAS_BOSS"),
        ("works-at", "WORKS_AT"),
        ("  lives  in ", "LIVES_IN"),
        ("HAS_BOSS", "HAS_BOSS"),
        ("went to-school in", "WENT_TO_SCHOOL_IN"),
    ],
)
def test_relation_labels_are_uppercased_with_underscores(label, expected):
    (cleaned,) = clean([JOSHUA], [rel(relation=label)]).batch["relations"]
    assert cleaned["relation"] == expected


def test_snippet_matching_ignores_whitespace_differences():
    # The message has "boss,  Joshua" and a newline before "He runs".
    snippet = "current boss, Joshua, is great. He   runs"
    (cleaned,) = clean([JOSHUA], [rel(snippet=snippet)]).batch["relations"]
    assert cleaned["snippet"] == snippet


def test_a_relation_without_a_message_keeps_its_snippet_unchecked():
    (cleaned,) = clean([JOSHUA], [rel(snippet="words from a file", message=None)]).batch[
        "relations"
    ]
    assert cleaned["snippet"] == "words from a file"


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"stability": "forever"}, {"stability": "stable"}),
        ({"stability": " Mutable "}, {"stability": "mutable"}),
        ({"stability": None}, {"stability": "stable"}),
        ({"cardinality": "many"}, {"cardinality": "one_to_many"}),
        ({"cardinality": "ONE_TO_ONE"}, {"cardinality": "one_to_one"}),
        (
            {"stability": "stable", "expires_at": "2026-02-01T00:00:00+00:00"},
            {"stability": "stable", "expires_at": None},
        ),
        (
            {"stability": "ephemeral", "expires_at": "2026-02-01T00:00:00+00:00"},
            {"stability": "ephemeral", "expires_at": "2026-02-01T00:00:00+00:00"},
        ),
        (
            {"stability": "time_bound", "expires_at": "next week"},
            {"stability": "time_bound", "expires_at": None},
        ),
        ({"confidence": 7}, {"confidence": 1.0}),
        ({"evidence": ["x"]}, {"evidence": ""}),
    ],
)
def test_relation_fields_are_repaired(fields, expected):
    (cleaned,) = clean([JOSHUA], [rel(**fields)]).batch["relations"]
    assert {k: cleaned[k] for k in expected} == expected


def test_unknown_stability_and_dropped_expiry_are_logged_as_fixes():
    fixes = clean([JOSHUA], [rel(stability="forever", expires_at="2026-02-01")]).fixes
    assert any("unknown stability" in f for f in fixes)
    assert any("expires_at dropped" in f for f in fixes)


def test_ends_may_be_refs_placeholders_batch_names_or_existing_nodes():
    result = clean(
        [JOSHUA],
        [
            rel(source="The User", target="Joshua"),  # placeholder → batch entity by name
            rel(source="a", relation="WORKS_AT", target="acme"),  # ref → existing node
        ],
    )
    assert [(r["source"], r["target"]) for r in result.batch["relations"]] == [
        ("The User", "a"),
        ("a", "acme"),
    ]
    assert result.provisional == []


def test_a_single_unknown_end_becomes_one_provisional_entity():
    result = clean(
        [JOSHUA, entity(ref="p1", name="Lisa Ray")],
        [
            rel(relation="HAS_SISTER", target="Dana"),
            rel(source="a", relation="KNOWS", target=" dana "),  # same unknown name
        ],
    )
    assert result.provisional == ["p2"]  # "p1" is taken by the batch
    provisional = result.batch["entities"][-1]
    assert provisional == {
        "ref": "p2",
        "kind": "OTHER",
        "name": "Dana",
        "aliases": [],
        "properties": {},
        "confidence": 0.3,
        "hint": None,
        "provisional": True,
    }
    assert [r["target"] for r in result.batch["relations"]] == ["p2", "p2"]
    assert any("provisional" in f for f in result.fixes)


# --- helpers ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("  a \n b\t c ", "a b c"), ("", ""), ("x", "x")],
)
def test_normalise_ws(raw, expected):
    assert normalise_ws(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (' "Bill  Smith". ', "bill smith"),
        ("ＡＣＭＥ", "acme"),
        ("(Trevor)", "trevor"),
        ("AT&T", "at&t"),
        ("C#", "c#"),
        ("Straße", "strasse"),
    ],
)
def test_normalise_name(raw, expected):
    assert normalise_name(raw) == expected


@pytest.mark.parametrize("name", ["user", "the user", "me", "i", "myself", "my", "mine", "self"])
def test_self_placeholders(name):
    assert name in SELF_PLACEHOLDERS


def test_you_is_not_a_self_placeholder():
    assert "you" not in SELF_PLACEHOLDERS


# --- invariants -------------------------------------------------------------------

REFS = ["a", "b", "c"]
ENDS = [*REFS, "me", "USER", "I", "Trevor", "trevor", "Acme", "Zed", "Yan", "Joshua", "", None, 3]
LABELS = ["HAS_BOSS", "has boss", "works-at", "bad label!", "X", "A_B_C_D_E", "", None]
SNIPPETS = [
    "My current boss",
    "boss, Joshua, is",
    "moved to Denver",
    "He runs Acme.",
    "not there",
    "",
    None,
]

entities_st = st.lists(
    st.fixed_dictionaries(
        {
            "ref": st.sampled_from(REFS),
            "kind": st.sampled_from(["PERSON", "ORG", "weird", None]),
            "name": st.sampled_from(["Joshua", "joshua", "Acme", "Lisa", "", "me"]),
        }
    ),
    max_size=4,
)
relations_st = st.lists(
    st.fixed_dictionaries(
        {
            "source": st.sampled_from(ENDS),
            "relation": st.sampled_from(LABELS),
            "target": st.sampled_from(ENDS),
            "snippet": st.sampled_from(SNIPPETS),
            "message": st.sampled_from(["m1", "m2", "m9", None]),
            "confidence": st.sampled_from([None, 0.5, 0.9, 1.7, -1.0, float("nan"), "x", True]),
            "stability": st.sampled_from(["stable", "ephemeral", "bogus", None]),
            "expires_at": st.sampled_from([None, "2026-03-01T00:00:00+00:00", "later"]),
        }
    ),
    max_size=6,
)


@given(entities_st, relations_st)
def test_cleaning_never_emits_self_relations_bad_labels_or_unanchored_snippets(ents, rels):
    result = clean(ents, rels)
    out = result.batch
    refs = {e["ref"] for e in out["entities"]}
    assert len(refs) == len(out["entities"])

    def identity(end):
        if end in refs:
            return ("ref", end)
        if normalise_name(end) in SELF_PLACEHOLDERS:
            return ("self", "")
        assert normalise_name(end) in KNOWN, f"unresolvable end {end!r}"
        return ("known", normalise_name(end))

    seen = set()
    for r in out["relations"]:
        assert RELATION_LABEL.match(r["relation"])
        src, tgt = identity(r["source"]), identity(r["target"])
        assert src != tgt
        # One claim cited from two messages is two sightings (each with its snippet); from
        # one message, once.
        assert (src, r["relation"], tgt, r["message"]) not in seen
        seen.add((src, r["relation"], tgt, r["message"]))
        assert r["snippet"].strip()
        if r["message"] is not None:
            assert normalise_ws(r["snippet"]) in normalise_ws(MESSAGES[r["message"]])
        assert 0.0 <= r["confidence"] <= 1.0
        if r["stability"] not in {"time_bound", "ephemeral"}:
            assert r["expires_at"] is None
    provisional = {e["ref"] for e in out["entities"] if e["provisional"]}
    assert provisional == set(result.provisional)
    assert len(rels) == len(out["relations"]) + sum(
        1 for d in result.drops if d.item.startswith("relation")
    )
