"""The compiler's passes, one per file, named after their class."""
