from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from accounts import signals  # noqa: F401  (connects the receivers)
        from accounts.memory_port import AccountProfiles
        from memory import ports

        ports.register_profiles(AccountProfiles())
