"""Auth events → account services. Receivers only translate; the rules live in
``accounts.services`` and ``accounts.lockout``.

* a failed password (website, admin or API) counts against the account (``lockout``);
* a password change or reset revokes every API token, ends every other session and closes
  the user's sockets; so does deactivating the account, however it happens (admin, shell);
* signing out closes the sockets opened with that session.
"""

from __future__ import annotations

from allauth.account.signals import password_changed, password_reset, password_set
from django.contrib.auth import get_user_model
from django.contrib.auth.signals import user_logged_out, user_login_failed
from django.db.models.signals import post_save, pre_save
from django.dispatch import receiver

from accounts import lockout, services


@receiver(user_login_failed, dispatch_uid="accounts.count_login_failure")
def count_login_failure(sender, credentials, request=None, **kwargs):
    lockout.record_failure(lockout.login_of(credentials))


def _session_key(request) -> str:
    session = getattr(request, "session", None)
    return (session.session_key or "") if session is not None else ""


@receiver(password_changed, dispatch_uid="accounts.revoke_on_password_change")
@receiver(password_set, dispatch_uid="accounts.revoke_on_password_set")
def revoke_on_password_change(sender, request, user, **kwargs):
    services.revoke_access(user=user, keep_session=_session_key(request))


@receiver(password_reset, dispatch_uid="accounts.revoke_on_password_reset")
def revoke_on_password_reset(sender, request, user, **kwargs):
    # The browser that reset the password is not signed in (unless allauth signs it in
    # afterwards, with a new session): nothing to keep.
    services.revoke_access(user=user)
    lockout.clear(user)


@receiver(user_logged_out, dispatch_uid="accounts.close_sockets_on_logout")
def close_sockets_on_logout(sender, request, user, **kwargs):
    key = _session_key(request)
    if user is not None and key:
        services.close_sockets(user_id=user.pk, only_session=key)


@receiver(pre_save, sender=get_user_model(), dispatch_uid="accounts.remember_credentials")
def remember_credentials(sender, instance, raw=False, **kwargs):
    # What the row held before this save, to tell a password change or a deactivation made
    # anywhere (admin, shell, changepassword) from other saves (last_login, profile).
    instance._pegasus_before = None
    fields = kwargs.get("update_fields")
    if (
        raw
        or instance.pk is None
        or (fields is not None and not {"password", "is_active"} & set(fields))
    ):
        return
    instance._pegasus_before = (
        sender._default_manager.filter(pk=instance.pk).values_list("password", "is_active").first()
    )


@receiver(post_save, sender=get_user_model(), dispatch_uid="accounts.revoke_on_credentials")
def revoke_on_credentials(sender, instance, created, raw=False, **kwargs):
    before = getattr(instance, "_pegasus_before", None)
    instance._pegasus_before = None
    if raw or created or before is None:
        return
    password, was_active = before
    if was_active and not instance.is_active:
        services.revoke_access(user=instance)
    elif password != instance.password:
        # The signed-in browser keeps its session: Django updates its hash on the request
        # path that changed the password; every other session already fails that hash.
        from accounts.tokens import revoke_all

        revoke_all(user=instance)
        services.close_sockets(user_id=instance.pk)
