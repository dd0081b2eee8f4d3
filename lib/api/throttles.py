"""The API's throttles: per user, per client address, and for token requests; rates read
from the DRF settings on every request."""

from __future__ import annotations

from rest_framework import exceptions
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle


class _SettingsRate:
    """Reads the rate from the current DRF settings on every request (DRF's own classes bind
    it at import, which tests and operators cannot change afterwards)."""

    def get_rate(self):
        rates = api_settings.DEFAULT_THROTTLE_RATES or {}
        if self.scope not in rates:
            raise exceptions.APIException(f"No throttle rate set for the {self.scope!r} scope.")
        return rates[self.scope]


class _ClientAddress:
    """The client's address as ``ClientIpMiddleware`` resolved it: X-Forwarded-For counts
    only from ``TRUSTED_PROXIES`` (DRF's own ``get_ident`` takes it from anyone)."""

    def get_ident(self, request):
        # ``REMOTE_ADDR`` after ``pegasus_site.client_ip.ClientIpMiddleware`` (the first
        # middleware) is the client's address.
        return request.META.get("REMOTE_ADDR", "")


class UserRateThrottle(_SettingsRate, SimpleRateThrottle):
    """Per signed-in user (``user`` rate); anonymous requests are left to the IP throttle."""

    scope = "user"

    def get_cache_key(self, request, view):
        if not (request.user and request.user.is_authenticated):
            return None
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}


class AnonRateThrottle(_ClientAddress, _SettingsRate, SimpleRateThrottle):
    """Per client IP for requests that are not signed in (``anon`` rate)."""

    scope = "anon"

    def get_cache_key(self, request, view):
        if request.user and request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class LoginRateThrottle(_ClientAddress, _SettingsRate, SimpleRateThrottle):
    """Token requests per client IP (``login`` rate), whatever the outcome: slows password
    guessing without telling which usernames exist."""

    scope = "login"

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
