"""The web process embeds on one thread (settings.EMBEDDING_THREADS via asgi.py); other
processes keep the runtime's default unless told otherwise."""

import os
import subprocess
import sys

SCRIPT = """
import os, django
{setup}
from memory import embedding
print(embedding.get_encoder().threads)
"""


def threads_after(setup: str, **env) -> int:
    environment = {k: v for k, v in os.environ.items() if k != "EMBEDDING_THREADS"}
    environment.update(env)
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(setup=setup)],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return int(out.stdout.strip().splitlines()[-1])


def test_the_asgi_application_embeds_on_one_thread():
    assert threads_after("import pegasus_site.asgi") == 1


def test_an_operator_setting_wins():
    setup = (
        "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'pegasus_site.settings'); django.setup()"
    )
    assert threads_after(setup, EMBEDDING_THREADS="3") == 3


def test_the_asgi_application_loads_the_model_before_the_first_turn():
    script = """
import time
import pegasus_site.asgi
from memory import embedding
deadline = time.monotonic() + 90
while embedding._encoder is None and time.monotonic() < deadline:
    time.sleep(0.2)
print(embedding._encoder is not None)
"""
    environment = {k: v for k, v in os.environ.items() if k != "PEGASUS_WARM_MODEL"}
    out = subprocess.run(
        [sys.executable, "-c", script],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert out.stdout.strip().splitlines()[-1] == "True"
