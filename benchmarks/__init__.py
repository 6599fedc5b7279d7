"""srcad benchmark suite (issue 4): `python -m benchmarks --help`."""
