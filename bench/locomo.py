"""LoCoMo-format evidence recall: load, replay through the real pipeline, score, compare.

The format (Maharana et al., "Evaluating Very Long-Term Conversational Memory of LLM Agents",
2024): a JSON list of samples, each with

* ``conversation``: ``speaker_a``, ``speaker_b``, and per session n ``session_<n>`` (a list of
  turns ``{"speaker", "dia_id", "text"}``) and ``session_<n>_date_time`` ("1:56 pm on 8 May,
  2023"); sessions are counted from the ``session_<n>`` keys;
* ``qa``: ``{"question", "answer", "evidence": [dia_id, ...], "category": 1-5}``; category 1 is
  multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial (excluded from scoring).

Definitions used by ``bench_locomo`` (and documented in docs/BENCHMARKS.md):

* **Evidence ids.** Each evidence entry is split on ``;``, ``,`` and white space (real LoCoMo
  files hold a few ``"D8:6; D9:17"`` entries); every part must read ``D<n>:<m>`` and name a
  turn of the sample, otherwise it is *skipped* and counted. A question left without a valid
  evidence id is not scored.
* **Covered.** An evidence turn is covered by a Read when a ``[CONTEXT]`` snippet was cut from
  it (the snippet's source message carries the turn's ``dia_id`` as ``external_id``), or when
  the turn's whole text (white space normalised) occurs inside the injected snippets. For a
  baseline, when the turn is among the k retrieved.
* **Evidence recall** of a question: covered evidence turns / valid evidence turns; systems
  report the mean over questions.
* **Tokens**: white-space words × 1.3 (``count_tokens``), no model tokenizer. Pegasus counts
  its whole injected block (``ReadRecord.text``: tags, memory lines, snippets); a baseline its
  retrieved turns rendered one per line as ``Speaker: text``; full context every turn of the
  sample rendered the same way.
"""

from __future__ import annotations

import contextlib
import json
import re
import secrets
import time
from collections import Counter
from collections.abc import Callable, Container, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from memory.core.dates import MONTHS

__all__ = [
    "CATEGORIES",
    "DenseRanker",
    "HybridRanker",
    "LexicalRanker",
    "LocomoFormatError",
    "Question",
    "Sample",
    "Session",
    "Turn",
    "baseline_rankers",
    "cold_read_caches",
    "count_tokens",
    "covered_turns",
    "evidence_recall",
    "graph_report",
    "graph_stats",
    "load_file",
    "load_for_command",
    "load_samples",
    "match_k",
    "parse_evidence",
    "parse_session_date",
    "percentile",
    "render_turns",
    "sentence_units",
    "turn_tokens",
    "turn_units",
]

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
"""Scored categories (5, adversarial, is excluded)."""

WORDS_TO_TOKENS = 1.3
TURN_GAP = timedelta(seconds=30)
"""Simulated time between two turns of a session (LoCoMo dates each session, not each turn)."""

_DIA_ID = re.compile(r"^D(\d+):(\d+)$")
_SESSION_KEY = re.compile(r"^session_(\d+)$")
_EVIDENCE_SPLIT = re.compile(r"[;,\s]+")
_DATE = re.compile(
    r"^\s*(\d{1,2}):(\d{2})\s*([ap])\.?\s*m\.?\s+on\s+(\d{1,2})\s+([a-z]+)\.?,?\s+(\d{4})\s*$",
    re.IGNORECASE,
)


class LocomoFormatError(ValueError):
    """The file is not LoCoMo-shaped (the message says where)."""


# --- the format ---------------------------------------------------------------------------------


