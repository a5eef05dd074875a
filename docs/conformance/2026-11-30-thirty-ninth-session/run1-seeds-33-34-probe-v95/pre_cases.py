"""Compile every plan of probe cases files (argv) in parallel (16 jobs): the device's cache."""
import json, sys
from fastswz.cuda import compile_many
uniq = {}
for path in sys.argv[1:]:
    for case in json.load(open(path)):
        for c in case["configs"]:
            uniq[json.dumps(c, sort_keys=True)] = c
got = compile_many(list(uniq.values()), jobs=16)
bad = [g for g in got if isinstance(g, Exception)]
print(f"precompiled {len(uniq)} plans, {len(bad)} failed", [str(b)[:200] for b in bad[:3]])
