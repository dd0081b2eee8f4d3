"""Values every page template needs."""

from django.conf import settings


def site(request):
    return {
        "llm_mode": "anthropic" if settings.ANTHROPIC_API_KEY else "offline",
    }
