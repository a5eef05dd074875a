"""Run 7's summary (from this folder: python3 analyze.py): each swapped split against the default,
on the 30 fitted, the 30 held out and the 3 corpus/seed problems (v84's order)."""
import gzip, json, math
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
d = json.load(gzip.open("probe.json.gz"))
print("every D matched:", all(r["ok"] for p in d for r in p["rows"]))
for label, ps in (("fitted", d[:30]), ("held out", d[30:60]), ("corpus and seeds", d[60:])):
    for s in (1, 2, 3):
        v = []
        for p in ps:
            rows = sorted(p["rows"], key=lambda r: r["i"])
            v += [rows[0]["ms"] / r["ms"] for r in rows[1:] if r["config"]["swap_ab"] and r["config"]["split_k"] == s]
        print(f"{label:17s} swapped, split {s}: {len(v):2d} problems, {g(v):.3f}x the default, faster by > 3%: "
              f"{sum(x > 1.03 for x in v)}, slower by > 3%: {sum(x < 0.97 for x in v)}, least {min(v):.3f}")
