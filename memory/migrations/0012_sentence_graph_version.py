# The sentence store joins the graph version (GraphVersion): every statement that adds,
# changes or deletes a user's sentences bumps their version, like the five graph tables of
# 0004, so a Read's per-process copy of the sentence vectors is current exactly when the
# version is unchanged (memory.services.read.sentence_vectors).
from django.db import migrations

OPS = ("INSERT", "UPDATE", "DELETE")
TRIGGERS = "".join(
    f"""
CREATE TRIGGER memory_sentence_version_{op.lower()} AFTER {op} ON memory_sentence
    REFERENCING {"OLD" if op == "DELETE" else "NEW"} TABLE AS changed_rows
    FOR EACH STATEMENT EXECUTE FUNCTION memory_bump_graph_version();"""
    for op in OPS
)
REVERSE = "".join(
    f"DROP TRIGGER IF EXISTS memory_sentence_version_{op.lower()} ON memory_sentence;"
    for op in OPS
)


class Migration(migrations.Migration):

    dependencies = [
        ('memory', '0011_sentence_user_terms'),
    ]

    operations = [
        migrations.RunSQL(TRIGGERS, REVERSE),
    ]
