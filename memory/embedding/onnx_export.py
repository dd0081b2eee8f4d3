"""The sentence model as an ONNX graph, exported once from the weights on disk.

ONNX Runtime runs the same network as sentence-transformers at a fraction of the per-call
cost on a CPU (one short message on one thread: 11 ms with torch, 5 ms in ONNX Runtime,
1.3 ms with 8-bit weights; docs/BENCHMARKS.md, "The sentence model's runtime"). The graph is
*derived* from the bundled model, never downloaded: ``onnx_file`` exports it with
``torch.onnx`` (mean pooling included, so one run gives the sentence vector) and, for the
``onnx-int8`` runtime, quantises its weights with ONNX Runtime's dynamic quantiser.

The file is cached under ``<cache dir>/<fingerprint>/``: the fingerprint covers the model's
files (path, size, modification time), the runtime and the versions of torch, onnx and
onnxruntime, so a new model or library exports again. Processes starting together (Daphne
and the workers of ``make run``) export once: the first takes a file lock, the others wait
and then find the file. The file appears by an atomic rename, so a process killed
mid-export leaves no half-written graph behind.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import tempfile
import warnings
from pathlib import Path

__all__ = ["EXPORT_FORMAT", "onnx_file"]

EXPORT_FORMAT = 1
"""Bumped when what ``_export`` writes changes (inputs, outputs, pooling), so stale caches are
left alone."""

_OPSET = 17
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for package in ("torch", "onnx", "onnxruntime"):
        try:
            found[package] = version(package)
        except PackageNotFoundError:
            found[package] = "-"
    return found


def _fingerprint(model_dir: Path, runtime: str) -> str:
    files = []
    for path in sorted(model_dir.rglob("*")):
        if path.is_file():
            stat = path.stat()
            files.append([str(path.relative_to(model_dir)), stat.st_size, stat.st_mtime_ns])
    material = {
        "model": str(model_dir.resolve()),
        "files": files,
        "runtime": runtime,
        "format": EXPORT_FORMAT,
        "versions": _versions(),
    }
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()[:16]


def onnx_file(model_dir: Path, runtime: str, cache_dir: Path) -> Path:
    """The ONNX graph of the sentence-transformers model in ``model_dir`` for ``runtime``
    (``"onnx"``: float32 weights, the same vectors as torch to ~1e-7; ``"onnx-int8"``: 8-bit
    weights with per-channel scales, cosine ≈ 0.994 to those), exported into ``cache_dir``
    the first time. Its one output, ``embedding``, is the mean-pooled (not yet normalised)
    sentence vector."""
    if runtime not in ("onnx", "onnx-int8"):
        raise ValueError(f"no ONNX export for runtime {runtime!r}")
    target_dir = Path(cache_dir) / f"{model_dir.name}-{runtime}-{_fingerprint(model_dir, runtime)}"
    target = target_dir / "model.onnx"
    if target.exists():
        return target
    target_dir.mkdir(parents=True, exist_ok=True)
    with open(target_dir / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be exporting the same file
        try:
            if not target.exists():
                logging.getLogger(__name__).info(
                    "exporting the sentence model to ONNX (%s) into %s, once", runtime, target_dir
                )
                _export(model_dir, runtime, target)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return target


def _mean_pooled(model):
    """The transformer and sentence-transformers' mean pooling as one torch module (a class
    made here: torch is imported only when exporting)."""
    import torch

    class MeanPooled(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):
            hidden = self.inner(
                input_ids=input_ids,
                attention_mask=attention_mask,
                token_type_ids=token_type_ids,
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            return (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)

    return MeanPooled(model)


def _export(model_dir: Path, runtime: str, target: Path) -> None:
    import torch
    from transformers import AutoModel

    model = AutoModel.from_pretrained(str(model_dir), local_files_only=True).eval()
    # Any two-row input traces the graph; batch and sequence axes are dynamic.
    ids = torch.tensor([[101, 7592, 102, 0], [101, 7592, 2088, 102]])
    example = (ids, (ids != 0).long(), torch.zeros_like(ids))
    axes = {name: {0: "batch", 1: "sequence"} for name in _INPUTS}
    axes["embedding"] = {0: "batch"}
    with tempfile.TemporaryDirectory(dir=target.parent) as scratch:
        exported = Path(scratch) / "float32.onnx"
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")  # tracer notes about Python conditionals
            torch.onnx.export(
                _mean_pooled(model),
                example,
                str(exported),
                input_names=list(_INPUTS),
                output_names=["embedding"],
                dynamic_axes=axes,
                opset_version=_OPSET,
                dynamo=False,
            )
        if runtime == "onnx-int8":
            from onnxruntime.quantization import QuantType, quantize_dynamic

            quantised = Path(scratch) / "int8.onnx"
            quiet = logging.getLogger()
            level = quiet.level
            quiet.setLevel(logging.ERROR)  # "consider pre-processing": not for a transformer
            try:
                # Per-channel scales: cosine to the float32 vectors ≈ 0.994 (per-tensor ≈ 0.96)
                # at the same speed.
                quantize_dynamic(
                    str(exported), str(quantised), weight_type=QuantType.QInt8, per_channel=True
                )
            finally:
                quiet.setLevel(level)
            exported = quantised
        os.replace(exported, target)
    with contextlib.suppress(OSError):
        (target.parent / "export.json").write_text(
            json.dumps({"model": str(model_dir), "runtime": runtime, **_versions()}, indent=2)
        )
