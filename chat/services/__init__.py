"""Chat's services: conversations (``conversations``), a turn (``turn``) and what the model is
shown on it (``prompt``). Views, the consumer, the API and tasks import from here."""

from chat.services.conversations import (
    broadcast,
    broadcast_on_commit,
    close_idle_conversations,
    conversation_group,
    delete_conversation,
    end_conversation,
    rename_conversation,
    start_conversation,
)
from chat.services.prompt import (
    RECENT_TURNS,
    SYSTEM_PROMPT,
    offline_reply,
    prompt_turns,
    recent_turns,
    system_prompt,
)
from chat.services.turn import (
    DATABASE_DOWN,
    RECORD_LIST_LIMIT,
    TurnError,
    TurnStart,
    begin_turn,
    database_failed,
    message_payload,
    run_turn,
)

__all__ = [
    "DATABASE_DOWN",
    "RECENT_TURNS",
    "RECORD_LIST_LIMIT",
    "SYSTEM_PROMPT",
    "TurnError",
    "TurnStart",
    "begin_turn",
    "broadcast",
    "broadcast_on_commit",
    "close_idle_conversations",
    "conversation_group",
    "database_failed",
    "delete_conversation",
    "end_conversation",
    "message_payload",
    "offline_reply",
    "prompt_turns",
    "recent_turns",
    "rename_conversation",
    "run_turn",
    "start_conversation",
    "system_prompt",
]
