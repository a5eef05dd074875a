"""``python -m fastswz``: the same command line as ``fastswz``."""
import sys

from .cli import main

sys.exit(main())
