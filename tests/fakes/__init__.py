"""Test doubles for external services (a local fake of Anthropic's Messages API)."""
