"""What each tool call does to the batch, and the checks on its input.

Malformed tool input never raises: ``_Session.execute`` turns it into an error text for the
model (and a note), so the model can correct itself.
"""

from __future__ import annotations

import re
from typing import Any

from memory.core.cleaning import (
    KINDS,
    RELATION_LABEL,
    SELF_PLACEHOLDERS,
    normalise_name,
    normalise_ws,
)
from memory.extraction.base import SELF_REF, Transcript, empty_batch


class _ToolError(Exception):
    """A tool call's input cannot be used; the message goes back to the model."""


def _text(value: Any, field: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _ToolError(f"`{field}` must be a non-empty string")
    return value.strip()


def _optional_text(value: Any, field: str) -> str | None:
    return None if value is None else _text(value, field)


def _number(value: Any, field: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        raise _ToolError(f"`{field}` must be a number from 0 to 1")
    return float(value)


def _strings(value: Any, field: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _ToolError(f"`{field}` must be a list of strings")
    return [normalise_ws(v) for v in value if v.strip()]


def _object(value: Any, field: str) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _ToolError(f"`{field}` must be an object")
    return dict(value)


class _Session:
    """The batch under construction and the tool implementations that write it."""

    def __init__(self, transcript: Transcript):
        self.messages = {turn.message_id: turn.text for turn in transcript.turns}
        self.batch = empty_batch(transcript.started_at, transcript.ended_at)
        self.neighbourhood = normalise_name(transcript.neighbourhood)
        self.notes: list[str] = []
        self.finished = False
        self.recorded = 0  # items written (nodes, edges, updates, episode)
        self._entities: dict[str, dict] = {}

    def execute(self, name: str, tool_input: Any) -> tuple[str, bool]:
        """Run one tool call: (result text for the model, is_error)."""
        handler = {
            "add_node": self._add_node,
            "add_edge": self._add_edge,
            "update_node": self._update_node,
            "record_episode": self._record_episode,
            "finish": self._finish,
        }.get(name)
        try:
            if handler is None:
                raise _ToolError(f"there is no tool named {name!r}")
            if not isinstance(tool_input, dict):
                raise _ToolError("the tool input must be a JSON object")
            return handler(tool_input), False
        except _ToolError as exc:
            self.notes.append(f"{name} rejected: {exc}")
            return f"error: {exc}. Nothing was written; call the tool again, corrected.", True

    def _is_self(self, value: str) -> bool:
        return normalise_name(value) in SELF_PLACEHOLDERS

    def _add_node(self, args: dict) -> str:
        ref, name = _text(args.get("ref"), "ref"), _text(args.get("name"), "name")
        kind = _text(args.get("kind"), "kind").upper()
        if kind not in KINDS:
            raise _ToolError(f"`kind` must be one of {', '.join(sorted(KINDS))}")
        if self._is_self(ref) or self._is_self(name):
            raise _ToolError('the user is always "user"; use update_node(ref="user") instead')
        existing = self._entities.get(ref)
        if existing is not None:
            if (existing["kind"], normalise_name(existing["name"])) == (kind, normalise_name(name)):
                return f"node {ref!r} already exists"
            raise _ToolError(f"ref {ref!r} is already used by {existing['name']!r}")
        entity = {
            "ref": ref,
            "kind": kind,
            "name": normalise_ws(name),
            "aliases": _strings(args.get("aliases"), "aliases"),
            "properties": _object(args.get("properties"), "properties"),
            "confidence": _number(args.get("confidence"), "confidence"),
            "hint": _optional_text(args.get("hint"), "hint"),
        }
        self._entities[ref] = entity
        self.batch["entities"].append(entity)
        self.recorded += 1
        return f"ok: node {ref!r} ({kind} {entity['name']!r}) written"

    def _end(self, value: Any, field: str) -> str:
        end = _text(value, field)
        if end in self._entities or self._is_self(end):
            return end
        norm = normalise_name(end)
        if any(normalise_name(e["name"]) == norm for e in self._entities.values()):
            return end  # a node of this batch by name; cleaning resolves it to its ref
        if norm and re.search(rf"(?<!\w){re.escape(norm)}(?!\w)", self.neighbourhood):
            return end  # names an existing node; the write service resolves it
        raise _ToolError(
            f'`{field}` {end!r} is neither a ref written with add_node, "user", nor the '
            "exact name of an existing node; add the node first"
        )

    def _add_edge(self, args: dict) -> str:
        source, target = (
            self._end(args.get("source"), "source"),
            self._end(args.get("target"), "target"),
        )
        if source == target or (self._is_self(source) and self._is_self(target)):
            raise _ToolError("an edge cannot join a node to itself")
        raw_label = _text(args.get("relation"), "relation")
        label = re.sub(r"[\s\-]+", "_", raw_label.upper()).strip("_")
        if not RELATION_LABEL.match(label):
            raise _ToolError(
                f"relation {raw_label!r} must be UPPERCASE, verb first, 1-4 words joined by _"
            )
        message = _text(args.get("message"), "message")
        snippet = _text(args.get("snippet"), "snippet")
        if message not in self.messages:
            known = ", ".join(self.messages)
            raise _ToolError(f"`message` {message!r} is not one of the turns ({known})")
        if normalise_ws(snippet) not in normalise_ws(self.messages[message]):
            raise _ToolError(
                f"the snippet is not verbatim in message {message!r}; copy the user's exact "
                "words from that message"
            )
        self.batch["relations"].append(
            {
                "source": SELF_REF if self._is_self(source) else source,
                "relation": label,
                "target": SELF_REF if self._is_self(target) else target,
                "confidence": _number(args.get("confidence"), "confidence"),
                "stability": args.get("stability"),
                "cardinality": args.get("cardinality"),
                "expires_at": args.get("expires_at"),
                "snippet": snippet,
                "evidence": args.get("evidence") if isinstance(args.get("evidence"), str) else "",
                "message": message,
                # Checked by clean_batch: a malformed date is dropped with a note, the edge kept.
                "occurred": args.get("occurred") if isinstance(args.get("occurred"), str) else "",
            }
        )
        self.recorded += 1
        return f"ok: edge {source} -[{label}]-> {target} written"

    def _update_node(self, args: dict) -> str:
        ref = _text(args.get("ref"), "ref")
        aliases = _strings(args.get("aliases"), "aliases")
        properties = _object(args.get("properties"), "properties")
        if self._is_self(ref):
            name = _optional_text(args.get("name"), "name")
            if name:
                self.batch["self_name"] = normalise_ws(name)
            known = self.batch.setdefault("self_aliases", [])
            known.extend(a for a in aliases if a not in known)
            self.batch.setdefault("self_properties", {}).update(properties)
            if not self.batch["self_aliases"]:
                del self.batch["self_aliases"]
            if not self.batch["self_properties"]:
                del self.batch["self_properties"]
            self.recorded += 1
            return "ok: the user updated"
        entity = self._entities.get(ref)
        if entity is None:
            raise _ToolError(
                f"no node with ref {ref!r} in this conversation; to add to an existing node, "
                "call add_node with its exact name and kind"
            )
        entity["aliases"].extend(a for a in aliases if a not in entity["aliases"])
        entity["properties"].update(properties)
        self.recorded += 1
        return f"ok: node {ref!r} updated"

    def _record_episode(self, args: dict) -> str:
        summary = _text(args.get("summary"), "summary")
        importance = _number(args.get("importance"), "importance")
        tags = _strings(args.get("tags"), "tags")
        self.batch["episode"].update(
            summary=normalise_ws(summary)[:300],
            importance=0.5 if importance is None else importance,
            tags=tags[:8],
        )
        self.recorded += 1
        return "ok: episode recorded"

    def _finish(self, args: dict) -> str:
        self.finished = True
        return "ok: finished"
