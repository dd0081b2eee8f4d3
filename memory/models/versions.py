from django.conf import settings
from django.db import models


class GraphVersion(models.Model):
    """A number that changes whenever anything a Read loads of a user's graph changes.

    Maintained by the database, not by the services: statement-level triggers on the node,
    edge, node-episode, key and snippet tables (migration 0004) and the sentence store
    (0012) set ``version`` to the next value of
    one global sequence after every INSERT, UPDATE or DELETE that touches the user's rows —
    raw SQL, bulk updates and the decay run included. Values are never reused (a sequence is
    not rolled back), so a cached copy of the graph tagged with a version is current exactly
    when the version is still the same (``memory.services.snapshot``).

    The row is created by the first insert into one of those tables for the user; deletes
    and updates only bump an existing row, so deleting an account cannot re-create it.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="memory_graph_version",
    )
    version = models.BigIntegerField()

    def __str__(self) -> str:
        return f"graph of user {self.user_id} at version {self.version}"
