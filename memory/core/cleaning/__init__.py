"""The deterministic cleaning pass over an extractor batch (SPEC §5.5, §6.2).

Both extractors (Claude with tools, offline spaCy) emit a ``pegasus-batch/1`` dict.
Nothing in it is trusted: every field is type-checked, labels and names are
normalised, and every relation must be anchored in the user's own words. Items
that cannot be repaired are dropped one by one with a reason; only a batch whose
top-level shape is wrong is rejected as a whole (``BatchError``).

Stored text is shown to a model again at every later Read, so no text that reads like
an order to a model (``instruction_like``) survives cleaning: not as a name, alias,
property, relation label, snippet, evidence, summary, tag or self name.

Layout: ``schema`` (format, vocabularies, result types), ``text`` (normalisation),
``instructions`` (injection safety), ``values`` (field-level checks), ``entities``,
``relations`` and ``batch`` (``clean_batch``). The names below are re-exported so
``from memory.core.cleaning import ...`` keeps working.
"""

from memory.core.cleaning.batch import clean_batch
from memory.core.cleaning.instructions import instruction_like
from memory.core.cleaning.schema import (
    BATCH_FORMAT,
    CARDINALITIES,
    DEFAULT_CONFIDENCE,
    KINDS,
    OCCURRED_PATTERN,
    PROVISIONAL_CONFIDENCE,
    RELATION_LABEL,
    SELF_PLACEHOLDERS,
    STABILITIES,
    TEMPORARY,
    BatchError,
    CleanResult,
    Drop,
)
from memory.core.cleaning.text import fold_lookalikes, normalise_name, normalise_ws

__all__ = [
    "BATCH_FORMAT",
    "CARDINALITIES",
    "DEFAULT_CONFIDENCE",
    "KINDS",
    "OCCURRED_PATTERN",
    "PROVISIONAL_CONFIDENCE",
    "RELATION_LABEL",
    "SELF_PLACEHOLDERS",
    "STABILITIES",
    "TEMPORARY",
    "BatchError",
    "CleanResult",
    "Drop",
    "clean_batch",
    "fold_lookalikes",
    "instruction_like",
    "normalise_name",
    "normalise_ws",
]
