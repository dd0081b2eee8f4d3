from django.urls import path

from memory import views

app_name = "memory"

urlpatterns = [
    path("", views.explorer, name="explorer"),
]
