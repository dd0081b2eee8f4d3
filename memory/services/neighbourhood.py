"""A node's 2-hop neighbourhood as lines ``A -[REL]-> B`` with their snippets: what the
review page, the inbox and the admin's node page show, and what the LLM judge is shown.
Loading is bounded: two queries whatever the number of nodes, at most ``EDGE_ROWS`` rows
each."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from django.db.models import Q

from memory.core.cleaning import normalise_ws
from memory.models import Edge

__all__ = ["EdgeLine", "neighbourhoods"]

NEIGHBOURHOOD_LINES = 30  # per node, first-hop edges first
EDGE_ROWS = 600  # per query: a hub node (the self node) must not load the whole graph
SNIPPET_CHARS = 300


@dataclass
class EdgeLine:
    """One edge of a neighbourhood, as the review page prints it: ``A -[REL]-> B``."""

    id: int
    source: str
    relation: str
    target: str
    snippet: str = ""
    dormant: bool = False
    hop: int = 1
    moved: bool = False  # came with the merge under review

    @property
    def line(self) -> str:
        return f"{self.source} -[{self.relation}]-> {self.target}"


def _snippet(edge: Edge) -> str:
    snippet = edge.snippet
    if snippet is None or snippet.user_id != edge.user_id:
        return ""
    text = normalise_ws(snippet.text)
    return text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 1] + "…"


def _load_edges(
    user_id: int, node_ids: Iterable[int], exclude: Iterable[int] = (), *, dormant: bool = True
) -> list[Edge]:
    ids = list(node_ids)
    if not ids:
        return []
    edges = Edge.objects.for_user(user_id).filter(superseded_by__isnull=True)
    if not dormant:
        edges = edges.filter(dormant=False)
    return list(
        edges.filter(Q(source_id__in=ids) | Q(target_id__in=ids))
        .exclude(pk__in=list(exclude))
        .select_related("source", "target", "snippet")
        .order_by("dormant", "-strength_at_touch", "id")[:EDGE_ROWS]
    )


def neighbourhoods(
    user_id: int,
    node_ids: Sequence[int],
    *,
    moved: Iterable[int] = (),
    dormant: bool = True,
    names: Mapping[int, str] | None = None,
) -> dict[int, tuple[list[EdgeLine], bool]]:
    """Each node's 2-hop neighbourhood: the non-superseded edges touching it (hop 1), then
    those touching its neighbours (hop 2), each with its current snippet; strongest first,
    live before dormant, at most ``NEIGHBOURHOOD_LINES`` per node. Returns
    ``{node_id: (lines, truncated)}``. Two queries whatever the number of nodes.

    ``moved``: edge ids the proposed entity brought (marked on their lines). ``dormant``:
    False leaves dormant edges out (what the LLM judge is shown). ``names``: node id → the
    name to print instead of the stored one (the self node as a batch will leave it).
    """
    moved_ids = set(moved)
    names = names or {}
    first = _load_edges(user_id, node_ids, dormant=dormant)
    touching: dict[int, list[Edge]] = defaultdict(list)
    for edge in first:
        touching[edge.source_id].append(edge)
        touching[edge.target_id].append(edge)
    hop1 = {
        nid: {e.target_id if e.source_id == nid else e.source_id for e in touching[nid]}
        for nid in node_ids
    }
    second_ids = set().union(*hop1.values()) - set(node_ids) if hop1 else set()
    second = _load_edges(user_id, second_ids, exclude=[e.pk for e in first], dormant=dormant)
    for edge in second:
        for end in {edge.source_id, edge.target_id}:
            if end in second_ids:
                touching[end].append(edge)

    def line(edge: Edge, hop: int) -> EdgeLine:
        return EdgeLine(
            id=edge.pk,
            source=names.get(edge.source_id, edge.source.name),
            relation=edge.relation,
            target=names.get(edge.target_id, edge.target.name),
            snippet=_snippet(edge),
            dormant=edge.dormant,
            hop=hop,
            moved=edge.pk in moved_ids,
        )

    def order(edge: Edge) -> tuple:
        return (edge.dormant, -edge.strength_at_touch, edge.pk)

    out: dict[int, tuple[list[EdgeLine], bool]] = {}
    for nid in node_ids:
        near = {e.pk: e for e in touching[nid]}
        far = {
            e.pk: e
            for neighbour in hop1[nid]
            for e in touching[neighbour]
            if e.pk not in near and nid not in (e.source_id, e.target_id)
        }
        lines = [line(e, 1) for e in sorted(near.values(), key=order)]
        lines += [line(e, 2) for e in sorted(far.values(), key=order)]
        out[nid] = (lines[:NEIGHBOURHOOD_LINES], len(lines) > NEIGHBOURHOOD_LINES)
    return out
