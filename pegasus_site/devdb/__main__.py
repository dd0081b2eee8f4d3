"""``python -m pegasus_site.devdb ...``: see the package's docstring."""

import sys

from pegasus_site.devdb.cli import main

sys.exit(main(sys.argv[1:]))
