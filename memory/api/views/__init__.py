"""The memory API: graph, nodes, edges, merges, the merge inbox, episodes, recall, export and
import.

Thin views: every row is reached through ``for_user`` (another user's id is a 404), writes go
through the services (``memory.services.corrections``, ``merge``, ``inbox``, ``graph_io``,
``read``), and current strength and dormancy are judged at one ``now`` per request (SPEC §5.4).

Layout, one module a resource: ``graph`` (the whole graph for the explorer), ``nodes``,
``edges``, ``merges`` (merging two nodes and undoing a merge), ``inbox`` (the merge inbox),
``episodes``, ``recall``, ``graph_io`` (export and import); ``common`` holds the schema tag
and query parsing every view shares. The dicts the output serializers read, and the queries
behind them, come from ``memory.services.presentation``. ``memory.api.urls`` imports the
views from their modules.
"""
