"""The literals the Read binds: a vector written as text comes back from PostgreSQL as the
same float32 values, and an id array keeps its ids."""

import numpy as np
import pytest
from django.db import connection

from memory.services.read.sql import id_array, vector_literal, vectors_from_binary

pytestmark = pytest.mark.django_db


def test_a_vector_literal_round_trips_every_float32_exactly():
    rng = np.random.default_rng(5)
    vectors = [
        rng.standard_normal(384).astype(np.float32),
        (rng.standard_normal(384) * 1e-7).astype(np.float32),  # tiny values, exponents
        np.float32(1) / np.arange(1, 385, dtype=np.float32),
    ]
    with connection.cursor() as cursor:
        for vector in vectors:
            cursor.execute("SELECT vector_send(%s::vector)", [vector_literal(vector)])
            back = vectors_from_binary([cursor.fetchone()[0]])[0]
            assert back.dtype == np.float32
            assert np.array_equal(back, vector)
    # A float64 vector is written as pgvector will keep it: rounded to float32.
    wide = rng.standard_normal(384)
    assert vector_literal(wide) == vector_literal(wide.astype(np.float32))


def test_an_id_array_keeps_its_ids_as_bigints():
    with connection.cursor() as cursor:
        cursor.execute("SELECT %s::bigint[]", [id_array([3, 2**40, 7])])
        assert cursor.fetchone()[0] == [3, 2**40, 7]
