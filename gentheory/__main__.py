"""``python -m gentheory`` is the ``gentheory`` command."""
import sys

from gentheory.verify.cli import main

sys.exit(main())