def parse_session_date(text: str) -> datetime:
    """``"1:56 pm on 8 May, 2023"`` → 2023-05-08 13:56 UTC (the format gives no zone; UTC is
    assumed). Month names may be abbreviated, the comma and the dots of "p.m." are optional.
    Raises ``LocomoFormatError`` for anything else."""
    m = _DATE.match(text or "")
    if m is None or m[5].lower() not in MONTHS:
        raise LocomoFormatError(f"unreadable session date {text!r}")
    hour, minute = int(m[1]), int(m[2])
    if not 1 <= hour <= 12 or minute > 59:
        raise LocomoFormatError(f"unreadable session date {text!r}")
    hour = hour % 12 + (12 if m[3].lower() == "p" else 0)
    try:
        return datetime(int(m[6]), MONTHS[m[5].lower()], int(m[4]), hour, minute, tzinfo=UTC)
    except ValueError as exc:
        raise LocomoFormatError(f"unreadable session date {text!r}: {exc}") from None


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    session: int


@dataclass(frozen=True)
class Session:
    number: int
    date: datetime
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class Question:
    """One scored-or-not question. ``evidence``: the valid dia_ids; ``skipped``: the parts of
    the evidence list that were malformed or name no turn of the sample."""

    question: str
    answer: str
    category: int
    evidence: tuple[str, ...]
    skipped: tuple[str, ...] = ()

    @property
    def scored(self) -> bool:
        return self.category in CATEGORIES and bool(self.evidence)


@dataclass(frozen=True)
class Sample:
    sample_id: str
    speaker_a: str
    speaker_b: str
    sessions: tuple[Session, ...]
    questions: tuple[Question, ...]

    @property
    def turns(self) -> list[Turn]:
        return [turn for session in self.sessions for turn in session.turns]


def parse_evidence(entries: Iterable, known: Container[str]) -> tuple[list[str], list[str]]:
    """Split an evidence list into (valid dia_ids, skipped parts), both in order; a valid id
    is listed once. See the module docstring for the rules."""
    valid: list[str] = []
    skipped: list[str] = []
    for entry in entries:
        parts = _EVIDENCE_SPLIT.split(entry.strip()) if isinstance(entry, str) else [entry]
        for part in parts:
            if part == "":
                continue
            if isinstance(part, str) and _DIA_ID.match(part) and part in known:
                if part not in valid:
                    valid.append(part)
            else:
                skipped.append(str(part))
    return valid, skipped


def _sessions(conversation: dict, where: str) -> list[Session]:
    numbers = sorted(int(m[1]) for key in conversation if (m := _SESSION_KEY.match(key)))
    sessions = []
    for number in numbers:
        raw = conversation[f"session_{number}"]
        if not isinstance(raw, list):
            raise LocomoFormatError(f"{where}: session_{number} is not a list of turns")
        date = parse_session_date(conversation.get(f"session_{number}_date_time", ""))
        turns = []
        for i, turn in enumerate(raw):
            if not isinstance(turn, dict) or not all(
                isinstance(turn.get(key), str) for key in ("speaker", "dia_id", "text")
            ):
                raise LocomoFormatError(
                    f"{where}: session_{number} turn {i} needs string speaker, dia_id and text"
                )
            turns.append(Turn(turn["dia_id"], turn["speaker"].strip(), turn["text"], number))
        sessions.append(Session(number, date, tuple(turns)))
    return sessions


