"""Chat pages. Thin: authenticate, find the owned conversation, call a service, render."""

from django.conf import settings
from django.contrib import messages as flash
from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from chat import services
from chat.limits import TooManyConversations, check_new_conversation
from chat.models import Conversation
from memory.models import get_owned_or_404


def _sidebar(user):
    return Conversation.objects.for_user(user).order_by("-started_at")[:100]


@login_required
@require_GET
def chat_home(request):
    return render(request, "chat/home.html", {"conversations": _sidebar(request.user)})


@login_required
@require_POST
def new_conversation(request):
    incognito = request.POST.get("incognito")
    try:
        check_new_conversation(user=request.user, now=timezone.now())
    except TooManyConversations as exc:
        flash.error(request, str(exc))
        return redirect("chat:home")
    conversation = services.start_conversation(
        user=request.user,
        now=timezone.now(),
        incognito=None if incognito is None else incognito in {"1", "on", "true"},
    )
    return redirect("chat:conversation", conversation_id=conversation.pk)


@login_required
@require_GET
def conversation_page(request, conversation_id):
    conversation = get_owned_or_404(Conversation, request.user, pk=conversation_id)
    history = [services.message_payload(m) for m in conversation.messages.all()]
    return render(
        request,
        "chat/conversation.html",
        {
            "conversation": conversation,
            "conversations": _sidebar(request.user),
            "history": history,
            "max_chars": settings.CHAT_MAX_MESSAGE_CHARS,
        },
    )


@login_required
@require_GET
def conversation_messages(request, conversation_id):
    """Messages after ``?after=<id>`` — how the page catches up after a dropped socket."""
    conversation = get_owned_or_404(Conversation, request.user, pk=conversation_id)
    try:
        after = int(request.GET.get("after", "0"))
    except ValueError:
        after = 0
    rows = conversation.messages.filter(pk__gt=after)
    return JsonResponse(
        {
            "status": conversation.status,
            "messages": [services.message_payload(m) for m in rows],
        }
    )


@login_required
@require_POST
def rename_conversation(request, conversation_id):
    conversation = get_owned_or_404(Conversation, request.user, pk=conversation_id)
    services.rename_conversation(conversation=conversation, title=request.POST.get("title", ""))
    if request.headers.get("Accept") == "application/json":
        return JsonResponse({"id": conversation.pk, "title": conversation.title})
    return redirect("chat:conversation", conversation_id=conversation.pk)


@login_required
@require_POST
def delete_conversation(request, conversation_id):
    conversation = get_owned_or_404(Conversation, request.user, pk=conversation_id)
    services.delete_conversation(conversation=conversation)
    flash.success(request, "Conversation deleted.")
    return redirect("chat:home")


@login_required
@require_POST
def end_conversation(request, conversation_id):
    conversation = get_owned_or_404(Conversation, request.user, pk=conversation_id)
    services.end_conversation(user=request.user, conversation=conversation, now=timezone.now())
    if request.headers.get("Accept") == "application/json":
        return JsonResponse({"id": conversation.pk, "status": conversation.status})
    flash.success(request, "Conversation ended. Pegasus will remember what you shared.")
    return redirect("chat:conversation", conversation_id=conversation.pk)
