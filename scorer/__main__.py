"""``python -m scorer``: the same as the ``scarto`` command."""

import sys

from .cli import main

sys.exit(main())
