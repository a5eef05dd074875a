"""cases_v78.json: every corpus and seed 1-18 problem (both operands K-major, bf16 or e4m3) whose plan
the rule's first form changed (any rows, at least 16 k-tiles: the final rule's bounds on the line
and the k-tiles switched off here), with the plan before the rule first and the rule's second.
From the repository root: python3 THIS (writes tests/gpu/gemm/_v78.json)."""
import sys, os, json
sys.path.insert(0,'src'); sys.path.insert(0,'tests/gpu/gemm')
import fastswz.cuda as fc
_final = fc._quad_cluster


def _first_form(c, m, n, k):
    """The final rule without its bound on the 128-byte line, at 16 k-tiles."""
    saved = fc._rows_off, fc.QUAD_CLUSTER_MIN_KTILES
    fc._rows_off = lambda *args: True
    fc.QUAD_CLUSTER_MIN_KTILES = 16
    try:
        return _final(c, m, n, k)
    finally:
        fc._rows_off, fc.QUAD_CLUSTER_MIN_KTILES = saved


fc._quad_cluster = _first_form
import probe
from fastswz.corpus import load_corpus
files=["src/fastswz/data/gemm_corpus.json"]+probe._seed_files_1_16()+["tests/gpu/gemm/fresh_20261801.json","tests/gpu/gemm/fresh_20261802.json"]
cases=[]; seen=set()
for f in files:
    for p in load_corpus(f):
        if p.a_major!="K" or p.b_major!="K" or p.a_dtype not in ("bf16","e4m3"): continue
        key=(p.m,p.n,p.k,p.a_dtype)
        if key in seen: continue
        seen.add(key)
        new=fc.choose_plan(p.m,p.n,p.k,p.a_dtype,p.b_dtype)
        fc.QUAD_CLUSTER_MAX_BM=0; fc._clear_plan_memos()
        old=fc.choose_plan(p.m,p.n,p.k,p.a_dtype,p.b_dtype)
        fc.QUAD_CLUSTER_MAX_BM=128; fc._clear_plan_memos()   # (the value this form had)
        if new!=old: cases.append({"shape":[p.m,p.n,p.k],"dtype":p.a_dtype,"configs":[old,new],"file":os.path.basename(f)})
print(len(cases))
json.dump(cases, open('tests/gpu/gemm/_v78.json','w'))
