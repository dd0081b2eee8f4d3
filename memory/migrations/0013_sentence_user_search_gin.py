"""The sentence search's full text per user and word in one GIN scan: a GIN index over
(user_id, search), which needs btree_gin for the user column. With the text alone, each of a
message's words was ANDed with a bitmap of all the user's sentences (docs/BENCHMARKS.md,
"The Read in session 13"). The new index is built before the old one is dropped."""

import django.contrib.postgres.indexes
from django.conf import settings
from django.contrib.postgres.operations import BtreeGinExtension
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("chat", "0002_message_client_id"),
        ("memory", "0012_sentence_graph_version"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        BtreeGinExtension(),
        migrations.AddIndex(
            model_name="sentence",
            index=django.contrib.postgres.indexes.GinIndex(
                fields=["user", "search"], name="sentence_user_search_gin"
            ),
        ),
        migrations.RemoveIndex(
            model_name="sentence",
            name="sentence_search_gin",
        ),
    ]
