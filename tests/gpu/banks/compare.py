"""Compare fastswz.banks' predicted wavefronts with Nsight Compute's measured ones.

    python3 compare.py metrics QUERY.txt          # print the --metrics list this ncu supports
    python3 compare.py sass SASS.txt              # check: one shared instruction per probe kernel
    python3 compare.py compare PATTERNS.json NCU.csv OUTSTEM

``compare`` maps the n-th profiled launch to the n-th pattern (banks.cu launches them in file
order, one warp each), takes the launch's shared-memory wavefronts (all shared ops together;
each probe kernel issues exactly one shared instruction, so this is that instruction's count)
minus the baseline pattern's, and writes OUTSTEM.md (table) and OUTSTEM.json (every metric of
every launch). Needs only the Python standard library (the GPU machine may lack fastswz).
Exit status 0 when every prediction equals the measurement, 1 otherwise.
"""
from __future__ import annotations

import csv
import json
import re
import sys

TOTAL = "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"
CORE = [TOTAL,
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"]
EXTRA = ["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum",
         "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum",
         "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum",
         "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_stsm.sum",
         "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
         "smsp__sass_inst_executed_op_shared_ld.sum",
         "smsp__sass_inst_executed_op_shared_st.sum",
         "smsp__sass_inst_executed_op_ldsm.sum",
         "smsp__sass_inst_executed_op_stsm.sum",
         "smsp__inst_executed_op_ldsm.sum",
         "smsp__inst_executed_op_stsm.sum"]
SASS_OPS = {"baseline": None, "ld1": "LDS.U8", "ld2": "LDS.U16", "ld4": "LDS", "ld8": "LDS.64",
            "ld16": "LDS.128", "st1": "STS.U8", "st2": "STS.U16", "st4": "STS", "st8": "STS.64",
            "st16": "STS.128"}


def metrics(query_path):
    if query_path == "/dev/null":      # the fallback: only the four metrics every ncu has
        print(",".join(CORE[1:]))
        return
    with open(query_path, errors="replace") as f:
        text = f.read()
    have = set(re.findall(r"^\s*([a-z0-9_]+__[a-z0-9_]+)", text, flags=re.M))
    chosen = [m for m in CORE + EXTRA if m.rsplit(".", 1)[0] in have] if have else []
    for m in CORE:
        if m not in chosen:
            chosen.append(m)      # the core set is needed; if ncu lacks one, it says so
    print(",".join(chosen))


def sass(path):
    """Every probe kernel has exactly one shared-memory instruction, of the expected kind."""
    funcs, cur = {}, None
    with open(path, errors="replace") as f:
        text = f.read().splitlines()
    for line in text:
        m = re.search(r"Function : _Z\d+(k_\w+?)PKjjPj", line)
        if m:
            cur = m.group(1)[2:]
            funcs[cur] = []
            continue
        m = re.search(r"\b(LDS(?:M)?(?:\.[\w.]+)?|STS(?:M)?(?:\.[\w.]+)?|LD\.|ST\.|ATOMS\S*)\s", line)
        if cur and m and ("LDS" in m.group(1) or "STS" in m.group(1) or "ATOMS" in m.group(1)):
            funcs[cur].append(m.group(1))
    bad = 0
    for name, ops in sorted(funcs.items()):
        want = SASS_OPS.get(name)
        if name.startswith(("ldsm", "stsm")):
            x = name.split("_")[1][1]
            t = "MT88" if name.endswith("trans") else "M88"
            want = f"{name[:2].upper()}SM.16.{t}" + ("" if x == "1" else f".{x}")
        ok = (ops == [] if want is None else ops == [want])
        bad += not ok
        print(f"sass {'ok ' if ok else 'BAD'} {name:16} {' '.join(ops) or '(no shared access)'}")
    print(f"sass: {len(funcs)} kernels, {bad} unexpected")
    return 1 if bad or len(funcs) < 23 else 0


def _num(s):
    s = s.replace(",", "").strip()
    try:
        return float(s)
    except ValueError:
        return None


def read_ncu(path):
    with open(path, errors="replace") as f:
        lines = [ln for ln in f if ln.startswith('"')]
    launches = {}
    for row in csv.DictReader(lines):
        key = int(row["ID"])
        d = launches.setdefault(key, {"kernel": row["Kernel Name"].split("(")[0], "metrics": {}})
        d["metrics"][row["Metric Name"]] = _num(row["Metric Value"])
    return [launches[k] for k in sorted(launches)]


def compare(pattern_path, csv_path, stem):
    with open(pattern_path) as f:
        patterns = json.load(f)
    launches = read_ncu(csv_path)
    if len(launches) != len(patterns):
        print(f"compare: {len(launches)} profiled launches for {len(patterns)} patterns")
        return 1
    base = None
    for p, l in zip(patterns, launches):
        if p["kind"] == "baseline":
            base = l["metrics"].get(TOTAL) or sum(
                v or 0 for k, v in l["metrics"].items() if "wavefronts_mem_shared_op" in k)
    base = base or 0
    rows, bad = [], 0
    for i, (p, l) in enumerate(zip(patterns, launches)):
        if l["kernel"] != "k_" + p["kind"]:
            print(f"compare: launch {i} is {l['kernel']}, pattern is {p['kind']}")
            return 1
        got = l["metrics"].get(TOTAL)
        if got is None:   # fallback run without the all-ops total: add the per-op counters up
            got = sum(v or 0 for k, v in l["metrics"].items() if "wavefronts_mem_shared_op" in k)
        measured = None if got is None else int(got - base)
        ok = measured == p["predicted"]
        bad += not ok
        rows.append({**p, "measured": measured, "match": ok, "metrics": l["metrics"], "baseline": base})
    with open(stem + ".json", "w") as f:
        json.dump(rows, f, indent=0)
    with open(stem + ".md", "w") as f:
        f.write("| # | pattern | instruction | mask | predicted | measured | match |\n|---|---|---|---|---|---|---|\n")
        for i, r in enumerate(rows):
            f.write(f"| {i} | {r['name']} | {r['kind']} | {r['mask']:08x} | {r['predicted']} | "
                    f"{r['measured']} | {'yes' if r['match'] else '**NO**'} |\n")
    print(f"compare {pattern_path}: {len(rows)} patterns, baseline {base}, {len(rows) - bad} match, {bad} differ")
    for r in rows:
        if not r["match"]:
            print(f"  differ: {r['name']} ({r['kind']}): predicted {r['predicted']}, measured {r['measured']}")
    return 1 if bad else 0


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "metrics":
        metrics(sys.argv[2])
    elif cmd == "sass":
        sys.exit(sass(sys.argv[2]))
    else:
        sys.exit(compare(*sys.argv[2:5]))
