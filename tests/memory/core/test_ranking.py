"""Read v2, pure parts (SPEC §5.7): fusion by rank, the time, question and update rules,
packing to a budget, and precise seeding."""

from datetime import date

import numpy as np

from memory.core.ranking import Candidate, count_tokens, fuse, pack
from memory.core.seeding import KeyLexicon, precise_seed_keys


def c(key, text="A plain statement.", **fields):
    return Candidate(
        key=key, source=fields.pop("source", "sentence"), source_id=0, text=text, **fields
    )


def test_two_lists_fuse_by_rank_and_a_shared_message_counts_once():
    graph = [
        c("m1", source="edge", lines=("A -[KNOWS]-> B",)),
        c("m1", source="edge", lines=("A -[LIKES]-> C",)),
        c("m2"),
    ]
    sentences = [c("m2"), c("m3"), c("m1")]
    fused = fuse({"graph": graph, "sentences": sentences})
    # m1: graph rank 1 (its second copy adds nothing) + sentence rank 3; m2: graph rank 3 +
    # sentence rank 1 — a tie, kept in input order (graph first).
    assert [x.key for x in fused] == ["m1", "m2", "m3"]
    assert fused[0].score == fused[1].score > fused[2].score
    assert next(x for x in fused if x.key == "m1").lines == ("A -[KNOWS]-> B", "A -[LIKES]-> C")
    assert len(fused) == 3


def test_a_message_naming_a_time_prefers_what_happened_then():
    may, june = (
        c("m1", said_on=date(2023, 6, 20), occurred="2023-05"),
        c("m2", said_on=date(2023, 6, 20)),
    )
    assert [x.key for x in fuse({"s": [june, may]})] == ["m2", "m1"]
    window = (date(2023, 5, 1), date(2023, 5, 31))
    assert [
        x.key
        for x in fuse(
            {
                "s": [
                    c("m2", said_on=date(2023, 6, 20)),
                    c("m1", said_on=date(2023, 6, 20), occurred="2023-05"),
                ]
            },
            window=window,
        )
    ] == ["m1", "m2"]


def test_a_question_is_weaker_evidence_than_a_statement():
    fused = fuse({"s": [c("m1", "Should I take the Spotify job?"), c("m2", "I took it.")]})
    assert [x.key for x in fused] == ["m2", "m1"]


def test_of_two_items_about_one_claim_the_latest_makes_the_cut():
    doubts = c(
        "m1", "I might take the Spotify job.", said_on=date(2023, 1, 1), claim=(1, "CONSIDERS")
    )
    decision = c(
        "m2", "I turned down the Spotify job.", said_on=date(2023, 3, 1), claim=(1, "CONSIDERS")
    )
    for item in (doubts, decision):
        item.tokens = count_tokens(item.text)
    packed = pack(fuse({"graph": [doubts, decision]}), budget=count_tokens(decision.text))
    assert [x.key for x in packed] == ["m2"]


def test_packing_stops_at_the_budget_and_skips_what_does_not_fit():
    items = [c("a", tokens=60), c("b", tokens=50), c("c", tokens=30)]
    assert [x.key for x in pack(items, 100)] == ["a", "c"]
    assert pack(items, 10) == []
    assert count_tokens("one two three") == 3 * 1.3


def test_a_name_seeds_lexically_and_a_common_first_name_seeds_only_a_few():
    lexicon = KeyLexicon(
        {1: "Matt Patterson", 2: "Matt Smith", 3: "Matt Jones", 4: "Matt Brown", 5: "Caroline"}
    )
    scores = np.zeros((3, 5))
    hits = precise_seed_keys(
        ["caroline", "matt", "pattersen"], scores, [1, 2, 3, 4, 5], lexicon, per_word=3
    )
    assert ("caroline", 5, 1.0) in hits
    assert [h[1] for h in hits if h[0] == "matt"] == [1, 2, 3]
    fuzzy = [h for h in hits if h[0] == "pattersen"]
    assert [h[1] for h in fuzzy] == [1] and 0.7 < fuzzy[0][2] < 0.9


def test_an_embedded_word_seeds_only_its_best_keys_near_its_best_score():
    scores = np.array([[0.9, 0.88, 0.5, 0.31, 0.2]])
    hits = precise_seed_keys(
        ["boss"], scores, [10, 11, 12, 13, 14], KeyLexicon({}), threshold=0.3, per_word=3, near=0.05
    )
    assert hits == [("boss", 10, 0.9), ("boss", 11, 0.88)]
    assert precise_seed_keys(["boss"], np.array([[0.2, 0.1]]), [1, 2], KeyLexicon({})) == []
