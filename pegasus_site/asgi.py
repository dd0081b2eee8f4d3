"""ASGI entry point: HTTP through Django, websockets through Channels.

Websocket routing is wrapped in ``AllowedHostsOriginValidator(AuthMiddlewareStack(...))``:
a socket from a foreign origin is refused and every consumer sees ``scope["user"]``.
"""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pegasus_site.settings")
# One torch thread per embedding call in the web process (settings.EMBEDDING_THREADS).
os.environ.setdefault("EMBEDDING_THREADS", "1")

from channels.auth import AuthMiddlewareStack
from channels.routing import ProtocolTypeRouter, URLRouter
from channels.security.websocket import AllowedHostsOriginValidator
from django.core.asgi import get_asgi_application

django_asgi_app = get_asgi_application()

from pegasus_site.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
    }
)
