from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    """Digests of forgotten sentences and names, so that re-indexing never restores them."""

    dependencies = [
        ("memory", "0006_sentences"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="ForgottenText",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True,
                                           serialize=False, verbose_name="ID")),
                ("kind", models.CharField(max_length=8)),
                ("digest", models.CharField(max_length=64)),
                ("words", models.PositiveSmallIntegerField(default=0)),
                ("created_at", models.DateTimeField()),
                ("user", models.ForeignKey(on_delete=models.deletion.CASCADE,
                                           related_name="memory_forgotten_texts",
                                           to=settings.AUTH_USER_MODEL)),
            ],
            options={
                "constraints": [models.UniqueConstraint(fields=("user", "kind", "digest"),
                                                        name="forgotten_once")],
            },
        ),
    ]