def load_samples(data) -> list[Sample]:
    """Validate parsed LoCoMo JSON and return its samples (``LocomoFormatError`` otherwise)."""
    if not isinstance(data, list):
        raise LocomoFormatError("a LoCoMo file is a JSON list of samples")
    samples = []
    for n, raw in enumerate(data):
        where = f"sample {n}"
        if not isinstance(raw, dict) or not isinstance(raw.get("conversation"), dict):
            raise LocomoFormatError(f"{where}: needs a 'conversation' object")
        conversation = raw["conversation"]
        sessions = _sessions(conversation, where)
        if not sessions:
            raise LocomoFormatError(f"{where}: no session_<n> in the conversation")
        known = {turn.dia_id for session in sessions for turn in session.turns}
        questions = []
        for i, qa in enumerate(raw.get("qa") or []):
            if not isinstance(qa, dict) or not isinstance(qa.get("question"), str):
                raise LocomoFormatError(f"{where}: qa {i} needs a string 'question'")
            try:
                category = int(qa.get("category"))
            except (TypeError, ValueError):
                category = 0
            if not 1 <= category <= 5:
                raise LocomoFormatError(f"{where}: qa {i} has no category 1-5")
            evidence = qa.get("evidence") or []
            if not isinstance(evidence, list):
                evidence = [evidence]
            valid, skipped = parse_evidence(evidence, known)
            answer = qa.get("answer", qa.get("adversarial_answer", ""))
            questions.append(
                Question(qa["question"], str(answer), category, tuple(valid), tuple(skipped))
            )
        samples.append(
            Sample(
                sample_id=str(raw.get("sample_id") or f"sample-{n + 1}"),
                speaker_a=str(conversation.get("speaker_a", "")),
                speaker_b=str(conversation.get("speaker_b", "")),
                sessions=tuple(sessions),
                questions=tuple(questions),
            )
        )
    return samples


def load_for_command(path: str | Path, samples: int) -> list[Sample]:
    """The first ``samples`` samples of ``path`` (all when 0), for a management command: a
    malformed file or a negative count is a ``CommandError`` saying what is wrong."""
    from django.core.management.base import CommandError

    if samples < 0:
        raise CommandError("--samples must be ≥ 0")
    try:
        loaded = load_file(path)
    except LocomoFormatError as exc:
        raise CommandError(str(exc)) from None
    return loaded[:samples] if samples else loaded


def load_file(path: str | Path) -> list[Sample]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise LocomoFormatError(f"cannot read {path}: {exc}") from None
    return load_samples(data)


# --- scoring ------------------------------------------------------------------------------------


def count_tokens(text: str) -> float:
    """White-space words × 1.3: a model-free stand-in for subword tokens (English prose runs
    at roughly 1.3 BPE tokens per word)."""
    return len(text.split()) * WORDS_TO_TOKENS


def _ws(text: str) -> str:
    return " ".join(text.split())


def covered_turns(snippets: Iterable[tuple[str | None, str]], turns: Iterable[Turn]) -> set[str]:
    """The dia_ids an injected context covers: the source turn of each ``(source dia_id or
    None, snippet text)``, plus every turn whose whole text occurs in the snippets."""
    snippets = list(snippets)
    covered = {source for source, _ in snippets if source}
    joined = "\n".join(_ws(text) for _, text in snippets)
    for turn in turns:
        text = _ws(turn.text)
        if text and text in joined:
            covered.add(turn.dia_id)
    return covered


def evidence_recall(evidence: Sequence[str], covered: Container[str]) -> float:
    """Covered evidence turns / evidence turns (1.0 for an empty list: nothing was missed —
    callers never score such a question)."""
    if not evidence:
        return 1.0
    return sum(1 for dia_id in evidence if dia_id in covered) / len(evidence)


