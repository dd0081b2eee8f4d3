from django.urls import path

from chat import views

app_name = "chat"

urlpatterns = [
    path("", views.chat_home, name="home"),
    path("new/", views.new_conversation, name="new"),
    path("<int:conversation_id>/", views.conversation_page, name="conversation"),
    path("<int:conversation_id>/messages/", views.conversation_messages, name="messages"),
    path("<int:conversation_id>/rename/", views.rename_conversation, name="rename"),
    path("<int:conversation_id>/delete/", views.delete_conversation, name="delete"),
    path("<int:conversation_id>/end/", views.end_conversation, name="end"),
]
