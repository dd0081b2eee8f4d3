"""Earlier conversations for a ``bench_recall`` account: the sentence store a Read searches.

``ensure_history(user, turns, seed=, now=)`` gives the bench account ``turns`` user turns of
earlier, ended conversations (``TURNS_PER_CONVERSATION`` each, one per day back from ``now``),
each a chat-like message naming nodes of its graph (``synthetic.sample_messages``), and
indexes them with the extraction job's own indexer (``memory.services.sentences``, the real
sentence model). The graph itself is not touched: the history only fills the sentence store,
so a Read of strategy ``default`` searches a realistic amount of text. Reused when the account
already holds exactly that history.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from datetime import datetime, timedelta

from django.db import transaction

from bench import synthetic

__all__ = ["HISTORY_TITLE", "TURNS_PER_CONVERSATION", "ensure_history"]

HISTORY_TITLE = "bench history"
TURNS_PER_CONVERSATION = 20


def ensure_history(
    user,
    turns: int,
    *,
    seed: int,
    now: datetime,
    progress: Callable[[int, int], None] | None = None,
) -> dict | None:
    """``user``'s bench history of ``turns`` turns, built unless it already exists (then
    None); returns ``{"turns", "sentences", "seconds"}`` when built. ``progress(done,
    total)`` gets the turns indexed so far."""
    from chat.models import Conversation, ConversationStatus, Message, Role
    from memory.models import Sentence
    from memory.services.sentences import index_conversation

    history = Conversation.objects.for_user(user).filter(title=HISTORY_TITLE)
    held = Message.objects.for_user(user).filter(conversation__in=history).count()
    if held == turns and (turns == 0 or Sentence.objects.for_user(user).exists()):
        return None
    started = time.perf_counter()
    history.delete()
    rng = random.Random(seed)
    texts = synthetic.sample_messages(synthetic.names_by_kind(user), turns, rng) if turns else []
    chunks = [
        texts[i : i + TURNS_PER_CONVERSATION] for i in range(0, len(texts), TURNS_PER_CONVERSATION)
    ]
    done = sentences = 0
    for day, chunk in enumerate(chunks):
        start = now - timedelta(days=len(chunks) - day)
        last = start + timedelta(minutes=len(chunk))
        with transaction.atomic():
            conversation = Conversation.objects.create(
                user=user,
                title=HISTORY_TITLE,
                incognito=False,
                started_at=start,
                status=ConversationStatus.ENDED,
                ended_at=last,
                last_message_at=last,
            )
            Message.objects.bulk_create(
                [
                    Message(
                        user=user,
                        conversation=conversation,
                        role=Role.USER,
                        text=text,
                        created_at=start + timedelta(minutes=i),
                    )
                    for i, text in enumerate(chunk)
                ]
            )
        sentences += index_conversation(user=user, conversation=conversation, now=last)
        done += len(chunk)
        if progress:
            progress(done, turns)
    return {
        "turns": turns,
        "sentences": sentences,
        "seconds": round(time.perf_counter() - started, 1),
    }
