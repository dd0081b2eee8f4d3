"""Special cases about people: introductions ("I'm Trevor", "call me Trev") and possessive
roles ("my boss Joshua", "Joshua, my boss,", "my wife's name is Anna")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memory.core.cleaning import normalise_name
from memory.extraction.offline.lexicon import _FORMER, _ROLE_MODIFIERS, _ROLES, _Role
from memory.extraction.offline.special_case import _SpecialCase
from memory.extraction.offline.tokens import _name_at, _plausible, _span_text

if TYPE_CHECKING:
    from spacy.tokens import Token


class _People(_SpecialCase):
    """Introductions (account holder only) and possessive roles."""

    # -- introductions ---------------------------------------------------------------------

    def _intro(self) -> None:
        toks = list(self.ctx.sent)
        for i, tok in enumerate(toks[:-1]):
            low = tok.lower_
            nxt = toks[i + 1]
            target: Token | None = None
            alias = False
            if low == "i" and nxt.lower_ in {"'m", "am", "’m"} and i + 2 < len(toks):
                cand = toks[i + 2]
                if cand.ent_type_ == "PERSON" or (cand.pos_ == "PROPN" and not cand.ent_type_):
                    target = cand
            elif (
                low == "my"
                and nxt.lower_ == "name"
                and i + 3 < len(toks)
                and toks[i + 2].lower_ in {"is", "'s", "’s"}
            ):
                target = toks[i + 3]
            elif low == "call" and nxt.lower_ == "me" and i + 2 < len(toks):
                target, alias = toks[i + 2], True
            elif (
                low == "i"
                and nxt.lemma_.lower() == "go"
                and i + 3 < len(toks)
                and toks[i + 2].lower_ == "by"
            ):
                target, alias = toks[i + 3], True
            if target is None or not target.text[:1].isupper():
                continue
            found = _name_at(target) or (
                (target.text, None) if target.is_alpha and _plausible(target.text) else None
            )
            if found is None or found[1] not in {"PERSON", None}:
                continue
            name = found[0]
            if alias or self.b.self_name is not None:
                if name not in self.b.self_aliases and name != self.b.self_name:
                    self.b.self_aliases.append(name)
            else:
                self.b.self_name = name
            self.b.self_names.add(normalise_name(name))

    # -- possessive roles ------------------------------------------------------------------

    def _roles(self) -> None:
        toks = list(self.ctx.sent)
        for i, tok in enumerate(toks):
            if tok.lower_ != "my":
                continue
            j, former = i + 1, False
            while j < len(toks) and (
                toks[j].lower_ in _ROLE_MODIFIERS
                or (toks[j].pos_ == "ADJ" and toks[j].lower_ not in _ROLES)
            ):
                former = former or toks[j].lower_ in _FORMER
                j += 1
            if j >= len(toks):
                continue
            noun, end = toks[j].lemma_.lower(), j
            if (
                j + 2 < len(toks)
                and toks[j + 1].text == "-"
                and f"{toks[j].lower_}-{toks[j + 2].lower_}" in _ROLES
            ):
                noun, end = f"{toks[j].lower_}-{toks[j + 2].lower_}", j + 2
            elif noun not in _ROLES and toks[j].lower_ in _ROLES:
                noun = toks[j].lower_
            role = _ROLES.get(noun)
            if role is None:
                continue
            name_tok = self._role_name(toks, end)
            self._role(tok, toks[end], role, name_tok, former=former)

    def _role_name(self, toks: list[Token], end: int) -> Token | None:
        """The token naming the person in a possessive role phrase, if any."""
        role_tok = toks[end]
        k = end + 1
        if k < len(toks) and toks[k].text == ",":
            k += 1
        # "my wife's name is Anna"
        if (
            end + 4 < len(toks)
            and toks[end + 1].lower_ in {"'s", "’s"}
            and toks[end + 2].lower_ == "name"
            and toks[end + 3].lemma_ == "be"
        ):
            return toks[end + 4]
        if k < len(toks) and _name_at(toks[k]) is not None:
            return toks[k]
        for child in role_tok.children:
            if child.dep_ == "appos" and _name_at(child) is not None:
                return child
        head = role_tok.head
        if head.lemma_ == "be":
            wanted = {"nsubj": "attr", "attr": "nsubj"}.get(role_tok.dep_)
            for child in head.children:
                if wanted and child.dep_ == wanted and _name_at(child) is not None:
                    return child
        if role_tok.dep_ in {"appos", "compound"} and _name_at(head) is not None:
            return head
        return None

    def _role(
        self, my: Token, role_tok: Token, role: _Role, name_tok: Token | None, *, former: bool
    ) -> None:
        label = role.label
        if former and label.startswith("HAS_"):
            label = "HAS_FORMER_" + label[4:]
        stability = "stable" if former else role.stability
        cardinality = "one_to_many" if former else role.cardinality
        if name_tok is None:
            known = self.known_roles.get(label) if self.account_holder else None
            if known is None:
                self.b.notes.append(
                    f"{self.ctx.turn.message_id}: '{role_tok.text}' without a name, skipped"
                )
                return
            # A sighting of the stored node: exact name and kind merge it (§5.6 rule 1).
            target = self.b.entity(role.kind, known, confidence=0.6)
            self._emit(
                self.ctx.speaker,
                label,
                target,
                _span_text(my, role_tok),
                confidence=0.6,
                stability=stability,
                cardinality=cardinality,
            )
            return
        found = _name_at(name_tok)
        if found is None:
            return
        props = {"species": role.species} if role.species else None
        target = self.b.entity(role.kind, found[0], confidence=0.8, properties=props)
        self._emit(
            self.ctx.speaker,
            label,
            target,
            _span_text(my, role_tok, name_tok),
            confidence=0.8,
            stability=stability,
            cardinality=cardinality,
        )
