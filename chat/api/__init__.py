"""REST API v1 for chat (see docs/api.md)."""
