from django.apps import AppConfig


class ChatConfig(AppConfig):
    name = "chat"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from chat.memory_port import ChatConversations
        from memory import ports

        ports.register_conversations(ChatConversations())
