"""Helpers over spaCy tokens: names, noun phrases, subjects, prepositional objects."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from memory.core.cleaning import instruction_like, normalise_ws
from memory.core.words import STOP_WORDS
from memory.extraction.offline.lexicon import (
    _ABSTRACT,
    _NAME_LABELS,
    _NER_KIND,
    _ORG_NOUNS,
    _PHRASE_STOP_DEPS,
    _PLACE_NOUNS,
)

if TYPE_CHECKING:
    from spacy.tokens import Span, Token

_QUOTES = {'"', "“", "'", "‘"}


def _ent_of(tok: Token) -> Span | None:
    if not tok.ent_type_:
        return None
    for ent in tok.doc.ents:
        if ent.start <= tok.i < ent.end:
            return ent
    return None


def _clean_name(text: str) -> str:
    text = normalise_ws(text)
    text = re.sub(r"^(?:the|a|an)\s+", "", text, flags=re.IGNORECASE)
    text = re.sub(r"(?:'s|’s)$", "", text)
    return text.strip(" ,.;:!?\"'()")


def _plausible(name: str) -> bool:
    return (
        0 < len(name) <= 60
        and len(name.split()) <= 6
        and any(c.isalpha() for c in name)
        and not re.search(r"[\[\]{}<>|\\@=\n]|https?:", name)
        and not instruction_like(name)
    )


def _name_at(tok: Token) -> tuple[str, str | None] | None:
    """(name, NER label) of the proper name starting at or containing ``tok``."""
    ent = _ent_of(tok)
    if ent is not None:
        if ent.label_ not in _NAME_LABELS:
            return None
        name = _clean_name(ent.text)
        label = ent.label_
        if label == "PERSON" and ent.start > 0 and tok.doc[ent.start - 1].text in _QUOTES:
            label = "WORK_OF_ART"  # "Brave" by Sara Bareilles: a quoted title
        return (name, label) if _plausible(name) else None
    if tok.pos_ != "PROPN" or not tok.text[:1].isupper():
        return None
    start = end = tok.i
    sent = tok.sent
    while (
        start - 1 >= sent.start
        and tok.doc[start - 1].pos_ == "PROPN"
        and not tok.doc[start - 1].ent_type_
    ):
        start -= 1
    while (
        end + 1 < sent.end and tok.doc[end + 1].pos_ == "PROPN" and not tok.doc[end + 1].ent_type_
    ):
        end += 1
    name = _clean_name(tok.doc[start : end + 1].text)
    return (name, None) if _plausible(name) else None


def _named_noun(tok: Token) -> tuple[str, str | None, str] | None:
    """A proper name for ``tok``: the name itself, or "a startup called Brightwave".
    Returns (name, NER label, the noun it was introduced with or "")."""
    found = _name_at(tok)
    if found is not None:
        return found[0], found[1], ""
    for acl in tok.children:
        if acl.dep_ == "acl" and acl.lemma_.lower() in {"call", "name"}:
            for child in acl.children:
                if child.dep_ in {"oprd", "attr", "dobj", "xcomp"}:
                    inner = _name_at(child)
                    if inner is not None:
                        return inner[0], inner[1], tok.lemma_.lower()
    return None


def _kind_for(label: str | None, noun: str, default: str) -> str:
    if noun in _ORG_NOUNS:
        return "ORG"
    if noun in _PLACE_NOUNS:
        return "PLACE"
    return _NER_KIND.get(label or "", default)


def _phrase(tok: Token, max_tokens: int = 6, *, rights: bool = True) -> str | None:
    """A short, lowercase noun or gerund phrase for a preference or plan object:
    "long runs", "hiking in the Alps", "having some skin in the game" (``rights=False``:
    the head and its modifiers only — "senior consultant")."""
    if tok.lemma_.lower() in _ABSTRACT:
        for prep in tok.children:
            if prep.dep_ == "prep" and prep.lower_ == "of":
                for comp in prep.children:
                    if comp.dep_ in {"pcomp", "pobj"}:
                        return _phrase(comp, max_tokens)
    words: list[Token] = []
    for left in tok.lefts:
        if left.dep_ in {"amod", "compound", "nmod", "nummod", "npadvmod"} and left.i < tok.i:
            words.extend(t for t in left.subtree if t.dep_ not in {"det", "poss", "advmod"})
    words.append(tok)
    for right in tok.rights if rights else ():
        if right.dep_ in _PHRASE_STOP_DEPS or right.lower_ in {"instead", "because", "than"}:
            break
        words.extend(right.subtree)
    words = sorted(set(words), key=lambda t: t.i)
    cut: list[Token] = []
    for t in words:
        if t.i > tok.i and (t.dep_ in _PHRASE_STOP_DEPS or t.lower_ in {"instead", "because"}):
            break
        cut.append(t)
    cut = cut[:max_tokens]
    text = " ".join(t.text if t.pos_ == "PROPN" else t.lower_ for t in cut)
    text = _clean_name(text.replace(" 's", "'s").replace(" - ", "-"))
    if not text or tok.pos_ == "PRON" or text in STOP_WORDS:
        return None
    return text if _plausible(text) else None


def _span_text(*toks: Token) -> str:
    doc = toks[0].doc
    return doc[min(t.i for t in toks) : max(t.i for t in toks) + 1].text


def _negated(tok: Token) -> bool:
    return any(c.dep_ == "neg" for c in tok.children)


def _subject(verb: Token, depth: int = 0) -> Token | None:
    for child in verb.children:
        if child.dep_ in {"nsubj", "nsubjpass"}:
            return child
    if depth < 3 and verb.dep_ in {"conj", "xcomp"} and verb.head is not verb:
        return _subject(verb.head, depth + 1)
    return None


def _prep_objects(tok: Token, preps: set[str]) -> list[tuple[str, Token]]:
    return [
        (prep.lower_, obj)
        for prep in tok.children
        if prep.dep_ == "prep" and prep.lower_ in preps
        for obj in prep.children
        if obj.dep_ == "pobj"
    ]


def _has_aux(verb: Token, words: set[str]) -> bool:
    return any(c.dep_ in {"aux", "auxpass"} and c.lower_ in words for c in verb.children)
