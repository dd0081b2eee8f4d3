"""The /memory/ explorer shell: who may open it, what it carries, and what it never renders."""

import re

import pytest
from django.urls import reverse
from django.utils import timezone

from memory.core.cleaning import normalise_name
from memory.models import Node

pytestmark = pytest.mark.django_db

XSS_NAME = "<img src=x onerror=alert(1)>"


def _node(user, name, kind="PERSON", aliases=()):
    # Straight through the ORM: the shell never reads names, so no keys are needed here.
    now = timezone.now()
    return Node.objects.create(
        user=user,
        kind=kind,
        name=name,
        normalised_name=normalise_name(name),
        aliases=list(aliases),
        confidence=0.9,
        created_at=now,
        updated_at=now,
    )


def test_the_owner_gets_the_shell_with_the_vendored_bundle(client, alice):
    client.force_login(alice)
    response = client.get(reverse("memory:explorer"))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="explorer"' in html
    assert 'id="graph"' in html and 'id="panel"' in html
    assert 'id="explorer-search"' in html and 'id="recall-form"' in html
    assert re.search(
        r'<script src="/static/vendor/graph-bundle\.js"></script>'
        r'<script src="/static/js/explorer\.js"></script>',
        html,
    )
    assert 'href="/static/css/explorer.css"' in html
    assert 'data-graph-url="/api/v1/memory/graph/"' in html
    assert 'data-node-url="/api/v1/memory/nodes/{id}/"' in html
    assert 'data-conversation-url="/chat/{id}/"' in html
    assert 'data-drawn="0"' in html


def test_the_page_has_no_inline_script_or_style_and_a_strict_csp(client, alice):
    client.force_login(alice)
    response = client.get(reverse("memory:explorer"))
    policy = response.headers["Content-Security-Policy"]
    directives = {}
    for part in policy.split(";"):
        name, _, value = part.strip().partition(" ")
        directives[name] = value
    assert "'self'" in directives["script-src"]
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert "'self'" in directives["style-src"]
    html = response.content.decode()
    # Every <script> has a src; no style attributes or <style> blocks.
    assert all("src=" in tag for tag in re.findall(r"<script\b[^>]*>", html))
    assert not re.search(r"\sstyle\s*=", html)
    assert "<style" not in html


def test_the_nav_links_to_the_explorer(client, alice):
    client.force_login(alice)
    html = client.get(reverse("chat:home")).content.decode()
    assert f'href="{reverse("memory:explorer")}"' in html


def test_anonymous_visitors_are_sent_to_sign_in(client):
    response = client.get(reverse("memory:explorer"))
    assert response.status_code == 302
    assert response.headers["Location"].startswith(reverse("account_login"))
    assert "next=/memory/" in response.headers["Location"]


def test_only_get_is_allowed(client, alice):
    client.force_login(alice)
    assert client.post(reverse("memory:explorer")).status_code == 405


def test_names_are_never_rendered_on_the_server(client, alice):
    _node(alice, XSS_NAME, aliases=["<script>alert(2)</script>"])
    _node(alice, "Deloitte", kind="ORG")
    client.force_login(alice)
    html = client.get(reverse("memory:explorer")).content.decode()
    assert XSS_NAME not in html
    assert "onerror" not in html
    assert "&lt;img" not in html  # not even escaped: names only arrive as JSON
    assert "alert(" not in html
    assert "Deloitte" not in html


def test_the_shell_lists_only_the_owners_kinds(client, alice, bob):
    _node(alice, "Trevor", kind="PERSON")
    _node(alice, "Deloitte", kind="ORG")
    _node(bob, "Lisbon", kind="PLACE")
    client.force_login(alice)
    html = client.get(reverse("memory:explorer")).content.decode()
    assert 'data-user-kinds="ORG,PERSON"' in html
    # Every valid kind is offered for "change kind", whoever owns what.
    assert 'data-kinds="PERSON,ORG,PLACE,EVENT,THING,TOPIC,PREFERENCE,OTHER"' in html

    client.force_login(bob)
    html = client.get(reverse("memory:explorer")).content.decode()
    assert 'data-user-kinds="PLACE"' in html
    assert "Trevor" not in html and "Deloitte" not in html


def test_the_vendored_bundle_and_its_licences_are_in_place():
    from django.conf import settings

    vendor = settings.BASE_DIR / "static" / "vendor"
    bundle = (vendor / "graph-bundle.js").read_text()
    assert bundle.startswith("/*! Pegasus graph bundle")
    assert "PegasusGraph" in bundle
    readme = (vendor / "README.md").read_text()
    assert "frontend/build.sh" in readme
    licences = {p.name.rsplit("-", 1)[0] for p in (vendor / "LICENSES").glob("*.txt")}
    assert {"sigma", "graphology", "graphology-layout-forceatlas2"} <= licences
    for name in ("sigma", "graphology", "graphology-layout-forceatlas2"):
        assert f"| {name} |" in readme
