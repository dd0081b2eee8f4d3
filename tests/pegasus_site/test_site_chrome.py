"""Small things every page relies on (issue 19, item 7): /favicon.ico answers, and the
header names the account by its display name as a link to it."""

import pytest

from accounts.services import update_profile

pytestmark = pytest.mark.django_db


def test_favicon_ico_redirects_to_the_logo(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"].endswith(".svg") and "pegasus" in response["Location"]


def test_header_shows_the_display_name_as_a_link_to_the_account(client, alice):
    client.force_login(alice)
    html = client.get("/chat/").content.decode()
    assert (
        '<a class="who" id="header-account" href="/account/" title="Your account">alice</a>'
    ) in html
    update_profile(user=alice, display_name="Alice Liddell", time_zone="UTC", memory_enabled=True)
    html = client.get("/chat/").content.decode()
    assert ">Alice Liddell</a>" in html


def test_the_header_never_shows_another_users_name(client, alice, bob):
    update_profile(user=bob, display_name="Bobby Tables", time_zone="UTC", memory_enabled=True)
    client.force_login(alice)
    html = client.get("/account/").content.decode()
    assert "Bobby Tables" not in html and ">alice</a>" in html
