"""REST API v1 for the memory graph (see docs/api.md)."""
