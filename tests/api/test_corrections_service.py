"""memory.services.corrections — the service behind the API's and the explorer's corrections.

(It lives with the API tests because both front ends share it.)
"""

from __future__ import annotations

import pytest
from django.http import Http404
from django.utils import timezone

from memory.models import Correction, Edge, MemoryKey, Node
from memory.services import corrections
from memory.services.graph_io import export_graph
from tests.memory.factories import make_edge, make_node

pytestmark = pytest.mark.django_db


def now():
    return timezone.now()


def keys(user, node) -> set[str]:
    return set(MemoryKey.objects.for_user(user).filter(node=node).values_list("text", flat=True))


def test_bob_cannot_correct_or_forget_alices_memory(alice, bob, graph):
    before = export_graph(user=alice)
    calls = [
        lambda: corrections.rename_node(user=bob, node=graph.boss.pk, name="X", now=now()),
        lambda: corrections.add_alias(user=bob, node=graph.boss, alias="X", now=now()),
        lambda: corrections.remove_alias(user=bob, node=graph.boss, alias="Josh", now=now()),
        lambda: corrections.change_kind(user=bob, node=graph.boss, kind="ORG", now=now()),
        lambda: corrections.forget_edge(user=bob, edge=graph.has_boss.pk, now=now()),
        lambda: corrections.forget_node(user=bob, node=graph.boss.pk, now=now()),
    ]
    for call in calls:
        with pytest.raises(Http404):
            call()
    assert export_graph(user=alice) == before
    assert not Correction.objects.exists()


def test_a_rename_moves_the_name_into_the_aliases_and_the_keys(alice, graph):
    node = corrections.rename_node(user=alice, node=graph.boss, name="  Josh  ", now=now())
    assert (node.name, node.normalised_name, node.aliases) == ("Josh", "josh", ["Joshua"])
    assert keys(alice, node) == {"Josh", "Joshua"}


def test_fixing_the_case_of_a_name_adds_no_alias(alice, graph):
    node = corrections.rename_node(user=alice, node=graph.acme, name="ACME", now=now())
    assert (node.name, node.aliases) == ("ACME", [])
    assert keys(alice, node) == {"ACME"}


def test_corrections_that_change_nothing_are_not_recorded(alice, graph):
    corrections.add_alias(user=alice, node=graph.boss, alias="josh", now=now())
    corrections.add_alias(user=alice, node=graph.boss, alias="JOSHUA", now=now())
    corrections.rename_node(user=alice, node=graph.boss, name="Joshua", now=now())
    corrections.change_kind(user=alice, node=graph.boss, kind="PERSON", now=now())
    assert Node.objects.get(pk=graph.boss.pk).aliases == ["Josh"]
    assert not Correction.objects.exists()


@pytest.mark.parametrize("name", ["", "   ", "x" * 201, 7])
def test_a_name_must_be_a_short_non_empty_string(alice, graph, name):
    with pytest.raises(corrections.CorrectionError) as failure:
        corrections.rename_node(user=alice, node=graph.boss, name=name, now=now())
    assert failure.value.field == "name"


def test_a_kind_change_that_would_clash_is_refused(alice, graph):
    make_node(alice, "Acme", "PLACE")
    with pytest.raises(corrections.CorrectionError, match="already exists"):
        corrections.change_kind(user=alice, node=graph.acme, kind="PLACE", now=now())
    assert Node.objects.get(pk=graph.acme.pk).kind == "ORG"


def test_forgetting_the_middle_of_a_supersession_chain_links_its_ends(alice):
    me, a, b, c = (
        make_node(alice, n, k)
        for n, k in [("Me", "PERSON"), ("Oslo", "PLACE"), ("Rome", "PLACE"), ("Lima", "PLACE")]
    )
    newest = make_edge(alice, me, "LIVES_IN", c)
    middle = make_edge(alice, me, "LIVES_IN", b, superseded_by=newest)
    oldest = make_edge(alice, me, "LIVES_IN", a, superseded_by=middle)
    corrections.forget_edge(user=alice, edge=middle, now=now())
    assert Edge.objects.get(pk=oldest.pk).superseded_by_id == newest.pk
    assert Edge.objects.get(pk=newest.pk).superseded_by_id is None


