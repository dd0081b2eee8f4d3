"""``manage.py serve``: what ``make run`` runs.

Applies migrations, ensures the recurring jobs exist, then runs Daphne and the django-q2
cluster together in the foreground. Ctrl-C (or SIGTERM) stops both, then the embedded
database when this command is the one using it.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django_q.tasks import async_task

from lib.llm import llm_mode
from ops.schedules import ensure_schedules


def _port_in_use(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return True
    return False


def daphne_command(python: str, host: str, port: int) -> list[str]:
    """Daphne's command line. Never ``--proxy-headers``: Daphne would take the left-most
    X-Forwarded-For entry from any peer, which the client writes. Forwarded addresses are
    read in Django instead, only from ``TRUSTED_PROXIES`` (pegasus_site/client_ip.py)."""
    return [python, "-m", "daphne", "-b", host, "-p", str(port), "pegasus_site.asgi:application"]


class Command(BaseCommand):
    help = "Run the web server (Daphne) and the worker (django-q2) together."

    def add_arguments(self, parser):
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument("--no-worker", action="store_true", help="web server only")
        parser.add_argument(
            "--keep-db", action="store_true", help="leave the embedded database running on exit"
        )

    def handle(self, *args, host, port, no_worker, keep_db, **options):
        if _port_in_use(host, port):
            raise CommandError(
                f"port {port} on {host} is already in use; stop what uses it or run "
                f"`PORT=<another> make run`"
            )
        call_command("migrate", interactive=False, verbosity=0)
        self.stdout.write("database migrated")
        names = ensure_schedules()
        self.stdout.write(f"schedules ensured: {', '.join(names)}")
        async_task("ops.tasks.heartbeat")  # the first beat, before the minutely schedule

        python = sys.executable
        manage = str(settings.BASE_DIR / "manage.py")
        children: list[subprocess.Popen] = [
            subprocess.Popen(
                daphne_command(python, host, port), cwd=settings.BASE_DIR, start_new_session=True
            )
        ]
        if not no_worker:
            children.append(
                subprocess.Popen(
                    [python, manage, "qcluster"], cwd=settings.BASE_DIR, start_new_session=True
                )
            )
        self.stdout.write(
            self.style.SUCCESS(
                f"Pegasus is running at http://{host}:{port}/ "
                f"(LLM mode: {llm_mode()}). "
                "Press Ctrl-C to stop."
            )
        )

        stopping = False

        def _stop(signum, frame):
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, _stop)
        signal.signal(signal.SIGTERM, _stop)
        exit_code = 0
        try:
            while not stopping:
                for child in children:
                    if child.poll() is not None:
                        self.stderr.write(
                            f"a child process exited with code {child.returncode}; stopping"
                        )
                        stopping, exit_code = True, 1
                time.sleep(0.3)
        finally:
            self._terminate(children)
            if not keep_db and os.environ.get("PEGASUS_EMBEDDED_DB") == "1":
                from pegasus_site.devdb import stop as stop_embedded_db

                if stop_embedded_db():
                    self.stdout.write("embedded database stopped")
        if exit_code:
            raise CommandError("Pegasus stopped because a process died")

    def _terminate(self, children: list[subprocess.Popen]) -> None:
        # Only the leaders get SIGTERM: django-q2 stops its own worker processes gracefully.
        # Their process groups are killed only if they overrun the deadline.
        for child in children:
            if child.poll() is None:
                child.terminate()
        deadline = time.monotonic() + 15
        for child in children:
            try:
                child.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(child.pid, signal.SIGKILL)
                child.wait()
