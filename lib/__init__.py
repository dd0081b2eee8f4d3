"""Code several apps use (issue 22 names it the home of the owner gate, strict JSON, the
API error shape, admin helpers, the LLM client and text normalisation). For now:
``lib.admin``, the moderator console's shared admin pieces."""
