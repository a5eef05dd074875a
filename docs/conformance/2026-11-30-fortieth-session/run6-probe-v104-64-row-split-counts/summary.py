import json, math, sys, gzip
sys.path.insert(0, "tests/gpu/gemm")
import probe
files = probe._corpus_and_seeds("fresh_20262802.json")
src = {key: f for f, key in probe._k_major_keys(files)}
P = json.load(gzip.open("docs/conformance/2026-11-30-fortieth-session/run6-probe-v104-64-row-split-counts/v104_probe.json.gz"))
def gm(x): return math.exp(sum(map(math.log, x)) / len(x)) if x else float('nan')
rows = []
for p in P:
    m, n, k = p["shape"]; dt = p["dtype"]; R = p["rows"]; d = R[0]["config"]
    f = src[(m, n, k, dt)]; fit = f <= "fresh_20262602.json" or f == "gemm_corpus.json"
    kt = -(-k // d["bk"]); tiles = -(-m // 64) * -(-n // d["bn"]); fill = min(132 // tiles, kt // 8, 32)
    ks = {}
    for r in R[1:]:
        c = r["config"]
        if not r["ok"]: continue
        if c["bn"] != d["bn"]: name = "half"
        elif c["split_k"] == fill: name = "fill"
        else: name = "double"
        ks.setdefault(name, (r["ms"], c))
    if "fill" in ks and "double" not in ks and min(2 * d["split_k"], fill) == fill: ks["double"] = ks["fill"]
    rows.append(dict(m=m, n=n, k=k, dt=dt, d=d, dm=R[0]["ms"], cub=p["cublas_ms"], ks=ks, fit=fit, units=tiles * d["split_k"], tiles=tiles, fill=fill, kt=kt))
for name in ("fill", "double", "half"):
    for fit in (True, False):
        x = [r["dm"] / r["ks"][name][0] for r in rows if name in r["ks"] and r["fit"] == fit]
        if x: print(name, "fit" if fit else "35-38", len(x), "%.3f" % gm(x), ">3%", sum(v > 1.03 for v in x), "<3%", sum(v < 0.97 for v in x), "min %.2f" % min(x))
print()
for lo, hi in ((0, 40), (41, 64), (65, 100)):
    for name in ("fill", "double", "half"):
        for fit in (True, False):
            x = [r["dm"] / r["ks"][name][0] for r in rows if name in r["ks"] and r["fit"] == fit and lo <= r["units"] <= hi]
            if x: print("u%3d-%3d %-6s %-5s n=%3d gm %.3f >3%% %3d <3%% %3d min %.2f" % (lo, hi, name, "fit" if fit else "35-38", len(x), gm(x), sum(v > 1.03 for v in x), sum(v < 0.97 for v in x), min(x)))
json.dump(rows, open("/tmp/v104rows.json", "w"))
