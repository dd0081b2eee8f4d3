"""What a commit reports: ``WriteSummary`` (``write_batch --json``, ``extract --sync``) and
the ``Judgements`` asked before the lock."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from memory.services import merge


@dataclass
class WriteSummary:
    """What one commit did; ``to_dict()`` is what ``write_batch --json`` prints.

    Lines name edges ``Source -[RELATION]-> Target``. ``reinforced`` lists edges re-observed
    by the batch, ``crossed`` edges reinforced because a Read of the conversation crossed
    them; ``usage`` counts the tokens of LLM merge judgements; ``outcomes`` counts what became
    of the batch's entities (``memory.services.merge.resolve.Resolution.outcome``: "matched",
    "merged", "held", "new", …); ``entities`` tells, per ref of the batch, what became of
    that entity (``{"outcome", "node", "rule"}``), so two entities of one name can be told
    apart.
    """

    episode: int | None = None
    added_nodes: list[str] = field(default_factory=list)
    added_edges: list[str] = field(default_factory=list)
    reinforced: list[str] = field(default_factory=list)
    crossed: list[str] = field(default_factory=list)
    merged: list[dict] = field(default_factory=list)
    held: list[dict] = field(default_factory=list)
    kept_apart: list[dict] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)
    provisional: list[str] = field(default_factory=list)
    dropped: list[dict] = field(default_factory=list)
    fixes: list[str] = field(default_factory=list)
    outcomes: dict[str, int] = field(default_factory=dict)
    entities: dict[str, dict] = field(default_factory=dict)
    input_tokens: int = 0
    output_tokens: int = 0

    def to_dict(self) -> dict:
        return {
            "added": {"nodes": list(self.added_nodes), "edges": list(self.added_edges)},
            "reinforced": list(self.reinforced),
            "crossed": list(self.crossed),
            "merged": [dict(m) for m in self.merged],
            "held": [dict(h) for h in self.held],
            "kept_apart": [dict(k) for k in self.kept_apart],
            "superseded": list(self.superseded),
            "provisional": list(self.provisional),
            "dropped": [dict(d) for d in self.dropped],
            "fixes": list(self.fixes),
            "outcomes": dict(self.outcomes),
            "entities": {ref: dict(e) for ref, e in self.entities.items()},
            "episode": self.episode,
            "usage": {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens},
        }

    def lines(self) -> list[str]:
        """A human-readable report, one item per line (``write_batch``, ``extract --sync``)."""
        out = [f"episode {self.episode}"]

        def section(title: str, items: list[str]) -> None:
            out.append(f"{title}: {len(items)}")
            out.extend(f"  {item}" for item in items)

        section("added nodes", self.added_nodes)
        section("added edges", self.added_edges)
        section("reinforced", self.reinforced)
        section("reinforced (crossed by a Read)", self.crossed)
        section(
            "merged",
            [
                f"{m['name']} → {m['into']} ({m['rule']}"
                f"{', flagged for review' if m.get('flagged') else ''})"
                for m in self.merged
            ],
        )
        section(
            "held for review",
            [f"{h['name']} (candidates: {', '.join(h['candidates'])})" for h in self.held],
        )
        section(
            "kept apart",
            [f"{k['name']} (candidates: {', '.join(k['candidates'])})" for k in self.kept_apart],
        )
        section("superseded", self.superseded)
        section("provisional", self.provisional)
        section("dropped", [f"{d['item']}: {d['reason']}" for d in self.dropped])
        section("fixes", self.fixes)
        return out


@dataclass(frozen=True)
class Judgements:
    """The LLM's merge judgements for one batch, made before the lock (``judge_batch``).

    by_key: ``merge.Judgement`` by ``merge.judgement_key`` (entity + exact candidate ids).
    self_id: the primary key reserved for the self node the batch creates, when the
        judgements were made against it (so their candidate ids name it).
    """

    by_key: Mapping[str, merge.Judgement] = field(default_factory=dict)
    self_id: int | None = None

    def tokens(self) -> tuple[int, int]:
        """(input, output) tokens the judgements spent, used or not."""
        usages = [j.usage for j in self.by_key.values() if j.usage is not None]
        return (
            sum(int(getattr(u, "input_tokens", 0) or 0) for u in usages),
            sum(int(getattr(u, "output_tokens", 0) or 0) for u in usages),
        )
