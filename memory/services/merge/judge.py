"""The LLM's judgement of held entities (SPEC §5.6), asked before the user's lock is taken."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memory.core.merge_rules import HOLD
from memory.models import Node
from memory.services.merge.verdicts import _candidate_list, _verdicts
from memory.services.neighbourhood import neighbourhoods

JUDGE_SNIPPET_CHARS = 200


def _neighbourhoods(user, node_ids: Sequence[int], self_node: Node | None) -> dict[int, list[str]]:
    """Each node's 2-hop neighbourhood (``memory.services.neighbourhood``, live edges only)
    as the LLM judge is shown it: ``A -[REL]-> B: "snippet"`` lines, strongest first, the
    self node named as this batch will leave it. Two queries whatever the number of nodes."""
    names = {self_node.pk: self_node.name} if self_node is not None else {}
    found = neighbourhoods(user.pk, node_ids, dormant=False, names=names)
    return {
        nid: [
            f'{e.line}: "{e.snippet[:JUDGE_SNIPPET_CHARS]}"' if e.snippet else e.line for e in lines
        ]
        for nid, (lines, _) in found.items()
    }


@dataclass(frozen=True)
class Judgement:
    """The LLM's answer about one held entity against one exact set of candidates.

    confidences: candidate node id → confidence in 0..1; None when there is no answer (the
        call failed), and the entity is held for a moderator with ``reason``.
    usage: the tokens the call spent (also when it failed part-way).
    """

    confidences: dict[int, float] | None
    reason: str
    usage: Any = None


OFFLINE = "offline: held for a moderator"
UNJUDGED = (
    "the graph changed while the language model was judging (these candidates were "
    "not judged); held for a moderator"
)


def judgement_key(entity: Mapping, candidate_ids: Iterable[int]) -> str:
    """What a judgement answers: this cleaned entity, against exactly these candidates. A
    judgement is used only for the same key, so a candidate that appeared (or went) between
    the judgement and the commit leaves the entity held instead of merged unjudged."""
    return json.dumps([entity, sorted(candidate_ids)], sort_keys=True, default=str)


def _judge(entity: dict, conversation_text: str, candidates: list[dict]) -> Judgement:
    """The LLM's confidences for a held entity (``confidences`` None when the call fails).
    Network: up to ``ANTHROPIC_MAX_RETRIES`` retries of a 60 s call — never call it under
    ``user_lock``."""
    from lib import llm

    if not llm.llm_enabled():
        return Judgement(None, OFFLINE)
    try:
        from memory.extraction.disambiguation import judge_candidates

        confidences, reason, usage = judge_candidates(
            entity=entity,
            conversation_text=conversation_text,
            candidates=candidates,
        )
    except (llm.LLMUnavailable, llm.LLMError) as exc:
        detail = getattr(exc, "detail", None) or str(exc)
        return Judgement(
            None,
            f"language model unavailable ({detail[:300]}); held for a moderator",
            getattr(exc, "usage", None),
        )
    clean: dict[int, float] = {}
    wanted = {c["id"] for c in candidates}
    for key, value in (confidences or {}).items():
        try:
            node_id, conf = int(key), float(value)
        except (TypeError, ValueError):
            continue
        if node_id in wanted:
            clean[node_id] = conf
    return Judgement(clean, reason or "", usage)


def judge_entities(
    *,
    user,
    entities: Sequence[dict],
    self_node: Node | None,
    conversation_text: str = "",
    relations: Sequence[dict] = (),
) -> dict[str, Judgement]:
    """Ask the LLM about every entity the merge rules hold (SPEC §5.6); call it *before*
    taking ``user_lock`` (each call may take minutes with retries) and outside any
    transaction. Read-only: the same verdicts ``resolve_entities`` will reach, from the graph
    as it stands now; ``self_node`` as the batch will leave it (unsaved, see
    ``ensure_self_node(save=False)``).

    Each held entity is sent with the conversation and each candidate's name, aliases and
    2-hop neighbourhood. Returns the answers by ``judgement_key``, failures included (a
    failed call holds the entity with its reason); empty offline or when nothing is held.
    """
    from lib import llm

    if not entities or not llm.llm_enabled():
        return {}
    _, nodes, verdicts = _verdicts(user, entities, self_node, relations)
    held = [(e, v) for e, v in zip(entities, verdicts, strict=True) if v.action == HOLD]
    if not held:
        return {}
    lines = _neighbourhoods(user, sorted({i for _, v in held for i in v.candidates}), self_node)
    judgements: dict[str, Judgement] = {}
    for entity, verdict in held:
        judged = [
            {
                "id": c["id"],
                "name": c["name"],
                "kind": nodes[c["id"]].kind,
                "aliases": list(nodes[c["id"]].aliases),
                "neighbourhood": lines.get(c["id"], []),
            }
            for c in _candidate_list(verdict, nodes)
        ]
        judgements[judgement_key(entity, verdict.candidates)] = _judge(
            entity, conversation_text, judged
        )
    return judgements
