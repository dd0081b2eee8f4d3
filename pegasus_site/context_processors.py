"""Values every page template needs."""

from lib.llm import llm_mode


def site(request):
    return {"llm_mode": llm_mode()}
