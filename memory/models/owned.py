"""The owner gate lives in ``lib.owned`` (every app's owned rows use it); the memory models
import it from here."""

from lib.owned import OwnedQuerySet, get_owned_or_404

__all__ = ["OwnedQuerySet", "get_owned_or_404"]
