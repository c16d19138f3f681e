"""``python -m harness.cli``: the same as the ``council-harness`` console script."""

import sys

from harness.cli import main

sys.exit(main())
