import sys

from srcad.fuzz.checker import main

sys.exit(main())
