import django.contrib.postgres.fields
from django.db import migrations, models

# Checks run per statement (SET CONSTRAINTS): PostgreSQL refuses to alter a table with pending
# deferred checks, and a column is dropped right after.
# One row per (user, conversation, applied_at) from the rows of one edge each; the earliest
# crossing dates the row. Edges are kept in id order.
FORWARD = """
SET CONSTRAINTS ALL IMMEDIATE;
INSERT INTO memory_traversal (user_id, conversation_id, edge_id, edge_ids, crossed_at,
                              applied_at)
SELECT user_id, conversation_id, NULL, array_agg(edge_id ORDER BY edge_id), min(crossed_at),
       applied_at
FROM memory_traversal WHERE edge_id IS NOT NULL
GROUP BY user_id, conversation_id, applied_at;
DELETE FROM memory_traversal WHERE edge_id IS NOT NULL;
SET CONSTRAINTS ALL DEFERRED;
"""

# Back to one row per (conversation, edge), its first crossing; ids of deleted edges dropped.
BACKWARD = """
SET CONSTRAINTS ALL IMMEDIATE;
INSERT INTO memory_traversal (user_id, conversation_id, edge_id, edge_ids, crossed_at,
                              applied_at)
SELECT DISTINCT ON (t.conversation_id, e.id) t.user_id, t.conversation_id, e.id, '{}',
       t.crossed_at, t.applied_at
FROM memory_traversal t CROSS JOIN LATERAL unnest(t.edge_ids) AS crossed(id)
JOIN memory_edge e ON e.id = crossed.id AND e.user_id = t.user_id
WHERE t.edge_id IS NULL
ORDER BY t.conversation_id, e.id, t.crossed_at;
DELETE FROM memory_traversal WHERE edge_id IS NULL;
SET CONSTRAINTS ALL DEFERRED;
"""


class Migration(migrations.Migration):
    """The edges a Read crossed are one row per turn holding an array of edge ids, instead of
    one row per edge (thousands per turn on a large graph); existing rows are grouped by
    conversation (and by whether, and when, they were applied)."""

    dependencies = [
        ("memory", "0008_inbox_answer"),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="traversal",
            name="traversal_once_per_conversation",
        ),
        migrations.AddField(
            model_name="traversal",
            name="edge_ids",
            field=django.contrib.postgres.fields.ArrayField(
                base_field=models.BigIntegerField(), blank=True, default=list, size=None),
        ),
        migrations.AlterField(
            model_name="traversal",
            name="edge",
            field=models.ForeignKey(null=True, on_delete=models.CASCADE,
                                    related_name="traversals", to="memory.edge"),
        ),
        migrations.RunSQL(FORWARD, BACKWARD),
        migrations.RemoveField(
            model_name="traversal",
            name="edge",
        ),
    ]
