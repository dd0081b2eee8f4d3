"""The base API view: the policies every view under ``/api/`` shares (see ``lib.api``)."""

from __future__ import annotations

from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from lib.api.errors import exception_handler
from lib.api.pagination import Pagination
from lib.api.parsers import LimitedJSONParser
from lib.api.schema import PegasusAutoSchema
from lib.api.throttles import AnonRateThrottle, UserRateThrottle


class ApiMixin:
    """The API's policies, set on the view so they hold whatever the global DRF defaults."""

    parser_classes = [LimitedJSONParser]
    renderer_classes = [JSONRenderer]
    throttle_classes = [UserRateThrottle, AnonRateThrottle]
    pagination_class = Pagination
    # OPTIONS is not part of the API (no CORS, no metadata): a 405 like any other method.
    http_method_names = ["get", "post", "put", "patch", "delete", "head"]
    metadata_class = None
    schema = PegasusAutoSchema()

    def get_exception_handler(self):
        return exception_handler

    def initial(self, request, *args, **kwargs):
        """DRF's ``initial`` with the throttles checked before the permissions, so that
        requests refused as unauthenticated (guessed tokens included) count against the
        caller's address too."""
        self.format_kwarg = self.get_format_suffix(**kwargs)
        request.accepted_renderer, request.accepted_media_type = self.perform_content_negotiation(
            request
        )
        request.version, request.versioning_scheme = self.determine_version(
            request, *args, **kwargs
        )
        self.perform_authentication(request)
        self.check_throttles(request)
        self.check_permissions(request)


class ApiView(ApiMixin, APIView):
    pass


class JsonErrorsMixin:
    """For DRF views that render something else (the schema, Swagger UI): their errors still
    come in the error shape, as JSON."""

    def get_exception_handler(self):
        return exception_handler

    def finalize_response(self, request, response, *args, **kwargs):
        if isinstance(response, Response) and response.status_code >= 400:
            request.accepted_renderer = JSONRenderer()
            request.accepted_media_type = JSONRenderer.media_type
        return super().finalize_response(request, response, *args, **kwargs)
