"""Read v2's graph candidates (memory.services.read.ranking): a snippet is ranked by what it
shares with the message, in words and in meaning."""

from datetime import timedelta

import pytest

from chat.models import Role
from memory.models import Snippet
from memory.services.read import ReadOptions, recall
from tests.memory.factories import T0, make_edge, make_node
from tests.memory.sentence_factories import ended_conversation

pytestmark = pytest.mark.django_db

NOW = T0 + timedelta(days=30)
CAR = "I finally bought a second-hand car for the commute last week."
PAINTING = "Painting by the lake on Sundays calms me down after a stressful week."


def _edge_from(user, source, relation, target, message):
    edge = make_edge(user, source, relation, target, snippet=message.text)
    Snippet.objects.filter(pk=edge.snippet_id).update(message=message)
    return edge


def test_a_graph_snippet_close_in_meaning_outranks_an_equal_one_that_is_not(alice):
    # Two equally strong memories of Melanie, neither sharing a word with the question but
    # her name: only what they mean tells them apart.
    _, messages = ended_conversation(
        alice, [(Role.USER, CAR, "Melanie", False), (Role.USER, PAINTING, "Melanie", False)]
    )
    melanie = make_node(alice, "Melanie")
    car_edge = _edge_from(alice, melanie, "BOUGHT", make_node(alice, "car", "THING"), messages[0])
    paint_edge = _edge_from(
        alice, melanie, "ENJOYS", make_node(alice, "painting", "TOPIC"), messages[1]
    )
    assert car_edge.pk < paint_edge.pk  # on a tie the lower edge id would come first

    record = recall(
        user=alice,
        message="How does Melanie unwind and relax?",
        now=NOW,
        options=ReadOptions(strategy="graph", budget_tokens=200),
    )

    edges = [s["edge"] for s in record.context_snippets if s["source"] == "edge"]
    assert edges[:2] == [paint_edge.pk, car_edge.pk]
    scores = {s["edge"]: s["score"] for s in record.context_snippets}
    assert scores[paint_edge.pk] > scores[car_edge.pk]


HUB_SAID = [
    ("LIKES", "jazz", "I have loved jazz records since I was a teenager."),
    ("VISITED", "Lisbon", "We spent a rainy week in Lisbon in March."),
    ("OWNS", "bike", "My old bike still gets me to the studio every day."),
    ("KNOWS", "Priya", "Priya and I met at the climbing gym."),
    ("COOKS", "curry", "Friday nights are for a big pot of lentil curry."),
    ("READS", "novels", "I read crime novels on the train."),
    ("PLAYS", "chess", "Chess in the park with the neighbours is a Sunday thing."),
    ("RESEARCHED", "agencies", "I researched adoption agencies to start building a family."),
]


def _hub(user):
    """Caroline, a hub: one edge each to eight things nobody else links to, each with the
    turn she said it in."""
    _, messages = ended_conversation(
        user, [(Role.USER, text, "Caroline", False) for _, _, text in HUB_SAID]
    )
    caroline = make_node(user, "Caroline")
    edges = {}
    for (relation, name, _), message in zip(HUB_SAID, messages, strict=True):
        edges[name] = _edge_from(user, caroline, relation, make_node(user, name, "THING"), message)
    return edges


def test_the_graph_alone_answers_what_a_hub_said_by_relevance(alice):
    # Only Caroline is named: her eight neighbours share her activation (each below the fire
    # threshold), so by the weaker-end rule no edge of hers would compete. Alone, the graph
    # counts an edge by its stronger end too, and the snippet's meaning picks the answer.
    edges = _hub(alice)
    question = "What did Caroline look into about adopting a child?"

    alone = recall(user=alice, message=question, now=NOW, options=ReadOptions(strategy="graph"))
    first = next(s for s in alone.context_snippets if s["source"] == "edge")
    assert first["edge"] == edges["agencies"].pk

    # The weaker-end rule (what the default Read uses beside its sentences) finds none of them.
    weaker = recall(
        user=alice,
        message=question,
        now=NOW,
        options=ReadOptions(strategy="graph", graph_only_end_mix=0.0),
    )
    assert [s for s in weaker.context_snippets if s["source"] == "edge"] == []
