import json, sys, math, collections, gzip
sys.path.insert(0, "tests/gpu/gemm")
import probe
files = probe._corpus_and_seeds("fresh_20262802.json")
src = {}
for f, key in probe._k_major_keys(files):
    src[key] = f
P = json.load(gzip.open("docs/conformance/2026-11-30-fortieth-session/run2-probe-v100-ncu-37-38/v100_probe.json.gz"))
def kind(c, d):
    if c == d: return "default"
    if c["split_reduce"] == "last_cta": return "lastcta"
    if c["bm"] == 128: return "fill128"
    if c["split_k"] > 1: return "split64"
    if c["bn"] == d["bn"]: return "one64"
    return "small"
rows = []
for p in P:
    m, n, k = p["shape"]; dt = p["dtype"]
    R = p["rows"]; d = R[0]["config"]; dm = R[0]["ms"]
    f = src.get((m, n, k, dt), "?")
    fit = f <= "fresh_20262602.json" or f == "gemm_corpus.json"
    ks = {kind(r["config"], d): (r["ms"], r["config"]) for r in R if r["ok"]}
    rows.append(dict(m=m, n=n, k=k, dt=dt, d=d, dm=dm, cub=p["cublas_ms"], ks=ks, fit=fit, f=f))
print(len(rows), sum(r["fit"] for r in rows))
def gm(x): return math.exp(sum(map(math.log, x)) / len(x)) if x else float('nan')
for name in ("fill128", "lastcta", "split64", "one64", "small"):
    for fit in (True, False):
        x = [r["dm"] / r["ks"][name][0] for r in rows if name in r["ks"] and r["fit"] == fit]
        print(name, "fit" if fit else "35-38", len(x), "%.3f" % gm(x), sum(v > 1.03 for v in x), sum(v < 0.97 for v in x))
# best alternative
for fit in (True, False):
    x = [r["dm"] / min(v[0] for v in r["ks"].values()) for r in rows if r["fit"] == fit]
    print("best", fit, len(x), "%.3f" % gm(x))
json.dump([{k: v for k, v in r.items()} for r in rows], open("/tmp/v100rows.json", "w"))
import json, math
rows = json.load(open("/tmp/v100rows.json"))
def gm(x): return math.exp(sum(map(math.log, x)) / len(x)) if x else float('nan')
for r in rows:
    d = r["d"]; r["units"] = -(-r["m"] // 128) * -(-r["n"] // d["bn"]) * d["split_k"]
    r["line"] = r["k"] * (1 if r["dt"] == "e4m3" else 2) % 128 == 0
    r["kt"] = -(-r["k"] // d["bk"])
    r["speed"] = r["cub"] / r["dm"]
rows.sort(key=lambda r: r["speed"])
print("worst 40 by speed vs cuBLAS: default, best alt")
for r in rows[:40]:
    best = min(r["ks"].items(), key=lambda kv: kv[1][0])
    c = best[1][1]
    print("%5d %5d %6d %s line=%d kt=%3d %3dx%3d s%-2d u%3d  cub %.2f  best %-8s %.3fx -> cub %.2f  %dx%d s%d st%d" % (
        r["m"], r["n"], r["k"], r["dt"], r["line"], r["kt"], r["d"]["bm"], r["d"]["bn"], r["d"]["split_k"], r["units"],
        r["speed"], best[0], r["dm"] / best[1][0], r["cub"] / best[1][0], c["bm"], c["bn"], c["split_k"], c["stages"]))
print()
import collections
for lo, hi in ((0, 48), (49, 66), (67, 80), (81, 100), (101, 132)):
    for fit in (True, False):
        for name in ("split64", "small", "fill128", "one64"):
            x = [r["dm"] / r["ks"][name][0] for r in rows if name in r["ks"] and r["fit"] == fit and lo <= r["units"] <= hi]
            if x: print("units %3d-%3d %-5s %-8s n=%3d gm %.3f  >3%% %d  <3%% %d  min %.2f" % (lo, hi, "fit" if fit else "35-38", name, len(x), gm(x), sum(v > 1.03 for v in x), sum(v < 0.97 for v in x), min(x)))
print()
sel = sorted([r for r in rows if r["units"] <= 112], key=lambda r: r["units"])
for r in sel:
    s = r["ks"].get("split64") or r["ks"].get("one64")
    c = s[1] if s else None
    print("%-5s %5d %5d %6d %s line=%d u%3d %dx%d s%d -> %s  %.3fx  cub %.2f->%.2f" % ("fit" if r["fit"] else "HELD", r["m"], r["n"], r["k"], r["dt"], r["line"], r["units"], r["d"]["bm"], r["d"]["bn"], r["d"]["split_k"],
          "%dx%d s%d st%d" % (c["bm"], c["bn"], c["split_k"], c["stages"]) if c else "-", r["dm"] / s[0] if s else 0, r["speed"], r["cub"] / s[0] if s else 0))
