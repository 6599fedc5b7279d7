"""`python -m srcad`: see srcad.cli."""
import sys

from srcad.cli import main

if __name__ == "__main__":
    sys.exit(main())
