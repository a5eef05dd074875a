"""v95's summary (thirty-ninth session, run 1): each cluster against the split and the small
tiles on one CTA; the small tiles against the split by rows on the 128-byte line, k-tiles and
splits; seeds 23-32 (files from fresh_20262101.json on) apart as held out.
    PYTHONPATH=src python3 docs/conformance/2026-11-30-thirty-ninth-session/run1-seeds-33-34-probe-v95/summary.py"""
import collections, gzip, json, math, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "..", "tests", "gpu", "gemm"))
import probe  # noqa: E402

res = json.load(gzip.open(os.path.join(HERE, "v95_probe.json.gz")))
orig = {}
for f, key in probe._k_major_keys([os.path.join(probe.HERE, "..", "..", "..", "src", "fastswz", "data", "gemm_corpus.json")]
                                  + probe._seed_files_1_32()):
    orig.setdefault(key, f)


def kind(c):
    return "split" if c["split_k"] > 1 else "small%dx%d" % (c["cluster_m"], c["cluster_n"])


def gm(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


rows = []
for r in res:
    key = tuple(r["shape"]) + (r["dtype"],)
    d = {kind(x["config"]): (x["ms"], x["config"]) for x in r["rows"] if x["ms"] and x["ok"]}
    rows.append(dict(key=key, f=orig[key], d=d, cub=r["cublas_ms"]))
print(f"{len(rows)} problems, {sum(len(r['rows']) for r in res)} timings, "
      f"{sum(1 for r in res for x in r['rows'] if not x['ok'])} not ok")
for part, sel in (("corpus and seeds 1-22", lambda r: r["f"] < "fresh_20262101.json"),
                  ("seeds 23-32", lambda r: r["f"] >= "fresh_20262101.json")):
    R = [r for r in rows if sel(r)]
    print(f"{part}: {len(R)} problems (speed ratio of the first over the second; > 3% faster / slower)")
    for a, b in [("small1x1", "split")] + [(v, "small1x1") for v in ("small2x1", "small4x1", "small1x2", "small2x2")]:
        xs = [r["d"][b][0] / r["d"][a][0] for r in R if a in r["d"] and b in r["d"]]
        print(f"   {a} over {b}: {len(xs)}, {gm(xs):.3f}x, {sum(x > 1.03 for x in xs)} / {sum(x < 0.97 for x in xs)}")
g = collections.defaultdict(list)
for r in rows:
    if "split" not in r["d"] or "small1x1" not in r["d"]:
        continue
    m, n, k, dt = r["key"]
    s = r["d"]["split"][1]
    kt = -(-k // s["bk"])
    online = k * (1 if dt == "e4m3" else 2) % 128 == 0
    g[(online, kt <= 128, s["split_k"] <= 4, s["split_k"])].append(r["d"]["split"][0] / r["d"]["small1x1"][0])
print("small tiles over the split by (rows on the 128-byte line, <= 128 k-tiles, <= 4 splits, splits):")
for key, xs in sorted(g.items()):
    print(f"   {key}: {len(xs)}, {gm(xs):.3f}x, {sum(x > 1.03 for x in xs)} / {sum(x < 0.97 for x in xs)}")
