"""The tools the model writes the batch through, as the Messages API's tool schemas."""

from __future__ import annotations

from typing import Any

from memory.core.cleaning import CARDINALITIES, KINDS, STABILITIES

__all__ = ["TOOLS"]

_REF = {"type": "string", "description": "A short label for this node, unique in this batch."}
_END = {
    "type": "string",
    "description": 'A ref from add_node, "user", or the exact name of an existing node.',
}
TOOLS: list[dict[str, Any]] = [
    {
        "name": "add_node",
        "description": "Write one node (a person, organisation, place, event, thing, topic, "
        "preference or other referent) as soon as you decide on it.",
        "input_schema": {
            "type": "object",
            "properties": {
                "ref": _REF,
                "kind": {"type": "string", "enum": sorted(KINDS)},
                "name": {"type": "string"},
                "aliases": {"type": "array", "items": {"type": "string"}},
                "properties": {"type": "object", "description": "Small stable facts."},
                "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                "hint": {
                    "type": ["string", "null"],
                    "description": "The exact name of an existing node this might be.",
                },
            },
            "required": ["ref", "kind", "name"],
        },
    },
    {
        "name": "add_edge",
        "description": "Write one memory: source -[RELATION]-> target, justified by the "
        "user's exact words from one message.",
        "input_schema": {
            "type": "object",
            "properties": {
                "source": _END,
                "relation": {"type": "string", "description": "UPPERCASE_VERB_FIRST, 1-4 words."},
                "target": _END,
                "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                "stability": {"type": "string", "enum": sorted(STABILITIES)},
                "cardinality": {"type": "string", "enum": sorted(CARDINALITIES)},
                "expires_at": {
                    "type": ["string", "null"],
                    "description": "ISO 8601; only for time_bound or ephemeral.",
                },
                "occurred": {
                    "type": ["string", "null"],
                    "description": "When it happened: YYYY-MM-DD, YYYY-MM, YYYY or "
                    "YYYY-MM-DD/YYYY-MM-DD; null when the sentence names no time.",
                },
                "snippet": {"type": "string", "description": "Verbatim from the message."},
                "evidence": {"type": "string", "description": "A few words on why."},
                "message": {"type": "string", "description": "The cited message's id."},
            },
            "required": ["source", "relation", "target", "snippet", "message"],
        },
    },
    {
        "name": "update_node",
        "description": "Add aliases or properties to a node written earlier in this "
        'conversation (by its ref), or to the user (ref "user"; `name` '
        "sets the user's own name when they say it).",
        "input_schema": {
            "type": "object",
            "properties": {
                "ref": {"type": "string"},
                "name": {"type": "string"},
                "aliases": {"type": "array", "items": {"type": "string"}},
                "properties": {"type": "object"},
            },
            "required": ["ref"],
        },
    },
    {
        "name": "record_episode",
        "description": "Describe the conversation as a whole.",
        "input_schema": {
            "type": "object",
            "properties": {
                "summary": {"type": "string", "description": "At most 300 characters."},
                "importance": {"type": "number", "minimum": 0, "maximum": 1},
                "tags": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["summary", "importance"],
        },
    },
    {
        "name": "finish",
        "description": "Call once everything worth remembering has been written.",
        "input_schema": {"type": "object", "properties": {}},
    },
]
