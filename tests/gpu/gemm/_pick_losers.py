"""Rows of corpus runs (gpu_corpus.py run JSON) under a speed, as probe.py's PROBE_LOSERS rows."""
import json, sys
th = float(sys.argv[1]); out = sys.argv[2]; rows = []; names = []
for fn in sys.argv[3:]:
    for r in json.load(open(fn))["rows"]:
        f = (r.get("fastswz") or {}).get("median_ms"); c = (r.get("cublas") or {}).get("median_ms")
        if f and c and c / f < th:
            rows.append((c / f, [r["m"], r["n"], r["k"], r["a_dtype"]])); names.append((c / f, r["name"]))
rows.sort()
seen = []; [seen.append(x) for _, x in rows if x not in seen]
json.dump(seen[:12], open(out, "w")); print(len(seen), "losers:", seen[:12])
names.sort(); open(out + ".names", "w").write(",".join(sorted({n for _, n in names[:12]})))
