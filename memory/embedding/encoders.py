"""The encoders behind ``memory.embedding``: the sentence model in one of three runtimes
(``settings.EMBEDDING_RUNTIME``), all loading the same weights from disk, none downloading.

* ``torch`` — sentence-transformers itself (the reference);
* ``onnx`` — the same network exported to ONNX (``onnx_export``), run by ONNX Runtime:
  the vectors of ``torch`` to ~1e-7, about half the CPU per call;
* ``onnx-int8`` — that graph with 8-bit weights: about a tenth of torch's CPU per short
  text, vectors within cosine ~0.99 of the reference (docs/BENCHMARKS.md compares recall).

Each returns one row per text; ``memory.embedding.embed`` normalises and caches.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

__all__ = ["RUNTIMES", "OnnxEncoder", "SentenceTransformerEncoder"]

RUNTIMES = ("torch", "onnx", "onnx-int8")


def _offline() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


class SentenceTransformerEncoder:
    """sentence-transformers on the CPU (runtime ``torch``)."""

    runtime = "torch"

    def __init__(self, path: Path, batch_size: int, threads: int = 0):
        _offline()
        if threads > 0:
            import torch

            torch.set_num_threads(threads)
        from sentence_transformers import SentenceTransformer

        self.name = path.name
        self._batch_size = batch_size
        self._model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
        self.dim = int(self._model.get_embedding_dimension())

    @property
    def threads(self) -> int:
        """Threads one call may use (torch's setting for the process)."""
        import torch

        return int(torch.get_num_threads())

    def encode(self, texts: list[str]) -> np.ndarray:
        return self._model.encode(
            texts,
            batch_size=self._batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )


class OnnxEncoder:
    """The model's ONNX graph in ONNX Runtime (runtimes ``onnx`` and ``onnx-int8``).

    Tokenises with the model's own ``tokenizer.json`` (the Rust tokenizer sentence-transformers
    uses), truncates at the model's ``max_seq_length``, and runs texts in batches of similar
    length so short words are not padded to a long sentence's length."""

    def __init__(self, path: Path, runtime: str, batch_size: int, cache_dir: Path, threads: int):
        _offline()
        import onnxruntime
        from tokenizers import Tokenizer

        from memory.embedding.onnx_export import onnx_file

        self.name = path.name
        self.runtime = runtime
        # 8-bit weights come with activations quantised per run (dynamic quantisation): the
        # scale is the batch's, so a text's vector would depend on what it was batched with
        # (cosine ~0.99 between two such). One text per run keeps a text's vector a function
        # of the text alone, at ~40 % more CPU when indexing many sentences.
        self._batch_size = 1 if runtime == "onnx-int8" else max(1, batch_size)
        self._tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length=_max_length(path))
        options = onnxruntime.SessionOptions()
        # 0: ONNX Runtime's default, one per core.
        self.threads = threads if threads > 0 else (os.cpu_count() or 1)
        options.intra_op_num_threads = max(threads, 0)
        options.inter_op_num_threads = 1
        # Idle threads sleep instead of spinning: a web process must not burn a core between Reads.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        self._session = onnxruntime.InferenceSession(
            str(onnx_file(path, runtime, cache_dir)), options, providers=["CPUExecutionProvider"]
        )
        self.dim = int(self._session.get_outputs()[0].shape[-1])

    def encode(self, texts: list[str]) -> np.ndarray:
        encodings = self._tokenizer.encode_batch(list(texts))
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for rows in self._batches(encodings):
            width = len(encodings[rows[-1]].ids)
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.int64)
            for r, i in enumerate(rows):
                tokens = encodings[i].ids
                ids[r, : len(tokens)] = tokens
                mask[r, : len(tokens)] = 1
            (pooled,) = self._session.run(
                None,
                {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
            )
            out[rows] = pooled
        return out

    def _batches(self, encodings) -> list[list[int]]:
        """Indices by ascending length, cut at ``batch_size`` rows and wherever a text is more
        than twice as long as its batch's first (a padded token costs as much as a real one)."""
        order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
        batches: list[list[int]] = []
        for i in order:
            if (
                not batches
                or len(batches[-1]) >= self._batch_size
                or len(encodings[i].ids) > 2 * len(encodings[batches[-1][0]].ids)
            ):
                batches.append([])
            batches[-1].append(i)
        return batches


def _max_length(path: Path) -> int:
    """sentence-transformers' ``max_seq_length`` for the model (256 for all-MiniLM-L6-v2)."""
    config = path / "sentence_bert_config.json"
    if config.exists():
        return int(json.loads(config.read_text()).get("max_seq_length", 256))
    return 256
