"""The tail corpus: every problem of fresh seeds 1-36 under 0.85x of cuBLAS's speed at its seed's last run."""
import json, gzip, glob, re, sys
latest = {}
for fn in sorted(glob.glob("docs/conformance/*/*/fresh-2026*.json.gz") + glob.glob("docs/conformance/*/fresh-2026*.json.gz")):
    latest[re.search(r"fresh-(\d+)", fn).group(1)] = fn
names = {}
for seed, fn in latest.items():
    for r in json.load(gzip.open(fn))["rows"]:
        f = (r.get("fastswz") or {}).get("median_ms"); c = (r.get("cublas") or {}).get("median_ms")
        if f and c and c / f < 0.85:
            names[r["name"]] = (seed, fn)
out = None; probs = []; models = []
for seed in sorted({s for s, _ in names.values()}):
    d = json.load(open(f"tests/gpu/gemm/fresh_{seed}.json"))
    if out is None: out = {k: v for k, v in d.items() if k not in ("problems", "models")}
    models += d["models"]
    probs += [p for p in d["problems"] if p["name"] in names]
out["description"] = ("the tail: every problem of fresh seeds 1-36 (tests/gpu/gemm/fresh_*.json) under 0.85x of "
                      "cuBLAS's speed at its seed's last run in docs/conformance (made by the fortieth session's mktail.py)")
out["models"] = models; out["problems"] = probs
json.dump(out, open(sys.argv[1], "w"), indent=1)
print(len(probs), "problems from", len(latest), "seeds;", len(models), "models")
