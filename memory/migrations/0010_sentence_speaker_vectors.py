"""Sentences of a named speaker (an imported conversation's speakers, the assistant) are
embedded as ``"Speaker: text"`` from now on (``memory.services.sentences.embedding_text``);
re-embed the ones stored before. The account holder's own sentences keep their vectors. The
sentence model loads only when there is something to re-embed; re-running is harmless."""

from django.db import migrations

BATCH = 256


def reembed(apps, schema_editor):
    Sentence = apps.get_model("memory", "Sentence")
    rows = Sentence.objects.exclude(speaker="").order_by("id")
    if not rows.exists():
        return
    from memory import embedding

    last = 0
    while True:
        batch = list(rows.filter(id__gt=last).only("id", "speaker", "text")[:BATCH])
        if not batch:
            return
        vectors = embedding.embed([f"{row.speaker}: {row.text}" for row in batch])
        for row, vector in zip(batch, vectors, strict=True):
            row.vector = vector
        Sentence.objects.bulk_update(batch, ["vector"])
        last = batch[-1].id


class Migration(migrations.Migration):
    dependencies = [("memory", "0009_traversal_edge_ids")]

    operations = [migrations.RunPython(reembed, migrations.RunPython.noop, elidable=True)]
