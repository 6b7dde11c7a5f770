"""``python -m verify`` is the ``gentheory`` command."""
import sys

from verify.cli import main

sys.exit(main())
