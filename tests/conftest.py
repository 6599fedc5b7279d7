"""Every test transforms with the parse-back check after each pass switched on: a pass whose
tree does not print as the same program fails where it happens, named."""
import os

os.environ.setdefault("SRCAD_CHECK_PASSES", "1")
