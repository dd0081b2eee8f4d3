"""What memory needs from conversations and profiles, as interfaces it owns (ports).

``memory`` imports neither ``chat`` nor ``accounts`` (``tests/test_architecture.py`` fails if
it does): the apps above it implement these protocols and register them in their
``AppConfig.ready()`` — ``chat.memory_port.ChatConversations`` and
``accounts.memory_port.AccountProfiles``. Memory's models still point at chat's tables by
string (``"chat.Conversation"``) and may filter across those foreign keys; only Python
imports go through here.

Every method that takes ``user`` (an instance or an id) answers from that user's rows only;
another user's ids are simply absent from the answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple, Protocol

from django.core.exceptions import ImproperlyConfigured

__all__ = [
    "USER",
    "ConversationInfo",
    "Conversations",
    "MessageInfo",
    "Profiles",
    "conversations",
    "profiles",
    "register_conversations",
    "register_profiles",
]

USER = "user"  # MessageInfo.role of the account holder's (or a named speaker's) turns


@dataclass(frozen=True)
class ConversationInfo:
    """One conversation as memory sees it."""

    id: int
    user_id: int
    ended: bool
    incognito: bool
    started_at: datetime
    ended_at: datetime | None


class MessageInfo(NamedTuple):
    """One turn, in the order ``memory.core.passages.message_sentences`` reads it.

    role: ``"user"`` or ``"assistant"``; speaker: who spoke a user turn when it is not the
    account holder (else ``""``); offline: a reply composed without the model."""

    id: int
    role: str
    speaker: str
    offline: bool
    text: str
    created_at: datetime


class Conversations(Protocol):
    """Conversations and their turns (implemented by ``chat``)."""

    def get(self, *, user, conversation_id: int, lock: bool = False) -> ConversationInfo | None:
        """``user``'s conversation, or ``None`` when missing or another user's. ``lock`` takes
        its row lock (``SELECT … FOR UPDATE``) inside the caller's transaction."""
        ...

    def owner_id(self, conversation_id: int) -> int | None:
        """Whose conversation this is (``None``: no such conversation). For operators'
        commands only (``manage.py extract`` without ``--user``), never for a request."""
        ...

    def first_message_at(self, *, user, conversation_id: int) -> datetime | None:
        """When the conversation's first message was written (``None``: it has none)."""
        ...

    def has_user_turns(self, *, user, conversation_id: int) -> bool:
        """Whether the conversation holds at least one user-role turn."""
        ...

    def messages(
        self, *, user, conversation_id: int, user_turns_only: bool = False
    ) -> list[MessageInfo]:
        """The conversation's turns in order (created, then id)."""
        ...

    def mentioning_user_turns(
        self, *, user, conversation_id: int, forms: Sequence[str], limit: int
    ) -> list[MessageInfo]:
        """At most ``limit`` user turns containing one of ``forms`` (case-insensitively), in
        order; none when ``forms`` is empty."""
        ...

    def user_turn_texts(self, *, user, message_ids: Iterable[int]) -> dict[str, str]:
        """The text of each of ``user``'s own user-role turns among ``message_ids`` (id as a
        string → text); assistant turns and other users' messages are left out."""
        ...

    def existing_message_ids(self, *, user, message_ids: Iterable[int]) -> set[int]:
        """Those of ``message_ids`` that are ``user``'s messages (any role)."""
        ...

    def existing_conversation_ids(self, *, user, conversation_ids: Iterable[int]) -> set[int]:
        """Those of ``conversation_ids`` that are ``user``'s conversations."""
        ...


class Profiles(Protocol):
    """What the account's profile says (implemented by ``accounts``)."""

    def time_zone(self, user_id: int) -> str | None:
        """The user's IANA time zone, ``None`` when unset."""
        ...

    def display_name(self, user_id: int) -> str | None:
        """The name the user chose to be called, ``None`` when unset."""
        ...


class _NoProfiles:
    """Without an accounts app nothing is known: callers fall back (UTC, the user row)."""

    def time_zone(self, user_id: int) -> str | None:
        return None

    def display_name(self, user_id: int) -> str | None:
        return None


_registry: dict[str, object] = {}


def register_conversations(impl: Conversations) -> None:
    """Make ``impl`` the conversations memory reads (called from an ``AppConfig.ready``)."""
    _registry["conversations"] = impl


def register_profiles(impl: Profiles) -> None:
    """Make ``impl`` the profiles memory reads (called from an ``AppConfig.ready``)."""
    _registry["profiles"] = impl


def conversations() -> Conversations:
    """The registered conversations; ``ImproperlyConfigured`` when no app registered one."""
    try:
        return _registry["conversations"]  # type: ignore[return-value]
    except KeyError:
        raise ImproperlyConfigured(
            "no app registered memory.ports.Conversations (is chat in INSTALLED_APPS?)"
        ) from None


def profiles() -> Profiles:
    """The registered profiles, or one that knows nothing when no app registered one."""
    return _registry.get("profiles") or _NoProfiles()  # type: ignore[return-value]
