from django.conf import settings
from django.db import models

from lib.owned import OwnedQuerySet


class CorrectionAction(models.TextChoices):
    RENAME = "rename"
    ADD_ALIAS = "add_alias"
    REMOVE_ALIAS = "remove_alias"
    CHANGE_KIND = "change_kind"
    FORGET_EDGE = "forget_edge"
    FORGET_NODE = "forget_node"


class Correction(models.Model):
    """A user's correction of their own memory (explorer or API), recorded as it happened.

    ``target_type`` is ``"node"`` or ``"edge"`` and ``target_id`` the row's id at the time
    (a forgotten row no longer exists, so it is not a foreign key). ``before`` and ``after``
    hold the fields the correction changed; a forgotten node or edge keeps its full row in
    ``before`` so the history says what was forgotten.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memory_corrections"
    )
    action = models.CharField(max_length=16, choices=CorrectionAction.choices)
    target_type = models.CharField(max_length=8)
    target_id = models.BigIntegerField()
    before = models.JSONField(default=dict, blank=True)
    after = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField()

    objects = OwnedQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "-created_at"], name="correction_user_created")]

    def __str__(self) -> str:
        return f"{self.action} {self.target_type} {self.target_id}"
