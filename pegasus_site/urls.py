"""Top-level URLs. Each app owns its own urls module."""

from django.contrib import admin
from django.urls import include, path
from django.views.generic import TemplateView

from ops.views import healthz

urlpatterns = [
    path("", TemplateView.as_view(template_name="home.html"), name="home"),
    path("healthz", healthz, name="healthz"),
    path("accounts/", include("allauth.urls")),
    path("account/", include("accounts.urls")),
    path("chat/", include("chat.urls")),
    path("admin/", admin.site.urls),
]

