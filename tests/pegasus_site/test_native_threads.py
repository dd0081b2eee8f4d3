"""Process-wide native-library defaults (pegasus_site/__init__.py): NumPy's OpenBLAS runs one
thread per calling thread unless the operator says otherwise. Its idle threads busy-wait, so
a second one burned most of a core in the web process."""

import json
import os
import subprocess
import sys

PROBE = (
    "import pegasus_site, numpy, threadpoolctl, json; "
    "print(json.dumps([i['num_threads'] for i in threadpoolctl.threadpool_info() "
    "if i['internal_api'] == 'openblas']))"
)


def blas_threads(**env) -> list[int]:
    clean = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    out = subprocess.run(
        [sys.executable, "-c", PROBE],
        env={**clean, **env},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return json.loads(out.stdout)


def test_numpy_gets_one_blas_thread_in_every_pegasus_process():
    assert blas_threads() == [1]


def test_an_operators_own_setting_wins():
    assert blas_threads(OPENBLAS_NUM_THREADS="2") == [2]
