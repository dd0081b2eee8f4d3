"""The pgvector extension, before any table that stores an embedding."""

from django.db import migrations
from pgvector.django import VectorExtension


class Migration(migrations.Migration):
    initial = True
    dependencies: list = []
    operations = [VectorExtension()]
