"""The user's self node: chosen once, then fixed (SPEC §5.6). Its code lives in
``memory.services.merge.self_node`` beside the Write's ``ensure_self_node``; the profile
form's ``name_self_node`` stays importable from here."""

from memory.services.merge.self_node import name_self_node

__all__ = ["name_self_node"]
