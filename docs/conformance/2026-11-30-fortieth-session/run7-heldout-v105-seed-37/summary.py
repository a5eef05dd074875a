import json, math, gzip
P = json.load(gzip.open("docs/conformance/2026-11-30-fortieth-session/run7-heldout-v105-seed-37/v105_probe.json.gz"))
def gm(x): return math.exp(sum(map(math.log, x)) / len(x))
v = []; lines = []
for p in P:
    R = p["rows"]
    assert all(r["ok"] for r in R), p["shape"]
    new, old = R[0], R[1]
    x = old["ms"] / new["ms"]; v.append(x)
    lines.append((x, p["shape"], p["dtype"], p["cublas_ms"] / old["ms"], p["cublas_ms"] / new["ms"], old["config"], new["config"]))
print(len(v), "gm %.4f" % gm(v), "faster>3%", sum(a > 1.03 for a in v), "slower>3%", sum(a < 0.97 for a in v), "min %.3f" % min(v), "max %.3f" % max(v))
print("cuBLAS speed over fastswz gm old %.3f new %.3f" % (gm([l[3] for l in lines]), gm([l[4] for l in lines])))
for l in sorted(lines, key=lambda l: l[0]):
    o, n = l[5], l[6]
    print("%.3f %-18s %s cub %.2f->%.2f  %dx%d s%d -> %dx%d s%d st%d" % (l[0], "x".join(map(str, l[1])), l[2], l[3], l[4], o["bm"], o["bn"], o["split_k"], n["bm"], n["bn"], n["split_k"], n["stages"]))
