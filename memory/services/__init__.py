"""Database work on the memory graph: each write owns its transaction and the user's lock."""
