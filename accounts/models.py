"""The account's preferences."""

from django.conf import settings
from django.db import models


class Profile(models.Model):
    """One per user, created on first use (``accounts.services.get_profile``)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    display_name = models.CharField(
        max_length=100,
        blank=True,
        help_text="How Pegasus refers to you; it also becomes a name of your self node.",
    )
    time_zone = models.CharField(
        max_length=64,
        default="UTC",
        help_text="Used to show times and to turn relative dates into absolute ones.",
    )
    memory_enabled = models.BooleanField(
        default=True, help_text="New conversations are remembered unless you turn this off."
    )

    def __str__(self) -> str:
        return self.display_name or self.user.get_username()


class TokenDevice(models.Model):
    """The device name a user gave an API token (knox stores only the token's digest)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="token_devices"
    )
    digest = models.CharField(max_length=128, unique=True)
    device = models.CharField(max_length=60)

    def __str__(self) -> str:
        return self.device
