"""Every page of the admin renders for a moderator: each registered model's list, add page
(when adding is allowed), change page and history, on real fixture rows."""

import pytest
from django.contrib import admin
from django.contrib.admin.utils import quote
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_every_registered_admin_page_renders(mod_client, mod, every_model, rf):
    assert mod_client.get(reverse("admin:index")).status_code == 200
    opened = []
    for model, model_admin in admin.site._registry.items():
        info = f"admin:{model._meta.app_label}_{model._meta.model_name}"
        response = mod_client.get(reverse(f"{info}_changelist"))
        assert response.status_code == 200, f"{info} changelist: {response.status_code}"

        request = rf.get("/")
        request.user = mod
        if model_admin.has_add_permission(request):
            response = mod_client.get(reverse(f"{info}_add"))
            assert response.status_code == 200, f"{info} add: {response.status_code}"

        row = model._default_manager.first()
        assert row is not None, f"no fixture row for {model._meta.label}: add one to every_model"
        for page in ("change", "history"):
            response = mod_client.get(reverse(f"{info}_{page}", args=[quote(row.pk)]))
            assert response.status_code == 200, f"{info} {page}: {response.status_code}"
        opened.append(model._meta.label)

    # The console's own models and django-q2's job pages are among them.
    assert {
        "memory.MergeDecision",
        "memory.Episode",
        "memory.Node",
        "memory.Edge",
        "memory.Snippet",
        "chat.Conversation",
        "chat.Message",
        "ops.WorkerHeartbeat",
        "django_q.Failure",
        "django_q.Success",
        "django_q.Schedule",
        "django_q.OrmQ",
    } <= set(opened)


def test_embeddings_are_never_in_the_admin():
    from memory.models import MemoryKey

    assert MemoryKey not in admin.site._registry


def test_graph_rows_cannot_be_added_changed_or_deleted_in_the_admin(mod_client, every_model):
    from chat.models import Conversation, Message
    from memory.models import Edge, Episode, MergeDecision, Node, Snippet

    for model in (Node, Edge, Snippet, Episode, MergeDecision, Conversation, Message):
        info = f"admin:{model._meta.app_label}_{model._meta.model_name}"
        row = model._default_manager.first()
        assert mod_client.get(reverse(f"{info}_add")).status_code == 403
        assert mod_client.get(reverse(f"{info}_delete", args=[row.pk])).status_code == 403
        page = mod_client.get(reverse(f"{info}_change", args=[row.pk]))
        assert 'name="_save"' not in page.content.decode()
        # A POST to the change page saves nothing (view-only).
        assert mod_client.post(reverse(f"{info}_change", args=[row.pk]), {}).status_code == 403


CONSOLE_MODELS = [
    "memory.mergedecision",
    "memory.episode",
    "memory.node",
    "memory.edge",
    "memory.snippet",
    "memory.correction",
    "chat.conversation",
    "chat.message",
]


def test_lists_take_the_same_queries_whatever_the_number_of_rows(mod_client, mod, bob, every_model):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tests.admin.conftest import populate

    def queries(label):
        app, model = label.split(".")
        with CaptureQueriesContext(connection) as captured:
            assert mod_client.get(reverse(f"admin:{app}_{model}_changelist")).status_code == 200
        return len(captured)

    before = {label: queries(label) for label in CONSOLE_MODELS}
    populate(bob, mod)  # as many rows again, owned by another user
    after = {label: queries(label) for label in CONSOLE_MODELS}
    assert after == before
