"""Each corpus's latest full H200 run, with the thirty-first session's run-4 subset rows (less the
five ragged-K rows), the thirty-second session's run-3 subset rows (the rows SWAP_PAD_MAX_FILL
changes) and this session's run-5 subset rows (the rows QUAD_CLUSTER_MAX_BM changes) laid over it
by name; one line per corpus: geometric mean | share at >= 0.9x | below 0.75x. From the
repository root: python3 docs/conformance/2026-11-29-thirty-third-session/run5-probe-v79-heldout-subsets-fuzz-tests/merge.py"""
import gzip, json, os, subprocess, sys
sys.path.insert(0, "benchmarks"); sys.path.insert(0, "src")
import gpu_corpus as g
S31 = "docs/conformance/2026-11-29-thirty-first-session/run4-probe-v71-heldout-subsets-fuzz/subsets"
S32 = "docs/conformance/2026-11-29-thirty-second-session/run3-probe-v75-heldout-subsets-fuzz/subsets"
S33 = "docs/conformance/2026-11-29-thirty-third-session/run5-probe-v79-heldout-subsets-fuzz-tests/subsets"
RAG = {(638, 549, 3622), (410, 544, 8196), (1388, 424, 8470), (375, 991, 6729), (700, 367, 4157)}
def load(p):
    return json.load(gzip.open(p) if p.endswith(".gz") else open(p))
def latest(pattern):
    fs = subprocess.run(["git", "ls-files", pattern], capture_output=True, text=True).stdout.split()
    return max(fs, key=lambda f: int(subprocess.run(["git", "log", "-1", "--format=%ct", "--", f],
                                                    capture_output=True, text=True).stdout or 0))
names = [("corpus", "docs/conformance/*/corpus.json.gz", "gemm_corpus")] + [
    (s, f"docs/conformance/*fresh-{s}.json.gz", f"fresh_{s}") for s in
    "20261128 20261129 20261130 20261201 20261202 20261203 20261204 20261205 20261301 20261302 20261303 "
    "20261304 20261401 20261402 20261501 20261502".split()]
for label, pattern, sub in names:
    base = latest(pattern)
    rows = {r["name"]: r for r in load(base)["rows"]}
    for d, skip in ((S31, RAG), (S32, set()), (S33, set())):
        for ext in (".json.gz", ".json"):
            p = os.path.join(d, sub + ext)
            if os.path.exists(p):
                for r in load(p)["rows"]:
                    if (r["m"], r["n"], r["k"]) not in skip:
                        rows[r["name"]] = r
    v = g.verdicts(g.summarize(list(rows.values())))
    print(f"{label}: " + "|".join(x[2] for x in v[:3]) + f"   ({os.path.dirname(base).split('/')[-2]}/{os.path.basename(os.path.dirname(base))})")
