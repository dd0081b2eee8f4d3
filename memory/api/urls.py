from django.urls import path

from memory.api import views

app_name = "api-memory"

urlpatterns = [
    path("graph/", views.GraphView.as_view(), name="graph"),
    path("nodes/", views.NodeListView.as_view(), name="nodes"),
    path("nodes/<int:node_id>/", views.NodeDetailView.as_view(), name="node"),
    path("nodes/<int:node_id>/merge/", views.NodeMergeView.as_view(), name="node-merge"),
    path("merges/<int:merge_id>/revert/", views.MergeRevertView.as_view(), name="merge-revert"),
    path("inbox/", views.InboxListView.as_view(), name="inbox"),
    path("inbox/<int:merge_id>/", views.InboxItemView.as_view(), name="inbox-item"),
    path("inbox/<int:merge_id>/answer/", views.InboxAnswerView.as_view(), name="inbox-answer"),
    path("inbox/<int:merge_id>/undo/", views.InboxUndoView.as_view(), name="inbox-undo"),
    path("edges/", views.EdgeListView.as_view(), name="edges"),
    path("edges/<int:edge_id>/", views.EdgeDetailView.as_view(), name="edge"),
    path("episodes/", views.EpisodeListView.as_view(), name="episodes"),
    path("recall/", views.RecallView.as_view(), name="recall"),
    path("export/", views.ExportView.as_view(), name="export"),
    path("import/", views.ImportView.as_view(), name="import"),
]
