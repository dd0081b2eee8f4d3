from django.urls import path

from chat.api import views

app_name = "api-chat"

urlpatterns = [
    path("conversations/", views.ConversationListView.as_view(), name="conversations"),
    path(
        "conversations/<int:conversation_id>/",
        views.ConversationDetailView.as_view(),
        name="conversation",
    ),
    path(
        "conversations/<int:conversation_id>/messages/",
        views.MessageListView.as_view(),
        name="messages",
    ),
    path(
        "conversations/<int:conversation_id>/end/", views.ConversationEndView.as_view(), name="end"
    ),
]
