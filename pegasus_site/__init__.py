"""The Pegasus project package: settings, ASGI/WSGI entry points, the embedded database.

Imported before NumPy in every process (``manage.py``, Daphne's ``pegasus_site.asgi``,
pytest's settings), so it is where process-wide native-library defaults are set.

OpenBLAS (NumPy's matrix library) starts one thread per core and, after every call, keeps
them busy-waiting for the next one. A Read's products are small (a user's key matrix times
a few query vectors) and run in several request threads at once, so the extra threads only
burned CPU: measured in a chat closed loop, one of them took 75 % of a core, 12 ms of
CPU per turn (docs/BENCHMARKS.md). One BLAS thread per calling thread is the default here;
an operator's own ``OPENBLAS_NUM_THREADS`` still wins.
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
