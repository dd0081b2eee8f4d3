"""Account-level operations: profile, export of everything, deletion of everything."""

from __future__ import annotations

from datetime import datetime

from django.contrib.sessions.models import Session
from django.db import transaction

from accounts.models import Profile
from chat.models import Conversation
from lib.sessions import user_group


def _live_sessions_of(user) -> list[str]:
    """Keys of the unexpired database sessions signed in as ``user`` (sessions carry no user
    column: each is decoded)."""
    from django.utils import timezone

    user_id = str(user.pk)
    return [
        s.pk
        for s in Session.objects.filter(expire_date__gt=timezone.now())
        if s.get_decoded().get("_auth_user_id") == user_id
    ]


def close_sockets(*, user_id: int, keep_session: str = "", only_session: str = "") -> None:
    """After commit, close ``user_id``'s open sockets: all of them, or all but those opened
    with session ``keep_session``, or only those of ``only_session``. Sockets served by other
    processes are reached through the channel layer (Redis when more than one process)."""
    from asgiref.sync import async_to_sync
    from channels.layers import get_channel_layer

    def send():
        layer = get_channel_layer()
        if layer is not None:
            async_to_sync(layer.group_send)(
                user_group(user_id),
                {
                    "type": "account.revoked",
                    "keep": keep_session or "",
                    "only": only_session or "",
                },
            )

    transaction.on_commit(send)


def revoke_access(*, user, keep_session: str = "") -> None:
    """End every way ``user`` is signed in except the website session ``keep_session`` (the
    browser that changed the password): every API token, every other session, every socket
    (closed after commit). Called on password change, password reset and deactivation."""
    from accounts.tokens import revoke_all

    with transaction.atomic():
        revoke_all(user=user)
        Session.objects.filter(
            pk__in=[key for key in _live_sessions_of(user) if key != keep_session]
        ).delete()
        close_sockets(user_id=user.pk, keep_session=keep_session)


def get_profile(user) -> Profile:
    profile, _ = Profile.objects.get_or_create(user=user)
    return profile


def update_profile(*, user, display_name: str, time_zone: str, memory_enabled: bool) -> Profile:
    """Save preferences; a new display name becomes an alias of the user's self node."""
    from memory.services.merge.self_node import name_self_node

    profile = get_profile(user)
    profile.display_name = display_name.strip()[:100]
    profile.time_zone = time_zone
    profile.memory_enabled = memory_enabled
    profile.save()
    if profile.display_name:
        name_self_node(user=user, name=profile.display_name)
    return profile


def export_account(*, user, now: datetime) -> dict:
    """Everything Pegasus keeps about ``user``: profile, memory graph (SPEC §6.1),
    conversations with their messages and what was recalled for each reply."""
    from memory.services.graph_io.export import export_graph

    profile = get_profile(user)
    conversations = []
    for conversation in Conversation.objects.for_user(user).prefetch_related("messages"):
        conversations.append(
            {
                "id": conversation.pk,
                "title": conversation.title,
                "status": conversation.status,
                "incognito": conversation.incognito,
                "started_at": conversation.started_at.isoformat(),
                "ended_at": conversation.ended_at.isoformat() if conversation.ended_at else None,
                "messages": [
                    {
                        "id": m.pk,
                        "role": m.role,
                        "text": m.text,
                        "created_at": m.created_at.isoformat(),
                        "recall": m.recall,
                    }
                    for m in conversation.messages.all()
                ],
            }
        )
    return {
        "format": "pegasus-account/1",
        "exported_at": now.isoformat(),
        "account": {
            "username": user.get_username(),
            "email": user.email,
            "date_joined": user.date_joined.isoformat(),
            "display_name": profile.display_name,
            "time_zone": profile.time_zone,
            "memory_enabled": profile.memory_enabled,
        },
        "graph": export_graph(user=user),
        "conversations": conversations,
        **_history(user),
        "forgotten": _forgotten_of(user),
    }


def _forgotten_of(user) -> list[dict]:
    """What the user had forgotten and when, oldest first — ``{"what": "memory" | "node",
    "id", "forgotten_at"}`` — never the forgotten text itself."""
    from memory.models import Correction, CorrectionAction

    what = {CorrectionAction.FORGET_EDGE: "memory", CorrectionAction.FORGET_NODE: "node"}
    rows = (
        Correction.objects.for_user(user)
        .filter(action__in=list(what))
        .order_by("created_at", "id")
        .values_list("action", "target_id", "created_at")
    )
    return [
        {"what": what[action], "id": target_id, "forgotten_at": at.isoformat()}
        for action, target_id, at in rows
    ]


