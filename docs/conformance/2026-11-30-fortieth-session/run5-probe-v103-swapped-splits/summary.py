import json, math, sys, collections, gzip
sys.path.insert(0, "tests/gpu/gemm")
import probe
files = probe._corpus_and_seeds("fresh_20262802.json")
src = {key: f for f, key in probe._k_major_keys(files)}
P = json.load(gzip.open("docs/conformance/2026-11-30-fortieth-session/run5-probe-v103-swapped-splits/v103_probe.json.gz"))
def gm(x): return math.exp(sum(map(math.log, x)) / len(x)) if x else float('nan')
def kind(c, d):
    if c == d: return "default"
    if c["bm"] == 64 and c["split_k"] == d["split_k"]: return "64same"
    if c["bm"] == 64 and c["split_k"] > 1: return "64fill"
    if c["bm"] == 128: return "double"
    return "small" if c["split_k"] == 1 else "?"
rows = []
for p in P:
    m, n, k = p["shape"]; dt = p["dtype"]; R = p["rows"]; d = R[0]["config"]
    f = src[(m, n, k, dt)]; fit = f <= "fresh_20262602.json" or f == "gemm_corpus.json"
    ks = {}
    for r in R:
        if r["ok"]: ks.setdefault(kind(r["config"], d), (r["ms"], r["config"]))
    units = -(-n // 128) * -(-m // d["bn"]) * d["split_k"]
    rows.append(dict(m=m, n=n, k=k, dt=dt, d=d, dm=R[0]["ms"], cub=p["cublas_ms"], ks=ks, fit=fit, units=units))
for name in ("64same", "64fill", "double", "small"):
    for fit in (True, False):
        x = [r["dm"] / r["ks"][name][0] for r in rows if name in r["ks"] and r["fit"] == fit]
        if x: print(name, "fit" if fit else "35-38", len(x), "%.3f" % gm(x), sum(v > 1.03 for v in x), sum(v < 0.97 for v in x))
rows.sort(key=lambda r: r["cub"] / r["dm"])
for r in rows[:40]:
    best = min(r["ks"].items(), key=lambda kv: kv[1][0]); c = best[1][1]
    print("%-5s %5d %5d %6d %s u%3d %dx%d s%d  cub %.2f  best %-7s %.3fx  %dx%d s%d | %s" % ("fit" if r["fit"] else "HELD", r["m"], r["n"], r["k"], r["dt"], r["units"], r["d"]["bm"], r["d"]["bn"], r["d"]["split_k"], r["cub"] / r["dm"], best[0], r["dm"] / best[1][0], c["bm"], c["bn"], c["split_k"],
          " ".join("%s %.2f" % (kk, r["dm"] / v[0]) for kk, v in r["ks"].items() if kk != "default")))
