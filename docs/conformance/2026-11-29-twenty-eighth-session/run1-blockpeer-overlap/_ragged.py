# exactness of the overlap variants on ragged shapes (tail groups, one k-tile, odd k-tile counts)
import json, sys
sys.path.insert(0, "src")
from fastswz.cuda import normalize_config
from fastswz.cuda.runtime import GemmKernel, check, compile_cubin
variants = json.loads(sys.argv[1])
ok = True
for v in variants:
    c = normalize_config(dict(dict(bm=128, bn=128, bk=128, stages=6, epilogue=True, a_dtype="e4m3", b_dtype="e4m3",
                                   scale="block", out_dtype="bf16"), **{k: x for k, x in v.items() if k != "defines"}))
    kern = GemmKernel(c, *compile_cubin(c, defines=v.get("defines")))
    for shape in ((300, 1000, 520), (129, 257, 384), (777, 1500, 2048), (1000, 1000, 1000), (256, 384, 128),
                  (520, 700, 896), (640, 1024, 1152)):
        for ints in (True, False):
            r = check(kern, *shape, ints=ints)
            ok &= bool(r["ok"]) and r.get("unwritten", 0) == 0
            print(json.dumps(v), shape, "ints" if ints else "random", r["ok"], r.get("mismatches"), r.get("unwritten"),
                  r.get("rel_err"), flush=True)
print("all ok" if ok else "FAILURES")
