"""`python -m harness.cli ARGS...`: the `harness` command."""

import sys

from .main import main

sys.exit(main())
