"""Random programs from `srcad.fuzz`: reverse mode against finite differences and against
forward mode, plain-Python sweeps only (jit=False) to keep the suite fast."""

import pytest

from srcad import fuzz

SEEDS = range(300)
CHUNK = 10



def _check(seeds):
    results = [fuzz.check(seed, jit=False) for seed in seeds]
    bad = [r for r in results if r.outcome in (fuzz.WRONG, fuzz.CRASH)]
    summary = ", ".join(f"{o}={sum(r.outcome == o for r in results)}" for o in fuzz.OUTCOMES)
    refused = [r.seed for r in results if r.outcome == fuzz.REFUSED]
    assert not bad, (f"{summary}; refused seeds {refused}\n" + "\n\n".join(
        f"seed {r.seed}: {r.outcome.upper()}\n{r.detail}\n{r.source}" for r in bad))


_plain = list(SEEDS)


@pytest.mark.parametrize("chunk", range(0, len(_plain), CHUNK))
def test_random_programs(chunk):
    _check(_plain[chunk:chunk + CHUNK])


def test_minimize_keeps_the_failure_and_shrinks():
    from srcad.fuzz import shrink as fuzz_minimize

    source, _ = fuzz.generate(3)
    lines = source.rstrip("\n").splitlines()
    # a construct srcad refuses, in front of the final return
    lines[-1:-1] = ["    try:", "        s = s + 1.0", "    except ValueError:", "        pass"]
    small, result = fuzz_minimize.minimize("\n".join(lines) + "\n", 3, (4, 2), jit=False,
                                           log=lambda *a, **k: None)
    assert result.outcome == fuzz.REFUSED and "try" in result.detail
    assert "try:" in small and len(small.splitlines()) < len(lines)
