import sys

from .integrations.cli import main

sys.exit(main())
