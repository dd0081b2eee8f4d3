"""The merge rules for organisations (SPEC §5.6, ORG): a company is named with or without its
legal form, and with it abbreviated or written out. Pure functions, no Django."""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.core.merge_types import StoredNode, node_forms
from memory.core.name_spelling import fold_accents

__all__ = ["LEGAL_FORM", "legal_form", "org_core_words", "same_company"]

LEGAL_FORM = "legal-form"

_WORD = re.compile(r"[^\W_]+")
# Dots inside an abbreviation ("S.A.", "U.S.") and apostrophes join its letters.
_INNER_MARKS = re.compile(r"(?<=\w)[.'’](?=\w)")
# Legal forms an organisation's name is written with, each abbreviation with its full form:
# "Acme Corp" and "Acme Corporation" are one company; "Acme Inc" and "Acme Ltd" may be two.
_LEGAL_FORMS = {
    "corp": "corporation",
    "corporation": "corporation",
    "inc": "incorporated",
    "incorporated": "incorporated",
    "co": "company",
    "company": "company",
    "ltd": "limited",
    "limited": "limited",
    "llc": "llc",
    "plc": "plc",
    "gmbh": "gmbh",
    "ag": "ag",
    "sa": "sa",
    "sarl": "sarl",
    "srl": "srl",
    "spa": "spa",
    "bv": "bv",
    "nv": "nv",
    "oy": "oy",
    "ab": "ab",
    "pty": "pty",
    "lp": "lp",
    "llp": "llp",
    "kg": "kg",
}


def _org_words(norm: str) -> list[str]:
    return _WORD.findall(_INNER_MARKS.sub("", fold_accents(norm)))


def legal_form(norm: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """An organisation's name split into its core words and its trailing legal forms written
    out in full ("Stripe, Inc." → (("stripe",), ("incorporated",)); "Google" → (("google",),
    ())); punctuation is ignored and "S.A." is "sa". None when nothing but a legal form."""
    words = _org_words(norm)
    forms: list[str] = []
    while len(words) > 1 and words[-1] in _LEGAL_FORMS:
        forms.insert(0, _LEGAL_FORMS[words.pop()])
    return (tuple(words), tuple(forms)) if words else None


def org_core_words(norm: str) -> list[str]:
    """The words of an organisation's name without its legal form ("acme corp" → ["acme"])."""
    split = legal_form(norm)
    return list(split[0]) if split else _org_words(norm)


def same_company(new: str, same_kind: Sequence[StoredNode]) -> list[int]:
    """The ORG nodes that are the same company as ``new`` by legal form: the same core name
    and the same legal form written another way (Acme Corp / Acme Corporation), or the legal
    form said on one side only (Google / Google LLC, "Stripe, Inc." / Stripe). Another legal
    form on each side (Initech Inc / Initech Ltd: a subsidiary in another country) is not."""
    wanted = legal_form(new)
    if wanted is None:
        return []
    core, forms = wanted
    found = []
    for node in same_kind:
        for form in node_forms(node):
            split = legal_form(form)
            if split and split[0] == core and (split[1] == forms or not split[1] or not forms):
                found.append(node.id)
                break
    return found
