"""Spreading activation over a user's live edges (SPEC §5.2).

From the seeds, activation flows in waves for up to two hops, in both directions
along every live edge, split in proportion to edge strength over the sender's
total strength and damped by 0.6 per hop. A co-episode bonus then lifts nodes that
appeared in a conversation together with a strongly activated node, and a budget
picks the nodes that fire.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

__all__ = [
    "BONUS",
    "BUDGET",
    "FACTOR",
    "FIRE_THRESHOLD",
    "FORWARD_SHARE",
    "HOPS",
    "Activation",
    "EdgeView",
    "apply_co_episode_bonus",
    "select_fired",
    "spread",
]

HOPS = 2
FACTOR = 0.6
FIRE_THRESHOLD = 0.30
BONUS = 0.15
BUDGET = 8
FORWARD_SHARE = 0.7

SEED = "seed"
FORWARD = "forward"
REVERSE = "reverse"


@dataclass(frozen=True)
class EdgeView:
    """A live edge as the spreading step sees it.

    ``strength`` is the *current* strength (§5.4, 0–100), not ``strength_at_touch``.
    Only live edges are passed in: dormant, superseded and expired edges do not
    conduct (§5.2), and filtering them is the caller's job.
    """

    id: int
    source: int
    target: int
    relation: str
    strength: float


@dataclass
class Activation:
    """The activation record of one node (SPEC §5.2, §6.4).

    score: 1.0 for seeds plus everything received by any path (+ the co-episode
        bonus once it is applied); always ≥ 0.
    direction: "seed" | "forward" | "reverse" — forward when at least as much
        arrived along edge direction (source → target) as against it.
    hop: 0 for seeds, else the hop at which the node first received a positive
        amount (1 for nodes entering through the co-episode bonus alone).
    forward_in / reverse_in: totals received along / against edge direction.
    bonus: the co-episode bonus added to ``score`` (0.0 or the bonus).
    """

    node_id: int
    score: float
    direction: str
    hop: int
    forward_in: float = 0.0
    reverse_in: float = 0.0
    bonus: float = 0.0


def _positive(strength: float) -> float:
    # Strength is 0–100 by contract; a negative or NaN value must not create
    # negative activation, so it conducts nothing.
    return strength if strength > 0 else 0.0


def spread(
    seed_ids: Iterable[int],
    edges: Sequence[EdgeView],
    *,
    hops: int = HOPS,
    factor: float = FACTOR,
) -> tuple[dict[int, Activation], list[int]]:
    """Spread activation from the seeds for ``hops`` waves (SPEC §5.2).

    Inputs:
        seed_ids: the seed nodes (§5.1); each starts with activation 1.0.
        edges: live edges at current strength. The caller passes every live edge
            incident to the seeds and to the nodes reached at hop 1 — the only
            nodes that send with two hops — so the degree sums of senders are
            complete. Self-loops cannot exist (§4 check constraint) and are ignored.
        hops: number of waves (default 2). factor: damping per hop (default 0.6).

    Waves: at hop 1 each seed sends 1.0; at hop h+1 every node sends exactly what
    it *received* at hop h (a seed reached at hop 1 sends that at hop 2 too, and
    flow back to the previous sender counts). A sender u splits its amount as
    ``contrib(u→v) = sent(u) · strength(u,v) / Σ_{e∋u} strength(e) · factor``, the sum
    over all of u's given edges, outgoing and incoming. A node with zero total
    strength sends nothing.

    Output:
        - node id → Activation for every seed and every node that received a
          positive amount. Seeds score 1.0 plus what they received.
        - the ids of the edges that carried a positive contribution, de-duplicated,
          sorted ascending (the Traversal log, reinforced at Write).

    Invariants: every score ≥ 0; only seeds and nodes within ``hops`` edges of a
    seed appear; an edge crossed in either direction is logged once.
    """
    seeds = list(dict.fromkeys(seed_ids))
    incident: dict[int, list[EdgeView]] = {}
    degree: dict[int, float] = {}
    for edge in edges:
        if edge.source == edge.target:
            continue
        weight = _positive(edge.strength)
        for end in (edge.source, edge.target):
            incident.setdefault(end, []).append(edge)
            degree[end] = degree.get(end, 0.0) + weight

    acts: dict[int, Activation] = {
        node: Activation(node_id=node, score=1.0, direction=SEED, hop=0) for node in seeds
    }
    crossed: set[int] = set()
    sending: dict[int, float] = {node: 1.0 for node in seeds}

    for hop in range(1, hops + 1):
        received: dict[int, float] = {}
        for sender, amount in sending.items():
            total = degree.get(sender, 0.0)
            if amount <= 0 or total <= 0:
                continue
            for edge in incident[sender]:
                contrib = amount * _positive(edge.strength) / total * factor
                if contrib <= 0:
                    continue
                forward = edge.source == sender
                receiver = edge.target if forward else edge.source
                crossed.add(edge.id)
                received[receiver] = received.get(receiver, 0.0) + contrib
                act = acts.get(receiver)
                if act is None:
                    act = Activation(node_id=receiver, score=0.0, direction=FORWARD, hop=hop)
                    acts[receiver] = act
                act.score += contrib
                if forward:
                    act.forward_in += contrib
                else:
                    act.reverse_in += contrib
        sending = received

    for act in acts.values():
        if act.direction != SEED:
            act.direction = FORWARD if act.forward_in >= act.reverse_in else REVERSE
    return acts, sorted(crossed)


def apply_co_episode_bonus(
    acts: Mapping[int, Activation],
    node_episodes: Mapping[int, Iterable[int]],
    *,
    threshold: float = FIRE_THRESHOLD,
    bonus: float = BONUS,
) -> dict[int, Activation]:
    """Add the co-episode bonus of SPEC §5.2 to the scores after spreading.

    Inputs:
        acts: the result of ``spread`` (not modified).
        node_episodes: node id → ids of the episodes it appeared in; may include
            nodes that were not reached.
        threshold: the score a *partner* node needs (default 0.30).
        bonus: the amount added (default 0.15).

    Rule: every non-seed node that shares at least one episode with *another* node
    scoring ≥ ``threshold`` after spreading gains ``bonus`` exactly once, however
    many episodes or partners it shares. Partners are judged on the spread scores
    only, so a bonus never cascades into further bonuses. A node that was not
    reached enters with score ``bonus``, direction "forward", hop 1.

    Output: a new dict (copies of the records); seeds are copied unchanged; nodes
    entering through the bonus come after the reached ones.
    """
    strong = {node for node, act in acts.items() if act.score >= threshold}
    members: dict[int, set[int]] = {}  # episode → strong nodes in it
    episodes_of: dict[int, set[int]] = {}
    for node, episode_ids in node_episodes.items():
        episodes_of[node] = set(episode_ids)
        if node in strong:
            for episode in episodes_of[node]:
                members.setdefault(episode, set()).add(node)

    def qualifies(node: int) -> bool:
        return any(members.get(ep, set()) - {node} for ep in episodes_of.get(node, ()))

    result = {node: replace(act) for node, act in acts.items()}
    for node, act in result.items():
        if act.direction != SEED and qualifies(node):
            act.score += bonus
            act.bonus = bonus
    for node in episodes_of:
        if node not in result and qualifies(node):
            result[node] = Activation(
                node_id=node, score=bonus, direction=FORWARD, hop=1, bonus=bonus
            )
    return result


def select_fired(
    acts: Mapping[int, Activation],
    *,
    threshold: float = FIRE_THRESHOLD,
    budget: int = BUDGET,
    forward_share: float = FORWARD_SHARE,
) -> list[Activation]:
    """Pick the nodes that fire (SPEC §5.2, last bullet).

    Candidates score ≥ ``threshold``. The ``budget`` (default 8) is split into
    ``round(budget · forward_share)`` slots for seed-or-forward nodes (6 of 8) and the
    rest for reverse nodes (2 of 8); rounding is half-up, not Python's half-even.
    Within each side the highest scores win (ties: lower node id). Slots one side
    cannot fill go to the other side's next best.

    Output: at most ``budget`` records, sorted by score descending, then node id.
    """
    if budget <= 0:
        return []
    candidates = [a for a in acts.values() if a.score >= threshold]
    order = sorted(candidates, key=lambda a: (-a.score, a.node_id))
    front = [a for a in order if a.direction in (SEED, FORWARD)]
    back = [a for a in order if a.direction == REVERSE]
    front_slots = min(budget, max(0, math.floor(budget * forward_share + 0.5)))
    back_slots = budget - front_slots
    chosen = front[:front_slots] + back[:back_slots]
    # At most one side has leftovers when the other is short, so merging both
    # remainders by score is the same as "backfill from the other side".
    spare = budget - len(chosen)
    remainder = sorted(front[front_slots:] + back[back_slots:], key=lambda a: (-a.score, a.node_id))
    chosen.extend(remainder[:spare])
    return sorted(chosen, key=lambda a: (-a.score, a.node_id))
