"""The client's address, trusting forwarded headers only from configured proxies.

``settings.TRUSTED_PROXIES`` lists addresses or networks (``10.0.0.1``, ``10.0.0.0/8``,
``::1``) of the reverse proxies in front of Daphne; it is empty by default. A request whose
direct peer is not one of them is taken at its peer address whatever ``X-Forwarded-For``
says, so a client cannot pick a fresh address per request to escape a per-address limit.
Behind trusted proxies the client is the right-most ``X-Forwarded-For`` entry that is not a
trusted proxy itself (proxies append; entries further left were written by the client).

``ClientIpMiddleware`` (first in ``MIDDLEWARE``) writes the result into ``REMOTE_ADDR``, so
every per-address limit — DRF's throttles, allauth's rate limits — and every log line sees
the same address. Daphne's own ``--proxy-headers`` is not used: it takes the left-most
entry, from any peer.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache

from django.conf import settings

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@lru_cache(maxsize=8)
def _networks(entries: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(entry, strict=False) for entry in entries)


def trusted_networks() -> tuple[Network, ...]:
    """``settings.TRUSTED_PROXIES`` parsed (read per call: tests and operators change it)."""
    return _networks(tuple(getattr(settings, "TRUSTED_PROXIES", ()) or ()))


def _address(text: str):
    text = text.strip()
    if text.startswith("[") and "]" in text:  # "[::1]:443"
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:  # "1.2.3.4:5678"
        text = text.split(":", 1)[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _trusted(address, networks) -> bool:
    return address is not None and any(address in network for network in networks)


def resolve_client_ip(peer: str, forwarded_for: str | None, networks: tuple[Network, ...]) -> str:
    """The client address of a request from ``peer`` carrying ``forwarded_for`` (the
    ``X-Forwarded-For`` value, comma-separated, or ``None``). Pure: ``networks`` are the
    trusted proxies. An entry that is not an address ends the walk at the last trusted hop."""
    current = _address(peer)
    if not forwarded_for or not _trusted(current, networks):
        return peer
    for entry in reversed(forwarded_for.split(",")):
        address = _address(entry)
        if address is None:
            break
        current = address
        if not _trusted(address, networks):
            break
    return str(current)


def client_ip(request) -> str:
    """The client address of a Django request (after ``ClientIpMiddleware``: ``REMOTE_ADDR``)."""
    return request.META.get("REMOTE_ADDR", "")


class ClientIpMiddleware:
    """Replaces ``REMOTE_ADDR`` with the client address when the peer is a trusted proxy;
    keeps the peer as ``PEGASUS_PEER_ADDR``."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        peer = request.META.get("REMOTE_ADDR", "")
        request.META["PEGASUS_PEER_ADDR"] = peer
        networks = trusted_networks()
        if networks:
            request.META["REMOTE_ADDR"] = resolve_client_ip(
                peer, request.META.get("HTTP_X_FORWARDED_FOR"), networks
            )
        return self.get_response(request)
