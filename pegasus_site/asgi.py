"""ASGI entry point: HTTP through Django, websockets through Channels.

Websocket routing is wrapped in ``AllowedHostsOriginValidator(AuthMiddlewareStack(...))``:
a socket from a foreign origin is refused and every consumer sees ``scope["user"]``; between
the two, ``SiteOriginValidator`` also requires the Origin's scheme and port to be the site's
(pegasus_site/origins.py).
"""

import logging
import os
import threading

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pegasus_site.settings")
# One thread per embedding call in the web process (settings.EMBEDDING_THREADS).
os.environ.setdefault("EMBEDDING_THREADS", "1")

from channels.auth import AuthMiddlewareStack
from channels.routing import ProtocolTypeRouter, URLRouter
from channels.security.websocket import AllowedHostsOriginValidator
from django.core.asgi import get_asgi_application

django_asgi_app = get_asgi_application()

from pegasus_site.origins import SiteOriginValidator  # noqa: E402
from pegasus_site.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            SiteOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns)))
        ),
    }
)


def _warm_up_model() -> None:
    # Load the sentence model off the request path: loaded lazily by the first turn, it held
    # Daphne's one sync thread for 8–27 s, and new sockets were refused meanwhile.
    try:
        from memory import embedding

        embedding.get_encoder()
    except Exception:  # /healthz reports a missing model; the first Read raises it again
        logging.getLogger(__name__).exception("could not load the sentence model at start-up")


if os.environ.get("PEGASUS_WARM_MODEL", "1") != "0":
    # Not a daemon: a process that exits while the model loads (a check, a short script that
    # imports this module) waits for the load instead of tearing ONNX Runtime down mid-call,
    # which aborts the process ("terminate called without an active exception").
    threading.Thread(target=_warm_up_model, name="pegasus-model-warm-up", daemon=False).start()
