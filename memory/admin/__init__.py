"""The moderator's console (Django admin, staff only): the merge review queue, the review page
and its actions, the extraction job monitor, and read-only browsing of every user's graph.

Rows are never edited here: every change goes through a service that takes the user's
advisory lock and records who, when, what and why — ``memory.services.merge`` (confirm,
revert, merge a held entity, keep apart) and ``memory.services.jobs`` (retry). A service's
refusal ("revert the later merge first") is shown as an admin error message.

Permissions: viewing needs the model's ``view`` permission (superusers have all); acting on
merge decisions needs ``memory.change_mergedecision`` and retrying jobs
``memory.change_episode`` — "change" here means "may act through the services", since no
form in this console saves a row. Embeddings (MemoryKey) are not registered at all.

Layout: ``review`` (the merge review queue and page), ``jobs`` (the extraction job monitor),
``browse`` (nodes, edges, snippets, corrections), ``filters`` (the list filters), ``helpers``
and ``index`` (the admin index with the queue counts). The read-only base class, the owner
filter and the JSON/link helpers that chat and ops use too are in ``lib.admin``. Importing
this package registers every model admin (Django's admin autodiscovery imports it).
"""

from memory.admin import index  # noqa: F401  (wraps the admin index once)
from memory.admin.browse import CorrectionAdmin, EdgeAdmin, NodeAdmin, SnippetAdmin
from memory.admin.jobs import EpisodeAdmin
from memory.admin.review import MergeDecisionAdmin

__all__ = [
    "CorrectionAdmin",
    "EdgeAdmin",
    "EpisodeAdmin",
    "MergeDecisionAdmin",
    "NodeAdmin",
    "SnippetAdmin",
]