def _history(user) -> dict:
    """The records of the user's corrections and merge decisions, as stored: with the text
    an undo needs while its window is open, ``[erased]`` after it and for anything
    forgotten (forget records written before that rule included)."""
    from memory.models import Correction, MergeDecision
    from memory.services.corrections import FORGET_ACTIONS, erase_text

    def iso(value):
        return value.isoformat() if value else None

    return {
        "corrections": [
            {
                "id": c.pk,
                "action": c.action,
                "target_type": c.target_type,
                "target_id": c.target_id,
                "after": c.after,
                "before": erase_text(c.before) if c.action in FORGET_ACTIONS else c.before,
                "created_at": iso(c.created_at),
            }
            for c in Correction.objects.for_user(user).order_by("created_at", "id")
        ],
        "merge_decisions": [
            {
                "id": d.pk,
                "status": d.status,
                "kind": d.kind,
                "rule": d.rule,
                "reason": d.reason,
                "score": d.score,
                "proposed": d.proposed,
                "candidates": d.candidates,
                "kept": d.kept_id,
                "absorbed": d.absorbed,
                "moved": d.moved,
                "log": d.log,
                "created_at": iso(d.created_at),
                "decided_at": iso(d.decided_at),
            }
            for d in MergeDecision.objects.for_user(user).order_by("created_at", "id")
        ],
    }


def _jobs_of(user) -> tuple[list, list]:
    """django-q2 rows (queued tasks, results/failures) that concern ``user``'s episodes.

    They carry no user key, only the task's arguments, so they are matched by episode id.
    """
    from django_q.models import OrmQ, Task

    from memory.models import Episode

    episode_ids = set(Episode.objects.for_user(user).values_list("pk", flat=True))
    if not episode_ids:
        return [], []
    queued = [q.pk for q in OrmQ.objects.all() if _episode_arg(q.task) in episode_ids]
    done = [
        t.pk
        for t in Task.objects.filter(func="memory.tasks.extract_conversation")
        if t.args and t.args[0] in episode_ids
    ]
    return queued, done


def _episode_arg(task: dict | None):
    if not task or task.get("func") != "memory.tasks.extract_conversation":
        return None
    args = task.get("args") or ()
    return args[0] if args else None


def _forget_admin_history(user) -> int:
    """Delete the admin log entries (``django_admin_log``) about ``user``'s rows and about the
    account itself: their ``object_repr`` and change messages hold names and text of the
    user's memory. Entries the user made as staff go with the account (cascade). Returns how
    many were deleted."""
    from django.apps import apps
    from django.contrib.admin.models import LogEntry
    from django.contrib.auth import get_user_model
    from django.contrib.contenttypes.models import ContentType
    from django.db.models import CharField, Q
    from django.db.models.functions import Cast

    User = get_user_model()
    about = Q(content_type=ContentType.objects.get_for_model(User), object_id=str(user.pk))
    for model in apps.get_models():
        owner = next(
            (
                f
                for f in model._meta.concrete_fields
                if f.name == "user" and f.is_relation and f.related_model is User
            ),
            None,
        )
        if owner is None or model is LogEntry:
            continue
        ids = (
            model._default_manager.filter(user=user)
            .annotate(_pk_text=Cast("pk", CharField()))
            .values("_pk_text")
        )
        about |= Q(content_type=ContentType.objects.get_for_model(model), object_id__in=ids)
    deleted, _ = LogEntry.objects.filter(about).delete()
    return deleted


def delete_account(*, user) -> None:
    """Erase every row owned by ``user`` in one transaction: graph, keys, traversals, merge
    decisions, episodes, conversations, messages, API tokens, queued and finished jobs,
    sessions, the admin log's entries about any of them — then the account itself. Other
    users' rows are untouched."""
    from django_q.models import OrmQ, Task

    with transaction.atomic():
        queued, done = _jobs_of(user)
        OrmQ.objects.filter(pk__in=queued).delete()
        Task.objects.filter(pk__in=done).delete()
        user_id = str(user.pk)
        stale = [
            s.pk for s in Session.objects.all() if s.get_decoded().get("_auth_user_id") == user_id
        ]
        Session.objects.filter(pk__in=stale).delete()
        _forget_admin_history(user)
        # Every memory and chat row has a direct user foreign key with CASCADE.
        user.delete()
