from django.urls import path

from accounts import views

urlpatterns = [
    path("", views.profile, name="account-profile"),
    path("tokens/", views.api_tokens, name="account-tokens"),
    path("tokens/<str:digest>/revoke/", views.revoke_token, name="account-token-revoke"),
    path("export/", views.export, name="account-export"),
    path("delete/", views.delete_account, name="account-delete"),
]
