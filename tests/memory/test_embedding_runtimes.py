"""The sentence model's runtimes (memory/embedding): sentence-transformers' torch, the same
network exported to ONNX, and its 8-bit form — same model, same vectors (or close), no
download, the export made once."""

import numpy as np
import pytest
from django.core.exceptions import ImproperlyConfigured

from memory import embedding
from memory.embedding.encoders import OnnxEncoder, SentenceTransformerEncoder
from memory.embedding.onnx_export import onnx_file

TEXTS = [
    "pottery",
    "Melanie",
    "What did Caroline say about the pottery class she took last summer?",
    "Did I take the Spotify job in the end?",
    "I went hiking with my sister Melanie in the mountains near Denver last weekend.",
]


def unit(rows):
    rows = np.asarray(rows, dtype=np.float64)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@pytest.fixture(scope="module")
def reference():
    """The vectors of sentence-transformers itself."""
    encoder = SentenceTransformerEncoder(embedding.model_path(), batch_size=64, threads=1)
    return unit(encoder.encode(TEXTS))


@pytest.fixture(scope="module")
def models_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("models")


def onnx_encoder(runtime, models_dir, batch_size=64):
    return OnnxEncoder(embedding.model_path(), runtime, batch_size, models_dir, threads=1)


def test_the_onnx_runtime_gives_sentence_transformers_vectors(reference, models_dir):
    vectors = unit(onnx_encoder("onnx", models_dir).encode(TEXTS))
    assert np.abs(vectors - reference).max() < 1e-5


def test_the_int8_runtime_stays_close_to_the_reference(reference, models_dir):
    vectors = unit(onnx_encoder("onnx-int8", models_dir).encode(TEXTS))
    cosines = (vectors * reference).sum(axis=1)
    assert cosines.min() > 0.98, cosines
    # Close is not equal: the int8 graph is really the quantised one.
    assert np.abs(vectors - reference).max() > 1e-4
    # Nearest neighbours are kept: each text is still closest to its own reference vector.
    assert (np.argmax(vectors @ reference.T, axis=1) == np.arange(len(TEXTS))).all()


def test_an_int8_vector_depends_on_its_text_alone_not_on_its_batch(models_dir):
    encoder = onnx_encoder("onnx-int8", models_dir)
    together = encoder.encode(TEXTS)
    alone = np.vstack([encoder.encode([text]) for text in TEXTS])
    assert np.array_equal(together, alone)


def test_texts_of_very_different_lengths_batch_without_changing_their_vectors(models_dir):
    encoder = onnx_encoder("onnx", models_dir, batch_size=2)
    together = unit(encoder.encode(TEXTS))
    alone = unit(np.vstack([encoder.encode([text]) for text in TEXTS]))
    assert np.abs(together - alone).max() < 1e-5
    lengths = [len(e.ids) for e in encoder._tokenizer.encode_batch(TEXTS)]
    batches = encoder._batches(encoder._tokenizer.encode_batch(TEXTS))
    assert sorted(i for batch in batches for i in batch) == list(range(len(TEXTS)))
    for batch in batches:
        assert len(batch) <= 2
        assert max(lengths[i] for i in batch) <= 2 * min(lengths[i] for i in batch)


def test_a_long_text_is_truncated_like_sentence_transformers(reference, models_dir):
    long = " ".join(["the pottery class by the lake"] * 200)  # far past 256 tokens
    encoder = SentenceTransformerEncoder(embedding.model_path(), batch_size=64, threads=1)
    vector = unit(onnx_encoder("onnx", models_dir).encode([long]))
    assert np.abs(vector - unit(encoder.encode([long]))).max() < 1e-5


def test_the_export_is_made_once_and_reused(models_dir):
    first = onnx_file(embedding.model_path(), "onnx", models_dir)
    written = first.stat().st_mtime_ns
    again = onnx_file(embedding.model_path(), "onnx", models_dir)
    assert again == first
    assert again.stat().st_mtime_ns == written
    assert not list(first.parent.glob("*.tmp*")), "no scratch files left behind"
    assert onnx_file(embedding.model_path(), "onnx-int8", models_dir).parent != first.parent


def test_an_unknown_runtime_is_a_configuration_error(settings):
    settings.EMBEDDING_RUNTIME = "tensorflow"
    with pytest.raises(ImproperlyConfigured, match="EMBEDDING_RUNTIME"):
        embedding.runtime()
    with pytest.raises(ValueError, match="no ONNX export"):
        onnx_file(embedding.model_path(), "torch", "/nonexistent")


def test_stored_vectors_name_their_runtime(settings):
    settings.EMBEDDING_RUNTIME = "torch"
    assert embedding.model_name() == embedding.model_path().name
    settings.EMBEDDING_RUNTIME = "onnx-int8"
    assert embedding.model_name() == f"{embedding.model_path().name}@onnx-int8"
