# sanitize.sh's plans compiled in parallel first (the same key=value,... arguments)
import sys
sys.path.insert(0, "src")
from fastswz.cuda import compile_many
cfgs = []
for s in sys.argv[1:]:
    kv = dict(x.split("=") for x in s.split(","))
    cfg = {k: (int(v) if v.isdigit() else v) for k, v in kv.items()}
    cfg["epilogue"] = bool(cfg.get("epilogue", 0))
    cfgs.append(cfg)
bad = [k for k in compile_many(cfgs, jobs=8) if not hasattr(k, "cubin")]
print(len(cfgs), "plans compiled,", len(bad), "failed", bad[:3])
