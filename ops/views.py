from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from ops import health


@never_cache
@require_GET
def healthz(request):
    """200 with the health report when every part is up, 503 with the same report otherwise."""
    healthy, details = health.report()
    return JsonResponse(details, status=200 if healthy else 503)
