from django.urls import path

from memory.api.views.edges import EdgeDetailView, EdgeListView
from memory.api.views.episodes import EpisodeListView
from memory.api.views.graph import GraphView
from memory.api.views.graph_io import ExportView, ImportView
from memory.api.views.inbox import InboxAnswerView, InboxItemView, InboxListView, InboxUndoView
from memory.api.views.merges import MergeRevertView, NodeMergeView
from memory.api.views.nodes import NodeDetailView, NodeListView
from memory.api.views.recall import RecallView

app_name = "api-memory"

urlpatterns = [
    path("graph/", GraphView.as_view(), name="graph"),
    path("nodes/", NodeListView.as_view(), name="nodes"),
    path("nodes/<int:node_id>/", NodeDetailView.as_view(), name="node"),
    path("nodes/<int:node_id>/merge/", NodeMergeView.as_view(), name="node-merge"),
    path("merges/<int:merge_id>/revert/", MergeRevertView.as_view(), name="merge-revert"),
    path("inbox/", InboxListView.as_view(), name="inbox"),
    path("inbox/<int:merge_id>/", InboxItemView.as_view(), name="inbox-item"),
    path("inbox/<int:merge_id>/answer/", InboxAnswerView.as_view(), name="inbox-answer"),
    path("inbox/<int:merge_id>/undo/", InboxUndoView.as_view(), name="inbox-undo"),
    path("edges/", EdgeListView.as_view(), name="edges"),
    path("edges/<int:edge_id>/", EdgeDetailView.as_view(), name="edge"),
    path("episodes/", EpisodeListView.as_view(), name="episodes"),
    path("recall/", RecallView.as_view(), name="recall"),
    path("export/", ExportView.as_view(), name="export"),
    path("import/", ImportView.as_view(), name="import"),
]
