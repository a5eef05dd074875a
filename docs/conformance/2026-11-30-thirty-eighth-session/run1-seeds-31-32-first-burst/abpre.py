#!/usr/bin/env python3
"""Precompile ab_defines.py's variants in parallel: _abpre.py 'DEFINES-JSON' [...] -- SPEC ..."""
import json, os, sys
from concurrent.futures import ProcessPoolExecutor
sys.path.insert(0, os.path.dirname(__file__))
from ab_defines import default_plans
from fastswz.cuda.runtime import compile_cubin

def one(job):
    c, d = job
    compile_cubin(c, defines=d)
    return 1

if __name__ == "__main__":
    i = sys.argv.index("--")
    defs = [None] + [json.loads(a) for a in sys.argv[1:i]]
    jobs = [(c, d) for *_, c in default_plans(sys.argv[i + 1:]) for d in defs]
    with ProcessPoolExecutor(16) as ex:
        print("compiled", sum(ex.map(one, jobs)), flush=True)
