"""Accounts' side of ``memory.ports.Profiles``: the profile fields memory reads (the time zone
extraction dates turns in, the display name a self node is first called by). Registered in
``AccountsConfig.ready()``."""

from __future__ import annotations

from accounts.models import Profile


class AccountProfiles:
    """``memory.ports.Profiles`` over ``accounts.models.Profile``."""

    def time_zone(self, user_id: int) -> str | None:
        return Profile.objects.filter(user_id=user_id).values_list("time_zone", flat=True).first()

    def display_name(self, user_id: int) -> str | None:
        return (
            Profile.objects.filter(user_id=user_id).values_list("display_name", flat=True).first()
        )
