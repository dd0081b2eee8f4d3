"""High-precision special cases: introductions, possessive roles ("my boss Joshua"), work,
home, study, moves, offers, preferences, travel and plans (see the package docstring)."""

from __future__ import annotations

from memory.extraction.offline.facts import _Facts
from memory.extraction.offline.people import _People


class _Reader(_People, _Facts):
    """Reads one sentence into the builder."""

    def read(self) -> None:
        if self.account_holder:
            self._intro()
        self._roles()
        for tok in self.ctx.sent:
            if tok.pos_ in {"VERB", "AUX"}:
                self._verb(tok)
