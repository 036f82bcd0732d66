"""`python -m fuzz.csmith`: the Csmith kernel survey (see fuzz.csmith.survey)."""

import sys

from .survey import main

if __name__ == "__main__":
    sys.exit(main())
