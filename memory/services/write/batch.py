"""Reading a batch before it is committed: storability and length checks, the cited turns
(through ``memory.ports``), the existing nodes its relation ends name, the cleaning pass
against the graph as it stands, and the episode it belongs to."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from memory import ports
from memory.core.cleaning import BatchError, clean_batch, normalise_ws
from memory.core.merge_rules import is_self_placeholder, normalise_name
from memory.models import Episode, ExtractionStatus, Node
from memory.services.graph_io.document import MAX_NAME, MAX_RELATION
from memory.services.graph_io.storable import find_unstorable


@dataclass
class _Cleaned:
    """A batch cleaned against the graph as it stands (``_clean``)."""

    texts: dict[str, str]
    named: dict[str, Node]
    result: Any  # memory.core.cleaning's CleanResult
    entities: list[dict]
    relations: list[dict]
    names_self: bool
    conversation_text: str


def _moment(value: str | None) -> datetime | None:
    if not value:
        return None
    parsed = datetime.fromisoformat(value)
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def _raw_relations(batch: Any) -> list[dict]:
    relations = batch.get("relations") if isinstance(batch, dict) else None
    return [r for r in relations if isinstance(r, dict)] if isinstance(relations, list) else []


def _nodes_named(user, batch: Any) -> dict[str, Node]:
    """Existing nodes named by the batch's relation ends (normalised name → node), in one
    query. A name carried by nodes of several kinds is ambiguous and left out, so cleaning
    treats it as unknown (a provisional node) rather than guessing a referent."""
    names = {
        normalise_name(v)
        for r in _raw_relations(batch)
        for v in (r.get("source"), r.get("target"))
        if isinstance(v, str)
    }
    names = {n for n in names if n and not is_self_placeholder(n)}
    if not names:
        return {}
    found: dict[str, list[Node]] = defaultdict(list)
    for node in Node.objects.for_user(user).filter(normalised_name__in=names):
        found[node.normalised_name].append(node)
    return {name: nodes[0] for name, nodes in found.items() if len(nodes) == 1}


def _message_ids(values) -> set[int]:
    ids: set[int] = set()
    for value in values:
        text = str(value).strip() if value is not None else ""
        if text.isdigit():
            ids.add(int(text))
    return ids


def _cited_messages(user, batch: Any) -> dict[str, str]:
    """The user's own turns cited by the batch (id string → text); another user's message,
    or an assistant turn, is unknown, so its relations are dropped."""
    ids = _message_ids(r.get("message") for r in _raw_relations(batch))
    return ports.conversations().user_turn_texts(user=user, message_ids=ids)


def _episode(user, episode, data: dict | None, now: datetime) -> Episode:
    if episode is None:
        row = Episode(
            user_id=user.pk, status=ExtractionStatus.DONE, extractor="batch", created_at=now
        )
    else:
        pk = episode.pk if isinstance(episode, Episode) else int(episode)
        row = Episode.objects.for_user(user).select_for_update().filter(pk=pk).first()
        if row is None:
            raise ValueError("episode not found")
    if data:
        if data.get("summary"):
            row.summary = data["summary"]
        row.importance = data.get("importance", row.importance)
        if data.get("tags"):
            row.tags = list(data["tags"])
        row.started_at = row.started_at or _moment(data.get("started_at"))
        row.ended_at = row.ended_at or _moment(data.get("ended_at"))
    row.started_at = row.started_at or now
    row.ended_at = row.ended_at or now
    row.save()
    return row


def _check_batch(batch: Any) -> None:
    unstorable = find_unstorable(batch)
    if unstorable:
        raise BatchError(unstorable)
    self_name = batch.get("self_name") if isinstance(batch, dict) else None
    if isinstance(self_name, str) and len(normalise_ws(self_name)) > MAX_NAME:
        raise BatchError(f"self_name is longer than {MAX_NAME} characters")


def _clean(user, batch: dict, messages: Mapping[str, str] | None) -> _Cleaned:
    """Clean the batch against the graph as it stands: relation ends may name existing
    nodes; ``messages`` None loads the user's own turns the batch cites."""
    texts = dict(messages) if messages is not None else _cited_messages(user, batch)
    named = _nodes_named(user, batch)
    result = clean_batch(
        batch, messages=texts, known_names={name: node.kind for name, node in named.items()}
    )
    clean = result.batch
    _check_lengths(clean)
    entities, relations = clean["entities"], clean["relations"]
    refs = {e["ref"] for e in entities}
    names_self = any(is_self_placeholder(e["name"]) for e in entities) or any(
        end not in refs and is_self_placeholder(end)
        for r in relations
        for end in (r["source"], r["target"])
    )
    conversation_text = "\n".join(texts.values()) or "\n".join(r["snippet"] for r in relations)
    return _Cleaned(texts, named, result, entities, relations, names_self, conversation_text)


def _check_lengths(clean: dict) -> None:
    """Names and labels the cleaned batch would store must fit their columns; one too long
    rejects the batch (``BatchError``) instead of failing in the database."""
    for entity in clean["entities"]:
        if len(entity["name"]) > MAX_NAME:
            raise BatchError(
                f"entity {entity['name'][:40]!r}… has a name longer than {MAX_NAME} characters"
            )
    for relation in clean["relations"]:
        if len(relation["relation"]) > MAX_RELATION:
            raise BatchError(
                f"relation {relation['relation'][:40]!r}… has a label longer "
                f"than {MAX_RELATION} characters"
            )