def test_a_revived_claim_already_live_elsewhere_stays_superseded_by_it(alice):
    me, oslo, rome = (
        make_node(alice, n, k) for n, k in [("Me", "PERSON"), ("Oslo", "PLACE"), ("Rome", "PLACE")]
    )
    # Oslo was replaced by Rome, and later the Oslo claim was made again as a new edge.
    rome_edge = make_edge(alice, me, "LIVES_IN", rome)
    old_oslo = make_edge(alice, me, "LIVES_IN", oslo, superseded_by=rome_edge)
    new_oslo = make_edge(alice, me, "LIVES_IN", oslo)
    corrections.forget_edge(user=alice, edge=rome_edge, now=now())
    assert Edge.objects.get(pk=old_oslo.pk).superseded_by_id == new_oslo.pk
    assert Edge.objects.for_user(alice).filter(superseded_by__isnull=True).count() == 1


def test_forgetting_a_node_records_what_was_forgotten(alice, graph):
    corrections.forget_node(user=alice, node=graph.paris, now=now())
    correction = Correction.objects.for_user(alice).get()
    assert (correction.action, correction.target_type, correction.target_id) == (
        "forget_node",
        "node",
        graph.paris.pk,
    )
    assert correction.before["name"] == "[erased]"  # issue 18: no forgotten words kept
    # Nor the other ends' names.
    assert [(e["source_name"], e["relation"]) for e in correction.before["edges"]] == [
        ("[erased]", "LIVES_IN")
    ]
    assert correction.after["repointed"] == [{"edge": graph.lived_in.pk, "superseded_by": None}]
    assert Edge.objects.get(pk=graph.lived_in.pk).superseded_by_id is None
    assert not MemoryKey.objects.for_user(alice).filter(node_id=graph.paris.pk).exists()


def test_forgetting_a_node_whose_edges_include_a_collapsed_duplicate(alice):
    # A merge leaves a duplicate claim superseded by its survivor; both touch the node.
    me, joe = make_node(alice, "Me", "PERSON"), make_node(alice, "Joe", "PERSON")
    survivor = make_edge(alice, me, "KNOWS", joe)
    duplicate = make_edge(alice, me, "KNOWS", joe, superseded_by=survivor)
    corrections.forget_node(user=alice, node=joe, now=now())
    assert not Edge.objects.filter(pk__in=[survivor.pk, duplicate.pk]).exists()
    assert not Node.objects.filter(pk=joe.pk).exists()


def test_forgetting_handles_every_kind_of_row_that_points_at_an_edge():
    # A new model pointing at Edge must choose CASCADE or SET_NULL, or forgetting refuses.
    from django.db import models

    for relation in Edge._meta.related_objects:
        if relation.related_model is not Edge:
            assert relation.on_delete in (models.CASCADE, models.SET_NULL), relation


def test_several_corrections_of_a_node_apply_together_or_not_at_all(alice, graph):
    before = export_graph(user=alice)
    with pytest.raises(corrections.CorrectionError) as refused:
        corrections.correct_node(
            user=alice,
            node=graph.boss,
            changes={"name": "Josh B", "remove_alias": "Nobody"},
            now=now(),
        )
    assert refused.value.field == "remove_alias"
    assert export_graph(user=alice) == before  # the rename before it was undone
    assert not Correction.objects.exists()

    node = corrections.correct_node(
        user=alice, node=graph.boss.pk, changes={"name": "Josh B", "add_alias": "JB"}, now=now()
    )
    assert (node.name, node.aliases) == ("Josh B", ["Josh", "Joshua", "JB"])
    assert Correction.objects.for_user(alice).count() == 2


def test_bob_cannot_correct_alices_node_in_one_go(alice, bob, graph):
    before = export_graph(user=alice)
    with pytest.raises(Http404):
        corrections.correct_node(user=bob, node=graph.boss.pk, changes={"name": "X"}, now=now())
    assert export_graph(user=alice) == before
