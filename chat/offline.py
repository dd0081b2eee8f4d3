"""The reply Pegasus composes without a language model (SPEC §2, offline mode).

It answers in plain sentences from the turn's Read record (SPEC §6.4) — "Kate is your
sister. On 1 December 2026 you said “she moved to Lisbon.”" — says what it does not know,
and never repeats the recalled panel line by line (the panel is shown next to the reply).
Pure functions on the record: no database, no Django.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

LABEL = "*Offline mode*"
MAX_FACTS = 5
MAX_QUOTES = 3
MAX_QUOTE_CHARS = 220

# "Source -[RELATION]-> Target", optionally followed by when it happened:
# " (2023-05-07)", " (2023-05)", " (2023)" or a range " (2023-05-01–2023-05-07)".
_DATE = r"\d{4}(?:-\d{2}(?:-\d{2})?)?"
_LINE = re.compile(
    r"^(?P<source>.+?) -\[(?P<relation>[A-Z0-9_]+)\]-> (?P<target>.+?)"
    rf"(?:\s*\((?P<start>{_DATE})(?:\s*(?:–|—|\.\.|/|to|-)\s*(?P<end>{_DATE}))?\))?\s*$"
)
_MONTHS = (
    "January February March April May June July August September October November December"
).split()
_PREPOSITIONS = {"about", "at", "by", "for", "from", "in", "into", "of", "on", "to", "with"}
_IRREGULAR_YOU = {"has": "have", "is": "are", "was": "were", "does": "do"}
_IRREGULAR_THIRD = {"have": "has", "be": "is", "are": "is", "do": "does"}
_NAME = re.compile(r"\b[A-Z][a-zA-Z'’-]{1,}\b")
_NOT_NAMES = {"I", "I'm", "I’m", "I've", "I’ve", "I'd", "I’d", "I'll", "I’ll", "OK", "Ok"}


def compose(record: dict, *, message: str = "", self_names: Iterable[str] = ()) -> str:
    """The offline reply to ``message`` from its Read ``record``.

    ``self_names``: the user's own node name and aliases, so that "Maya -[HAS_SISTER]-> Kate"
    reads "Kate is your sister" when Maya is the user. Always starts with the offline label.
    """
    me = {n.casefold() for n in self_names if n}
    facts = _facts(record.get("memory_lines") or [], me)
    quotes = _quotes(record.get("context_snippets") or [], me)
    known_text = " ".join(facts + quotes).casefold()
    unnamed = [
        f["name"]
        for f in record.get("fired") or []
        if f.get("name")
        and f["name"].casefold() not in known_text
        and f["name"].casefold() not in me
    ]
    unknown = [
        n
        for n in _names_in(message)
        if n.casefold() not in known_text
        and n.casefold() not in me
        and n.casefold() not in {u.casefold() for u in unnamed}
    ]

    if not facts and not quotes:
        parts = [
            f"{LABEL} — no assistant model is configured, so I can only answer from what "
            "you have told me before, and nothing I remember seems related to this."
        ]
        if unknown:
            parts.append(f"I don't know anything about {_join(unknown)} yet.")
        parts.append("Tell me more and I will remember it when this conversation ends.")
        return " ".join(parts)

    parts = [
        f"{LABEL} — no assistant model is configured, so I can only tell you what I "
        "remember from our earlier conversations."
    ]
    if facts:
        parts.append(" ".join(facts))
    if quotes:
        parts.append(" ".join(quotes))
    gaps = []
    if unnamed:
        gaps.append(f"I know of {_join(unnamed[:4])}, but nothing more.")
    if unknown:
        gaps.append(f"I don't know anything about {_join(unknown)} yet.")
    gaps.append(
        "I can't reason about this or answer beyond these memories without a model; "
        "the recalled panel below shows exactly what I found."
    )
    parts.append(" ".join(gaps))
    return "\n\n".join(parts)


def _facts(lines: list[str], me: set[str]) -> list[str]:
    out: list[str] = []
    for line in lines:
        match = _LINE.match(line)
        if not match:
            continue
        sentence = _sentence(match["source"], match["relation"], match["target"], me)
        when = _when(
            match["start"], match["end"], event=match["relation"].split("_")[0].endswith("ED")
        )
        if when:
            sentence = f"{sentence} {when}"
        sentence = _capitalise(sentence) + "."
        if sentence not in out:
            out.append(sentence)
        if len(out) >= MAX_FACTS:
            break
    return out


def _sentence(source: str, relation: str, target: str, me: set[str]) -> str:
    """One memory line as a clause: HAS_SISTER → "Kate is your sister", WORKS_AT → "you
    work at Deloitte", anything else → the relation's words as a verb phrase."""
    words = relation.lower().split("_")
    source_is_me, target_is_me = source.casefold() in me, target.casefold() in me
    subject = "you" if source_is_me else source
    obj = "you" if target_is_me else target
    if words[0] == "has" and len(words) > 1 and words[-1] not in _PREPOSITIONS:
        role = " ".join(words[1:])
        if source_is_me:
            return f"{obj} {'are' if target_is_me else 'is'} your {role}"
        owner = f"{source}’" if source.endswith("s") else f"{source}’s"
        return f"{obj} {'are' if target_is_me else 'is'} {owner} {role}"
    verb = _conjugate(words[0], second_person=source_is_me)
    return " ".join([subject, verb, *words[1:], obj])


