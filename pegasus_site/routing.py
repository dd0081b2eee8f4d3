"""Websocket URL patterns of every app, gathered in one place."""

websocket_urlpatterns: list = []
