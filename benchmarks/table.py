"""The one table `python -m benchmarks` prints, with its footnotes."""
import math


def _num(x, digits=2):
    return "-" if x is None else f"{x:.{digits}f}"


def _sig(x):
    """Three significant digits, without an exponent."""
    if x is None:
        return "-"
    if x == 0:
        return "0"
    return f"{x:.{max(0, 2 - math.floor(math.log10(abs(x))))}f}"


def _time_cells(ms, primal_ms, check, probe=None):
    if check != "ok":
        return ["FAIL", "FAIL"]
    mark = "~" if probe is not None else ""
    return [mark + _sig(ms), mark + _sig(ms / primal_ms if primal_ms else None)]


def render(rows, peer_names, opts, peer_notes=None, floor=None):
    head = ["workload", "primal ms", "srcad ms", "ratio", "goal", "hand ratio",
            "srcad / hand", "first-call s",
            "warm-start s", "tape MB", "peak RSS MB"]
    for name in peer_names:
        head += [f"{name} ms", f"{name} ratio"]
    body, notes, probes = [], [], set()
    for r in rows:
        line = [f"{r['key']} {r['title']}", _sig(r.get("primal_ms"))]
        line += _time_cells(r.get("srcad_ms"), r.get("primal_ms"), r["check"])
        hand_ms = r.get("hand_ms")
        line += [_num(r["goal"], 1),
                 _num(hand_ms / r["primal_ms"] if hand_ms and r.get("primal_ms") else None),
                 _num(r["srcad_ms"] / hand_ms if hand_ms and r.get("srcad_ms") else None),
                 _num(r.get("first_s")), _num(r.get("warm_s")),
                 _sig(r.get("tape_mb")), _num(r.get("rss_mb"), 0)]
        if r["check"] != "ok":
            notes.append(f"{r['key']} srcad FAIL: {r['check']}")
        if r.get("hand_check", "ok") != "ok":
            notes.append(f"{r['key']} hand-written FAIL: {r['hand_check']}")
        notes += [f"{r['key']} {n}" for n in r["notes"]]
        for name in peer_names:
            p = r["peers"].get(name, {"check": "not run"})
            line += _time_cells(p.get("ms"), r.get("primal_ms"), p["check"], p.get("probe"))
            if p["check"] != "ok":
                notes.append(f"{r['key']} {name} FAIL: {p['check']}")
            if p.get("probe") is not None:
                probes.add(f"{r['key']} {name} at {p['probe']}")
        body.append(line)
    widths = [max(len(str(c)) for c in col) for col in zip(head, *body)]
    fmt = "| " + " | ".join(f"{{:{'<' if i == 0 else '>'}{w}}}" for i, w in
                            enumerate(widths)) + " |"
    out = [fmt.format(*head), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [fmt.format(*line) for line in body]
    out.append("")
    out.append(f"sizes: {opts.size}; times are medians of {opts.rounds} alternated rounds "
               "after warm-up; ratio = time / numba.njit primal time; srcad and peers give "
               "value and gradients.")
    out.append("first-call s: transform, compile and first call in a fresh process with an "
               "empty SRCAD_CACHE_DIR; warm-start s: a second fresh process, from `import "
               "srcad` to the first gradient; peak RSS: that second process.")
    if floor is not None:
        out.append(f"warm-start floor: {floor:.2f} s, a trivial function under "
                   "numba.njit(cache=True) in a second fresh process (benchmarks/floor.py), "
                   "from importing it to its result.")
    out.append("hand ratio: the hand-written adjoint's time (benchmarks/hand.py, numba.njit) "
               "/ the primal's; srcad / hand: srcad's time / the hand-written one's.")
    out.append("tape MB: the arrays on srcad's tape. Every gradient was checked against "
               "central finite differences at a small size before it was timed.")
    if opts.smoke:
        out.append("--smoke does not measure start-up (first-call, warm-start, peak RSS).")
    if probes:
        out.append("~ extrapolated linearly in the work (loop iterations) from a smaller "
                   "size: " + "; ".join(sorted(probes)) + ".")
    keys = {r["key"] for r in rows}
    for (name, key), note in sorted((peer_notes or {}).items(), key=lambda kv: kv[0][::-1]):
        if name in peer_names and key in keys:
            out.append(f"{key} {name}: {note}.")
    passed = sum(r["check"] == "ok" for r in rows)
    out.append(f"srcad gradient checks: {passed}/{len(rows)} passed.")
    out += notes
    return "\n".join(out)
