"""One error shape for everything under /api/, and the limits that produce errors."""

from __future__ import annotations

import json

import pytest
from django.test import RequestFactory

from lib.api import handler500
from tests.reliability.test_security_posture import csp_directives

pytestmark = pytest.mark.django_db


def error_of(response, status: int) -> dict:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"] == "application/json"
    body = json.loads(response.content)
    assert set(body) == {"error"} and set(body["error"]) == {"code", "detail", "fields"}
    return body["error"]


def test_an_unknown_api_path_is_a_json_404(alice_api, anon_api):
    error = error_of(alice_api.get("/api/v2/everything/"), 404)
    assert error == {
        "code": "not_found",
        "detail": "No API endpoint at this address.",
        "fields": {},
    }
    assert error_of(anon_api.post("/api/nothing/", {}, format="json"), 404)["code"] == "not_found"


def test_a_missing_trailing_slash_is_pointed_out(alice_api):
    error = error_of(alice_api.get("/api/v1/memory/nodes"), 404)
    assert "/api/v1/memory/nodes/" in error["detail"]


def test_a_missing_object_is_a_404_in_the_error_shape(alice_api):
    assert error_of(alice_api.get("/api/v1/memory/nodes/999999999/"), 404) == {
        "code": "not_found",
        "detail": "Not found.",
        "fields": {},
    }


def test_a_method_the_endpoint_lacks_is_a_405(alice_api, graph):
    url = f"/api/v1/memory/nodes/{graph.boss.pk}/"
    assert error_of(alice_api.put(url, {}, format="json"), 405)["code"] == "method_not_allowed"
    options = alice_api.options(url)
    assert error_of(options, 405)["code"] == "method_not_allowed"
    assert "OPTIONS" not in options["Allow"]


def test_malformed_json_and_other_media_types_are_refused(alice_api):
    url = "/api/v1/conversations/"
    broken = alice_api.post(url, "{not json", content_type="application/json")
    assert error_of(broken, 400)["code"] == "parse_error"
    form = alice_api.post(url, "title=x", content_type="application/x-www-form-urlencoded")
    assert error_of(form, 415)["code"] == "unsupported_media_type"


def test_a_request_body_over_a_megabyte_is_a_413(alice_api):
    response = alice_api.post("/api/v1/memory/recall/", {"message": "x" * 1_100_000}, format="json")
    assert error_of(response, 413)["code"] == "payload_too_large"


def test_validation_errors_name_their_fields(alice_api, graph):
    error = error_of(
        alice_api.patch(
            f"/api/v1/memory/nodes/{graph.boss.pk}/", {"name": "", "kind": "ALIEN"}, format="json"
        ),
        400,
    )
    assert error["code"] == "validation_error"
    assert set(error["fields"]) == {"name", "kind"}
    assert error["detail"].startswith("name: ")
    listed = error_of(
        alice_api.patch(f"/api/v1/memory/nodes/{graph.boss.pk}/", [1, 2], format="json"), 400
    )
    assert listed["fields"] == {} and "dictionary" in listed["detail"]


def test_requests_are_throttled_per_user(alice_api, bob_api, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "user": "2/min",
        },
    }
    for _ in range(2):
        assert alice_api.get("/api/v1/conversations/").status_code == 200
    throttled = alice_api.get("/api/v1/conversations/")
    assert error_of(throttled, 429)["code"] == "throttled"
    assert int(throttled["Retry-After"]) > 0
    assert bob_api.get("/api/v1/conversations/").status_code == 200


def test_anonymous_requests_are_throttled_per_address(anon_api, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "anon": "1/min",
        },
    }
    assert anon_api.get("/api/v1/conversations/").status_code == 401
    assert error_of(anon_api.get("/api/v1/conversations/"), 429)["code"] == "throttled"


def test_a_crash_under_api_is_a_json_500_and_elsewhere_the_usual_page():
    api = handler500(RequestFactory().get("/api/v1/conversations/"))
    assert error_of(api, 500)["code"] == "server_error"
    site = handler500(RequestFactory().get("/chat/"))
    assert site.status_code == 500 and site["Content-Type"].startswith("text/html")


def test_swagger_ui_is_served_from_our_own_static_files(anon_api):
    page = anon_api.get("/api/docs/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in html
    assert "http://" not in html and "https://" not in html
    # django-csp does not keep the directives in a fixed order: read them as a mapping.
    policy = csp_directives(page["Content-Security-Policy"])
    assert "'unsafe-inline'" in policy["style-src"]
    assert policy["script-src"] == ["'self'"]
    script = anon_api.get("/api/docs/?script=")
    assert script.status_code == 200 and "/api/schema/" in script.content.decode()


def test_the_schema_and_docs_answer_errors_in_the_error_shape(anon_api):
    assert error_of(anon_api.post("/api/schema/"), 405)["code"] == "method_not_allowed"
    assert error_of(anon_api.delete("/api/docs/"), 405)["code"] == "method_not_allowed"
