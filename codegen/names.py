"""Fresh, readable, deterministic names."""


class Namer:
    """Hands out names that do not clash with each other or with names already taken.

    Counters, not random suffixes, so the same input always gives the same names.

    >>> n = Namer({"x", "tmp1"})
    >>> n.fresh("tmp"), n.fresh("tmp"), n.fresh("x")
    ('tmp2', 'tmp3', 'x1')
    """

    def __init__(self, taken=()):
        self.taken = set(taken)
        self.counters = {}

    def reserve(self, name):
        self.taken.add(name)
        return name

    def fresh(self, stem, numbered=True):
        """A new name starting with `stem`; `numbered=False` tries `stem` itself first."""
        if not numbered and stem not in self.taken:
            return self.reserve(stem)
        sep = "_" if stem[-1:].isdigit() else ""
        count = self.counters.get(stem, 0)
        while True:
            count += 1
            name = f"{stem}{sep}{count}"
            if name not in self.taken:
                self.counters[stem] = count
                return self.reserve(name)