def _conjugate(verb: str, *, second_person: bool) -> str:
    if verb.endswith("ed"):
        return verb
    if second_person:
        if verb in _IRREGULAR_YOU:
            return _IRREGULAR_YOU[verb]
        if verb.endswith("ies"):
            return verb[:-3] + "y"
        if verb.endswith(("sses", "shes", "ches", "xes", "oes")):
            return verb[:-2]
        if verb.endswith("s") and not verb.endswith("ss"):
            return verb[:-1]
        return verb
    if verb in _IRREGULAR_THIRD:
        return _IRREGULAR_THIRD[verb]
    if verb.endswith("s") and not verb.endswith("ss"):
        return verb
    if verb.endswith(("ss", "sh", "ch", "x", "o")):
        return verb + "es"
    if len(verb) > 1 and verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _when(start: str | None, end: str | None, *, event: bool) -> str:
    """When a claim happened: "on 7 May 2023" for an event (a past-tense relation), "(as of
    May 2023)" for a state, ranges as "between … and …"."""
    if not start:
        return ""
    if end and end != start:
        return (
            f"between {_date(start)} and {_date(end)}"
            if event
            else f"(between {_date(start)} and {_date(end)})"
        )
    if event:
        return ("on " if len(start) == 10 else "in ") + _date(start)
    return f"(as of {_date(start)})"


def _date(iso: str) -> str:
    parts = iso.split("-")
    if len(parts) == 3:
        return f"{int(parts[2])} {_MONTHS[int(parts[1]) - 1]} {parts[0]}"
    if len(parts) == 2:
        return f"{_MONTHS[int(parts[1]) - 1]} {parts[0]}"
    return parts[0]


def _quotes(snippets: list[dict], me: set[str]) -> list[str]:
    """The user's own words: graph snippets as one "You told me “…”, “…” and “…”." sentence,
    sentences of earlier conversations (node ``"<speaker>, <date>"``, no edge) as "On <date>
    you said “…”."."""
    told: list[str] = []
    dated: list[str] = []
    seen: set[str] = set()
    for snippet in snippets:
        if len(told) + len(dated) >= MAX_QUOTES:
            break
        text = " ".join(str(snippet.get("text") or "").split())
        if not text or text.casefold() in seen:
            continue
        seen.add(text.casefold())
        if len(text) > MAX_QUOTE_CHARS:
            text = text[:MAX_QUOTE_CHARS].rsplit(" ", 1)[0] + "…"
        node = str(snippet.get("node") or "")
        speaker, _, said_on = node.rpartition(", ")
        if snippet.get("edge") is None and speaker and said_on[:1].isdigit():
            who = "you" if speaker.casefold() in me | {"you"} else speaker
            dated.append(_end(f"On {said_on} {who} said “{text}”"))
        else:
            told.append(f"“{text}”")
    out = [_end("You told me " + _join(told, "and"))] if told else []
    return out + dated


def _end(sentence: str) -> str:
    return sentence if sentence[-2:-1] in {".", "!", "?", "…"} else sentence + "."


def _names_in(message: str) -> list[str]:
    """Capitalised words that do not start a sentence: the names a message asks about."""
    found: list[str] = []
    for sentence in re.split(r"(?<=[.!?])\s+", message.strip()):
        for i, match in enumerate(_NAME.finditer(sentence)):
            word = match.group().strip("'’")
            if (i == 0 and match.start() == 0) or word in _NOT_NAMES:
                continue
            if word not in found:
                found.append(word)
    return found


def _join(names: list[str], conjunction: str = "or") -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + f" {conjunction} " + names[-1]


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]
