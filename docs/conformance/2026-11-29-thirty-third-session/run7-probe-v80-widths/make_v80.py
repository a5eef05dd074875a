"""cases_v80.json: every corpus and seed 1-20 problem (both operands K-major, bf16 or e4m3) whose
default is a one-pass plan on one CTA of at most 128 rows, on rows off the 128-byte line as gemm reads
them, with >= 48 k-tiles, whose BN does not quarter (not a multiple of 32): the default, then
QUAD_CLUSTER_MAX_BM's cluster on BN rounded down and up to a multiple of 32 where the rule's
other bounds hold. From the repository root: python3 THIS (writes tests/gpu/gemm/_v80.json)."""
import sys, os, json
sys.path.insert(0, 'src'); sys.path.insert(0, 'tests/gpu/gemm')
import fastswz.cuda as fc
import probe
from fastswz.corpus import load_corpus
files = ["src/fastswz/data/gemm_corpus.json"] + probe._seed_files_1_16() + [
    f"tests/gpu/gemm/fresh_{s}.json" for s in (20261801, 20261802, 20261901, 20261902)]
cases, seen = [], set()
for f in files:
    for p in load_corpus(f):
        key = (p.m, p.n, p.k, p.a_dtype)
        if p.a_major != "K" or p.b_major != "K" or p.a_dtype not in ("bf16", "e4m3") or key in seen:
            continue
        seen.add(key)
        c = fc.choose_plan(p.m, p.n, p.k, p.a_dtype, p.b_dtype)
        if c['cluster_m'] != 1 or c['cluster_n'] != 1 or c['split_k'] != 1 or c['stream_k'] or c['pingpong'] or c['bm'] > 128:
            continue
        if not fc._rows_off(p.m, p.n, p.k, c['a_dtype'], c['b_dtype'], 'K', 'K', 128):
            continue
        if -(-p.k // c['bk']) < 48 or c['bn'] % 32 == 0:
            continue
        cfgs = [c]
        for bn in (c['bn'] // 32 * 32, -(-c['bn'] // 32) * 32):
            if bn < 32 or bn > 256:
                continue
            got = fc._quad_cluster(fc.normalize_config(dict(c, bn=bn)), p.m, p.n, p.k)
            if got['cluster_m'] == 4 and got not in cfgs:
                cfgs.append(got)
        if len(cfgs) > 1:
            cases.append({"shape": [p.m, p.n, p.k], "dtype": p.a_dtype, "configs": cfgs, "file": os.path.basename(f)})
json.dump(cases, open('tests/gpu/gemm/_v80.json', 'w'))
