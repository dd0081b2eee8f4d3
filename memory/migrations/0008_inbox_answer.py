from django.db import migrations, models


class Migration(migrations.Migration):
    """The owner's answer to a held merge decision in their inbox (same / different / unsure)
    and when it was given; "unsure" escalates the decision to moderators."""

    dependencies = [
        ("memory", "0007_forgotten_text"),
    ]

    operations = [
        migrations.AddField(
            model_name="mergedecision",
            name="answer",
            field=models.CharField(blank=True, choices=[("same", "Same"),
                                                        ("different", "Different"),
                                                        ("unsure", "Unsure")],
                                   default="", max_length=16),
        ),
        migrations.AddField(
            model_name="mergedecision",
            name="answered_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