def render_turns(turns: Iterable[Turn]) -> str:
    """How a baseline injects turns: one ``Speaker: text`` line each."""
    return "\n".join(f"{turn.speaker}: {_ws(turn.text)}" for turn in turns)


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile with linear interpolation (numpy's default); 0.0 when empty."""
    return float(np.percentile(np.asarray(values, dtype=np.float64), q)) if values else 0.0


def match_k(token_counts: Sequence[Sequence[float]], target: float) -> int:
    """The k whose mean token count over questions is closest to ``target`` (ties → the larger
    k, the conservative side for the system being compared).

    ``token_counts[i][j]`` is the tokens of question i's top j + 1 turns (a question whose
    corpus has fewer turns keeps its total beyond its length)."""
    if not token_counts:
        return 1
    longest = max(len(row) for row in token_counts)
    best_k, best_gap = 1, float("inf")
    for k in range(1, longest + 1):
        mean = sum(row[min(k, len(row)) - 1] if row else 0.0 for row in token_counts) / len(
            token_counts
        )
        gap = abs(mean - target)
        if gap <= best_gap:
            best_k, best_gap = k, gap
    return best_k


# --- baselines ----------------------------------------------------------------------------------


def turn_units(turns: Sequence[Turn]) -> list[tuple[str, str]]:
    """A turn baseline's units: ``(dia_id, "Speaker: text")`` per turn."""
    return [(turn.dia_id, f"{turn.speaker}: {turn.text}") for turn in turns]


def sentence_units(sample: Sample) -> list[tuple[str, str]]:
    """A sentence baseline's units: every sentence of every turn, rendered as Pegasus renders
    a recalled sentence (``- Speaker, 8 May 2023: "…"``, ``memory.core.passages``)."""
    from memory.core.passages import Passage, passage_line, said_on, split_sentences

    units = []
    for session in sample.sessions:
        day = said_on(session.date)
        for turn in session.turns:
            for sentence in split_sentences(turn.text):
                units.append((turn.dia_id, passage_line(Passage(0, turn.speaker, day, sentence))))
    return units


class LexicalRanker:
    """BM25 (``bench.bm25``) over units (``turn_units`` or ``sentence_units``)."""

    def __init__(self, units: Sequence[tuple[str, str]], name: str = "bm25"):
        from bench.bm25 import BM25, tokens

        self.name = name
        self.units = list(units)
        self._tokens = tokens
        self.index = BM25([tokens(text) for _, text in self.units])

    def rank(self, question: str) -> list[int]:
        return self.index.top(self._tokens(question), self.index.n)


class DenseRanker:
    """Cosine similarity of the question and each unit, both embedded by the Read's own
    sentence model. The question is encoded afresh on every call (not through
    ``memory.embedding``'s text cache, which the Read of the same question may have filled), so
    the timing includes the encoding."""

    def __init__(self, units: Sequence[tuple[str, str]], name: str = "dense"):
        from memory import embedding

        self.name = name
        self.units = list(units)
        self._encoder = embedding.get_encoder()
        self.matrix = (
            embedding.embed([text for _, text in self.units])
            if self.units
            else np.zeros((0, 1), dtype=np.float32)
        )

    def rank(self, question: str) -> list[int]:
        if not len(self.matrix):
            return []
        query = np.asarray(self._encoder.encode([question])[0], dtype=np.float32)
        scores = self.matrix @ (query / max(float(np.linalg.norm(query)), 1e-12))
        return [int(i) for i in np.argsort(-scores, kind="stable")]


class HybridRanker:
    """BM25 and dense over the same units, fused by reciprocal rank (k = 60)."""

    def __init__(self, lexical: LexicalRanker, dense: DenseRanker, name: str = "hybrid"):
        self.name = name
        self.units = lexical.units
        self.lexical, self.dense = lexical, dense

    def rank(self, question: str) -> list[int]:
        score: dict[int, float] = {}
        for ranking in (self.lexical.rank(question), self.dense.rank(question)):
            for position, unit in enumerate(ranking, start=1):
                score[unit] = score.get(unit, 0.0) + 1.0 / (60 + position)
        return sorted(score, key=lambda unit: (-score[unit], unit))


PACKED = ("bm25-sentences", "hybrid-sentences")
"""Sentence baselines: packed per question to the tokens of that question's Read."""


def baseline_rankers(sample: Sample) -> list:
    """The baselines of one sample: over turns BM25, dense and their hybrid (cut at k), and
    over single sentences BM25 and the hybrid (packed to the Read's tokens)."""
    turns = turn_units(sample.turns)
    lexical, dense = LexicalRanker(turns), DenseRanker(turns)
    sentences = sentence_units(sample)
    s_lexical = LexicalRanker(sentences, "bm25-sentences")
    s_dense = DenseRanker(sentences, "dense-sentences")
    return [
        lexical,
        dense,
        HybridRanker(lexical, dense),
        s_lexical,
        HybridRanker(s_lexical, s_dense, "hybrid-sentences"),
    ]


# --- replay and reads (Django) ------------------------------------------------------------------


@dataclass
class Asked:
    """One scored question after all systems answered it: per system, the covered dia_ids of
    the top turns (baselines) or of the Read, tokens per k, and milliseconds."""

    sample: str
    question: Question
    pegasus_covered: set[str]
    pegasus_tokens: float
    pegasus_ms: float
    rankings: dict[str, list[str]] = field(default_factory=dict)  # system → dia_ids, best first
    ranking_ms: dict[str, float] = field(default_factory=dict)
    full_tokens: float = 0.0
    packed: dict[str, tuple[set[str], float]] = field(default_factory=dict)  # covered, tokens


def create_user(index: int):
    """A fresh account ``bench_locomo_<index>_<random>`` (no usable password)."""
    from django.contrib.auth import get_user_model

    username = f"bench_locomo_{index}_{secrets.token_hex(4)}"
    return get_user_model().objects.create_user(username, password=None)


def replay(
    sample: Sample,
    *,
    user,
    progress: Callable[[int], None] | None = None,
    outcomes: Counter | None = None,
) -> datetime:
    """Replay ``sample`` as ``user``'s history with a simulated clock; return the end of the
    last session (the instant the questions are asked at).

    Per session, in number order: Decay runs at the session's date (from the second session
    on); the session becomes a Conversation started at its date, every turn a user Message
    (``speaker`` = the speaker's name, ``external_id`` = the dia_id) ``TURN_GAP`` apart; the
    conversation ends after its last turn, and the Write path runs inline: the episode is
    scheduled without a queued job and extracted at the end time by the configured extractor
    (first person in a turn resolves to its speaker). ``progress`` gets the turns done so far;
    ``outcomes`` adds up what became of every extracted entity (``WriteSummary.outcomes``).
    """
    from chat.models import Conversation, ConversationStatus, Message, Role
    from chat.services import start_conversation
    from memory.services.decay import decay_user
    from memory.services.jobs import extract_episode, schedule_extraction

    done = 0
    end = sample.sessions[0].date
    for position, session in enumerate(sample.sessions):
        if position:
            decay_user(user_id=user.pk, now=max(session.date, end))
        start = max(session.date, end)
        if not session.turns:
            continue
        conversation = start_conversation(
            user=user,
            now=start,
            incognito=False,
            title=f"{sample.sample_id} session {session.number}",
        )
        Message.objects.bulk_create(
            [
                Message(
                    user=user,
                    conversation=conversation,
                    role=Role.USER,
                    text=turn.text,
                    speaker=turn.speaker[:100],
                    external_id=turn.dia_id[:64],
                    created_at=start + TURN_GAP * i,
                )
                for i, turn in enumerate(session.turns)
            ]
        )
        last = start + TURN_GAP * (len(session.turns) - 1)
        end = last + TURN_GAP
        Conversation.objects.for_user(user).filter(pk=conversation.pk).update(
            status=ConversationStatus.ENDED, ended_at=end, last_message_at=last
        )
        episode = schedule_extraction(user=user, conversation=conversation, now=end, enqueue=False)
        summary = extract_episode(episode_id=episode.pk, now=end)[1]
        if outcomes is not None and summary is not None:
            outcomes.update(summary.outcomes)
        done += len(session.turns)
        if progress:
            progress(done)
    return end


@contextlib.contextmanager
def cold_read_caches():
    """Empty the Read's per-process caches (key matrices, graph snapshots, the sentence
    model's text cache) for the block: the questions are then read as by a web process that never
    served this user — the Write path ran in this process and warmed them, which a worker
    process would not do for the web process. The first Read pays the cold cost, and the
    latencies include it."""
    from memory import embedding
    from memory.services import read

    read.clear_key_cache()
    with embedding.use_encoder(embedding.get_encoder()):
        yield


def snippet_sources(user) -> tuple[dict[int, str], dict[int, str]]:
    """(edge id → dia_id of its current snippet's message, message id → dia_id) of ``user``."""
    from chat.models import Message
    from memory.models import Edge

    edges = {
        pk: dia
        for pk, dia in Edge.objects.for_user(user).values_list(
            "pk", "snippet__message__external_id"
        )
        if dia
    }
    messages = dict(
        Message.objects.for_user(user).exclude(external_id="").values_list("pk", "external_id")
    )
    return edges, messages


def ask(
    sample: Sample, question: Question, *, user, now: datetime, options, sources, rankers: Sequence
) -> Asked:
    """Run the Read and every baseline ranking for one question."""
    from memory.services.read import recall

    started = time.perf_counter()
    record = recall(user=user, message=question.question, now=now, options=options)
    pegasus_ms = (time.perf_counter() - started) * 1000.0
    edges, messages = sources
    injected = []
    for snippet in record.context_snippets:
        source = (
            messages.get(snippet.get("message"))
            if snippet.get("message")
            else edges.get(snippet.get("edge"))
        )
        injected.append((source, snippet["text"]))
    turns = sample.turns
    asked = Asked(
        sample.sample_id,
        question,
        covered_turns(injected, turns),
        count_tokens(record.text),
        pegasus_ms,
        full_tokens=count_tokens(render_turns(turns)),
    )
    for ranker in rankers:
        started = time.perf_counter()
        order = ranker.rank(question.question)
        asked.ranking_ms[ranker.name] = (time.perf_counter() - started) * 1000.0
        if ranker.name in PACKED:
            covered, spent = set(), 0.0
            for i in order:
                cost = count_tokens(ranker.units[i][1])
                if spent + cost <= asked.pegasus_tokens:
                    covered.add(ranker.units[i][0])
                    spent += cost
            asked.packed[ranker.name] = (covered, spent)
        else:
            asked.rankings[ranker.name] = [ranker.units[i][0] for i in order]
    return asked


# --- the graph a replay built -------------------------------------------------------------------


@dataclass
class GraphStats:
    """What one replayed sample's extraction filed (``graph_stats``)."""

    turns: int
    nodes: int
    edges: int
    evidence: set[str]  # dia_ids of the scored questions' evidence turns
    cited: set[str]  # dia_ids of turns some snippet of the graph was cut from
    persons: list[str]
    suspect_persons: list[str]
    timed: set[str]  # evidence turns that name a time ("yesterday", "in May", "2 years ago")
    dated: set[str]  # … of which a snippet carries the resolved ``occurred``
    outcomes: Counter = field(default_factory=Counter)  # entities by resolution outcome


def graph_stats(sample: Sample, *, user, outcomes: Counter | None = None) -> GraphStats:
    """Measure ``user``'s graph after replaying ``sample``: every node and edge (live or
    not), the turns its snippets cite, its PERSON nodes and those whose name is a common
    English word (``memory.extraction.offline.lexicon.common_word``), and how many evidence
    turns that name a time carry that time as a snippet's ``occurred``."""
    from memory.core.dates import resolve_occurred
    from memory.extraction.offline.lexicon import common_word
    from memory.models import Edge, Node, Snippet

    evidence = {dia for q in sample.questions if q.scored for dia in q.evidence}
    cited: set[str] = set()
    dated: set[str] = set()
    for dia, occurred in (
        Snippet.objects.for_user(user)
        .exclude(message__isnull=True)
        .values_list("message__external_id", "occurred")
    ):
        cited.add(dia)
        if occurred:
            dated.add(dia)
    persons = sorted(
        Node.objects.for_user(user).filter(kind="PERSON").values_list("name", flat=True)
    )
    dates = {
        turn.dia_id: session.date.date() for session in sample.sessions for turn in session.turns
    }
    timed = {
        turn.dia_id
        for turn in sample.turns
        if turn.dia_id in evidence and resolve_occurred(turn.text, dates[turn.dia_id])
    }
    return GraphStats(
        turns=len(sample.turns),
        nodes=Node.objects.for_user(user).count(),
        edges=Edge.objects.for_user(user).count(),
        evidence=evidence,
        cited=cited,
        persons=persons,
        suspect_persons=[name for name in persons if common_word(name)],
        timed=timed,
        dated=dated & timed,
        outcomes=Counter(outcomes or {}),
    )


def graph_report(stats: Sequence[GraphStats]) -> dict:
    """The ``"graph"`` block of the report, over every replayed sample."""
    turns = sum(s.turns for s in stats) or 1
    evidence = sum(len(s.evidence) for s in stats)
    covered = sum(len(s.evidence & s.cited) for s in stats)
    timed = sum(len(s.timed & s.cited) for s in stats)
    persons = sum(len(s.persons) for s in stats)
    suspects = sorted({name for s in stats for name in s.suspect_persons})
    return {
        "coverage": round(covered / evidence, 4) if evidence else 0.0,
        "evidence_turns": evidence,
        "nodes_per_100_turns": round(100 * sum(s.nodes for s in stats) / turns, 1),
        "edges_per_100_turns": round(100 * sum(s.edges for s in stats) / turns, 1),
        "person_nodes": persons,
        "suspect_person_nodes": suspects,
        "suspect_person_share": round(sum(len(s.suspect_persons) for s in stats) / persons, 4)
        if persons
        else 0.0,
        "timed_evidence_turns": timed,
        "timed_evidence_dated": round(sum(len(s.dated & s.cited) for s in stats) / timed, 4)
        if timed
        else 0.0,
        "resolution": resolution_report(sum((s.outcomes for s in stats), Counter())),
    }


CANDIDATE_OUTCOMES = ("matched", "merged", "flagged", "upgraded", "held", "kept-apart")
"""Outcomes of an entity that had a stored candidate (a "new" one had none or lost it to a
contradiction before any question; "self" is the speaker)."""


def resolution_report(outcomes: Counter) -> dict:
    """What became of the replay's extracted entities, and the share held for a question
    among those that had a candidate (issue 21's "held for review" on real conversations)."""
    with_candidate = sum(outcomes[o] for o in CANDIDATE_OUTCOMES)
    return {
        "entities": sum(outcomes.values()),
        "outcomes": dict(sorted(outcomes.items())),
        "with_candidate": with_candidate,
        "held_share": round(outcomes["held"] / with_candidate, 4) if with_candidate else 0.0,
    }


def merge_decisions(sample: Sample, *, user) -> list[dict]:
    """Every merge decision the replay of ``sample`` recorded in ``user``'s graph, oldest
    first, in words a reader can audit (``bench_locomo --merges FILE``): the status and rule,
    the entity as extracted, the node it was merged into and the candidates by name and kind.
    Automatic merges on real conversations have no labels; reading these is how their
    precision is checked (docs/BENCHMARKS.md)."""
    from memory.models import MergeDecision, Node

    nodes = {
        pk: (name, kind)
        for pk, name, kind in Node.objects.for_user(user).values_list("pk", "name", "kind")
    }
    rows = []
    for decision in MergeDecision.objects.for_user(user).order_by("created_at", "pk"):
        proposed = decision.proposed or {}
        rows.append(
            {
                "sample": sample.sample_id,
                "status": decision.status,
                "rule": decision.rule,
                "kind": decision.kind,
                "proposed": {
                    "name": proposed.get("name"),
                    "properties": proposed.get("properties") or {},
                },
                "kept": nodes.get(decision.kept_id, (None,))[0] if decision.kept_id else None,
                "candidates": [
                    {
                        "name": candidate.get("name"),
                        "kind": nodes.get(candidate.get("id"), (None, None))[1],
                    }
                    for candidate in decision.candidates
                ],
                "reason": decision.reason,
            }
        )
    return rows


# --- the report ---------------------------------------------------------------------------------


def _stats(recalls: list[float], tokens: list[float], ms: list[float]) -> dict:
    n = len(recalls)
    return {
        "recall": round(sum(recalls) / n, 4) if n else 0.0,
        "tokens": round(sum(tokens) / n, 1) if n else 0.0,
        "p50_ms": round(percentile(ms, 50), 2),
        "p95_ms": round(percentile(ms, 95), 2),
    }


def systems_table(
    asked: list[Asked], *, k_match: dict[str, int], turn_tokens: dict[tuple[str, str], float]
) -> dict:
    """The ``{"pegasus": {...}, "bm25@5": {...}, ..., "full_context": {"tokens"}}`` block over
    ``asked`` (one category or all)."""
    table = {
        "pegasus": _stats(
            [evidence_recall(a.question.evidence, a.pegasus_covered) for a in asked],
            [a.pegasus_tokens for a in asked],
            [a.pegasus_ms for a in asked],
        )
    }
    for system in ("bm25", "dense", "hybrid"):
        if not all(system in a.rankings for a in asked):
            continue
        labels = (
            (("match", k_match[system]),)
            if system == "hybrid"
            else (("5", 5), ("10", 10), ("match", k_match[system]))
        )
        for label, k in labels:
            tops = [a.rankings[system][:k] for a in asked]
            table[f"{system}@{label}"] = _stats(
                [
                    evidence_recall(a.question.evidence, set(top))
                    for a, top in zip(asked, tops, strict=True)
                ],
                [
                    sum(turn_tokens[(a.sample, dia)] for dia in top)
                    for a, top in zip(asked, tops, strict=True)
                ],
                [a.ranking_ms[system] for a in asked],
            )
    for system in PACKED:
        if asked and all(system in a.packed for a in asked):
            table[f"{system}@match"] = _stats(
                [evidence_recall(a.question.evidence, a.packed[system][0]) for a in asked],
                [a.packed[system][1] for a in asked],
                [a.ranking_ms[system] for a in asked],
            )
    n = len(asked)
    table["full_context"] = {
        "tokens": round(sum(a.full_tokens for a in asked) / n, 1) if n else 0.0
    }
    return table


def report(
    asked: list[Asked],
    samples: Sequence[Sample],
    *,
    skipped_evidence: int,
    graph: Sequence[GraphStats] = (),
) -> dict:
    """The ``--json`` object: systems overall, by category (with the overall ``@match`` k),
    the number of scored questions and of skipped evidence ids, and the graph block."""
    tokens = turn_tokens(samples)
    k_match = match_ks(asked, tokens)
    by_category = {}
    for category in sorted(CATEGORIES):
        rows = [a for a in asked if a.question.category == category]
        if rows:
            by_category[str(category)] = systems_table(rows, k_match=k_match, turn_tokens=tokens)
    return {
        "systems": systems_table(asked, k_match=k_match, turn_tokens=tokens),
        "by_category": by_category,
        "questions": len(asked),
        "skipped_evidence": skipped_evidence,
        "graph": graph_report(graph),
    }


def turn_tokens(samples: Sequence[Sample]) -> dict[tuple[str, str], float]:
    return {
        (sample.sample_id, turn.dia_id): count_tokens(render_turns([turn]))
        for sample in samples
        for turn in sample.turns
    }


def match_ks(asked: list[Asked], tokens: dict[tuple[str, str], float]) -> dict[str, int]:
    """Per baseline, the k whose mean tokens is closest to Pegasus's mean tokens (overall)."""
    if not asked:
        return {"bm25": 1, "dense": 1, "hybrid": 1}
    target = sum(a.pegasus_tokens for a in asked) / len(asked)
    out = {}
    for system in ("bm25", "dense", "hybrid"):
        if not all(system in a.rankings for a in asked):
            out[system] = 1
            continue
        cumulative = []
        for a in asked:
            running, row = 0.0, []
            for dia in a.rankings[system]:
                running += tokens[(a.sample, dia)]
                row.append(running)
            cumulative.append(row)
        out[system] = match_k(cumulative, target)
    return out
