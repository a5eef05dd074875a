"""Turn run.sh outputs into the permanent hardware record (the fixture tests/test_banks.py reads).

    python3 tests/gpu/banks/record.py OUT.json RUN_DIR [RUN_DIR ...]

Each RUN_DIR holds ncu_{structured,random,pairs,merge,heldout}.csv (or .csv.gz) from one run.sh;
the patterns are this directory's patterns/random/pairs/merge.json (same addresses in every run),
and for the held-out set, drawn at run time, the run's own heldout.json. Every launch
becomes one record: pattern, kind, lane mask, addresses, measured wavefronts (all shared ops,
minus the run's baseline launch) and the raw per-op ncu counters.
"""
from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import compare

HERE = Path(__file__).resolve().parent
SETS = {"structured": "patterns", "random": "random", "pairs": "pairs", "merge": "merge",
        "heldout": "heldout"}


def _csv(run: Path, name: str):
    for p in (run / f"ncu_{name}.csv", *sorted(run.glob(f"*ncu_{name}.csv.gz"))):
        if p.exists():
            if p.suffix == ".gz":
                tmp = Path("/tmp") / f"fsw_banks_{run.name}_{name}.csv"
                tmp.write_bytes(gzip.decompress(p.read_bytes()))
                return tmp
            return p
    return None


def main(out, *runs):
    records = []
    for run in map(Path, runs):
        for name, stem in SETS.items():
            path = _csv(run, name)
            if path is None:
                continue
            src = run if name == "heldout" else HERE
            patterns = json.loads((src / f"{stem}.json").read_text())
            launches = compare.read_ncu(path)
            assert len(launches) == len(patterns), (run, name)
            base = [l for p, l in zip(patterns, launches) if p["kind"] == "baseline"][0]["metrics"]
            for i, (p, l) in enumerate(zip(patterns, launches)):
                assert l["kernel"] == "k_" + p["kind"], (run, name, i)
                m = l["metrics"]
                records.append({
                    "run": run.name, "set": name, "index": i, "name": p["name"], "kind": p["kind"],
                    "mask": p["mask"], "addresses": p["addresses"],
                    "measured": int(m[compare.TOTAL] - base[compare.TOTAL]),
                    "ncu": {k.replace(".sum", ""): int(v) for k, v in m.items()
                            if v is not None and "mem_shared" in k}})
    Path(out).write_text(json.dumps({"device": "NVIDIA H100 80GB HBM3 (sm_90), driver 580.159.04, "
                                     "CUDA 13.0, Nsight Compute 2025.3.1",
                                     "baseline_note": "every launch counts 1 shared wavefront with no "
                                     "shared instruction (the baseline kernel); measured subtracts it",
                                     "records": records}, indent=0))
    print(f"{len(records)} records -> {out}")


if __name__ == "__main__":
    main(*sys.argv[1:])
