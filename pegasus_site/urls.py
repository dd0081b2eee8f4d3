"""Top-level URLs. Each app owns its own urls module."""

from allauth.account.decorators import secure_admin_login
from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView, TemplateView

from ops.views import healthz

# The admin signs in through allauth's login (its rate limits stop password guessing).
admin.site.login = secure_admin_login(admin.site.login)

urlpatterns = [
    path("", TemplateView.as_view(template_name="home.html"), name="home"),
    path("healthz", healthz, name="healthz"),
    # Browsers ask for /favicon.ico whatever the page says; the logo answers it.
    path(
        "favicon.ico",
        RedirectView.as_view(
            get_redirect_url=lambda *args, **kwargs: static("img/pegasus.svg"), permanent=True
        ),
    ),
    path("accounts/", include("allauth.urls")),
    path("account/", include("accounts.urls")),
    path("chat/", include("chat.urls")),
    path("memory/", include("memory.urls")),
    path("admin/", admin.site.urls),
    path("api/", include("pegasus_site.api_urls")),
]

# JSON in the API's error shape for paths under /api/, the usual page elsewhere.
handler500 = "lib.api.handler500"
