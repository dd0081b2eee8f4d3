"""Account pages: profile, API tokens, export, deletion. Thin: forms and services."""

import json

from django.contrib import messages as flash
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST

from accounts import services, tokens
from accounts.forms import DeleteAccountForm, NewTokenForm, ProfileForm


@login_required
@require_http_methods(["GET", "POST"])
def profile(request):
    current = services.get_profile(request.user)
    form = ProfileForm(
        request.POST or None,
        initial={
            "display_name": current.display_name,
            "time_zone": current.time_zone,
            "memory_enabled": current.memory_enabled,
        },
    )
    if request.method == "POST" and form.is_valid():
        services.update_profile(user=request.user, **form.cleaned_data)
        flash.success(request, "Profile saved.")
        return redirect("account-profile")
    return render(request, "accounts/profile.html", {"form": form})


NEW_TOKEN_KEY = "accounts.new_token"  # noqa: S105 (a session key, not a secret)


@login_required
@require_http_methods(["GET", "POST"])
def api_tokens(request):
    form = NewTokenForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        created = tokens.create_token(user=request.user, device=form.cleaned_data["device"])
        # Post/redirect/get: a reload must not create a second token. The plain token rides
        # in the (server-side) session to the next page and is shown there once.
        request.session[NEW_TOKEN_KEY] = {"token": created.token, "device": created.device}
        return redirect("account-tokens")
    created = request.session.pop(NEW_TOKEN_KEY, None) if request.method == "GET" else None
    return render(
        request,
        "accounts/tokens.html",
        {
            "form": form,
            "created": created,
            "tokens": tokens.list_tokens(user=request.user),
        },
    )


@login_required
@require_POST
def revoke_token(request, digest):
    if not tokens.revoke_token(user=request.user, digest=digest):
        raise Http404("Not found")
    flash.success(request, "Token revoked.")
    return redirect("account-tokens")


@login_required
def export(request):
    data = services.export_account(user=request.user, now=timezone.now())
    response = HttpResponse(
        json.dumps(data, ensure_ascii=False, indent=2),
        content_type="application/json; charset=utf-8",
    )
    stamp = timezone.now().strftime("%Y%m%d")
    response["Content-Disposition"] = f'attachment; filename="pegasus-export-{stamp}.json"'
    return response


@login_required
@require_http_methods(["GET", "POST"])
def delete_account(request):
    form = DeleteAccountForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        user = request.user
        logout(request)
        services.delete_account(user=user)
        flash.success(request, "Your account and everything Pegasus knew about you are gone.")
        return redirect("home")
    return render(request, "accounts/delete.html", {"form": form})
