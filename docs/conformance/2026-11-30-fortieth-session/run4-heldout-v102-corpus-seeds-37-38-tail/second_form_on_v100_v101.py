# the second form (the final choose_plan) on v100's and v101's timings: run after run2's summary.py (it writes /tmp/v100rows.json); /work/s40/run2/r/v100/probe.json is run2's v100_probe.json.gz and /work/s40/run3/r/v101/probe.json run3's v101_probe.json.gz, unpacked
import json, math
import fastswz.cuda as fc
from fastswz.cuda import normalize_config
def gm(x): return math.exp(sum(map(math.log, x)) / len(x))
rows = json.load(open("/tmp/v100rows.json"))
P100 = json.load(open("/work/s40/run2/r/v100/probe.json"))
res = {"fit": [], "35-38": [], "v101": []}
for p, r in zip(P100, rows):
    m, n, k = p["shape"]; dt = p["dtype"]
    new = normalize_config(dict(fc.choose_plan(m, n, k, dt, dt)))
    old = p["rows"][0]["config"]
    if new == old: continue
    hit = [x for x in p["rows"] if x["config"] == new]
    res["fit" if r["fit"] else "35-38"].append((p["rows"][0]["ms"] / hit[0]["ms"], r["cub"] / p["rows"][0]["ms"], r["cub"] / hit[0]["ms"]))
for p in json.load(open("/work/s40/run3/r/v101/probe.json")):
    m, n, k = p["shape"]; dt = p["dtype"]
    new = normalize_config(dict(fc.choose_plan(m, n, k, dt, dt)))
    newr, oldr = p["rows"]
    if new == oldr["config"]: continue
    assert new == newr["config"], (m, n, k)
    res["v101"].append((oldr["ms"] / newr["ms"], p["cublas_ms"] / oldr["ms"], p["cublas_ms"] / newr["ms"]))
for key, x in res.items():
    v = [a[0] for a in x]
    print(key, len(v), "gm %.3f" % gm(v), "faster", sum(a > 1.03 for a in v), "slower", sum(a < 0.97 for a in v), "min %.3f max %.3f" % (min(v), max(v)), "least cub %.2f -> %.2f" % (min(a[1] for a in x), min(a[2] for a in x)))
