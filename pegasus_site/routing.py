"""Websocket URL patterns of every app, gathered in one place."""

from chat.routing import websocket_urlpatterns as chat_patterns

websocket_urlpatterns = [*chat_patterns]
