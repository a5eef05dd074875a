"""The thirty-fifth session's probe summaries (run from the repository root, no GPU):
v85-v87 (run 2) each alternative against the default, by the sets' halves (first 20 drawn fitted,
next 20 held out, then the corpus and seed problems); v89 (run 3) by region of M; v88 and v90
(run 5, held out) each rule's plan against the plan before it."""
import gzip
import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def load(run, v):
    path = os.path.join(HERE, run, v, "probe.json")
    opener = gzip.open if not os.path.exists(path) else open
    with opener(path if os.path.exists(path) else path + ".gz") as f:
        return json.load(f)


def gm(x):
    return math.exp(sum(map(math.log, x)) / len(x)) if x else float("nan")


def line(name, r):
    if not r:
        return f"  {name}: none"
    return (f"  {name}: {len(r)} problems, {gm(r):.3f}x in geometric mean, {sum(x > 1.03 for x in r)} faster by > 3%, "
            f"{sum(x < 0.97 for x in r)} slower by > 3%, {min(r):.3f}-{max(r):.3f}")


def main():
    run2 = "run2-probe-v85-v86-v87"
    for v, names in (("v85", ("swapped pieces, one pass", "swapped pieces, split 2")),
                     ("v86", ("the plan without the swapped rules", "the swapped tile at 192 rows", "unswapped 128 x 256")),
                     ("v87", ("SWAP_PAD_MAX_FILL's swapped plan",))):
        d = load(run2, v)
        print(f"{v} (default time / candidate time):")
        for half, rows in (("fitted", d[:20]), ("held out", d[20:40]), ("corpus and seeds", d[40:])):
            for i, name in enumerate(names, 1):
                r = [p["rows"][0]["ms"] / p["rows"][i]["ms"] for p in rows if len(p["rows"]) > i]
                print(line(f"{half}, {name}", r))
    d = load(run2, "v86")
    print("v86, the swapped tile at 192 rows, by whether its tiles fit one wave (SWAP_WAVE_BM's rule):")
    for half, rows in (("fitted", d[:20]), ("held out", d[20:40])):
        for fits in (True, False):
            r = [p["rows"][0]["ms"] / p["rows"][2]["ms"] for p in rows
                 if (-(-p["shape"][1] // 192) * -(-p["shape"][0] // 256) <= 132) == fits]
            print(line(f"{half}, {'fits' if fits else 'does not fit'}", r))
    d = load("run3-probe-v89-seeds-corpus", "v89")
    print("v89 (default time / one-pass time), by M:")
    for half, rows in (("fitted", d[:20]), ("held out", d[20:40])):
        for lo, hi in ((64, 200), (200, 256), (256, 320)):
            r = [p["rows"][0]["ms"] / x["ms"] for p in rows for x in p["rows"][1:2]
                 if lo < p["shape"][0] <= hi and x["config"]["split_k"] == 1]
            print(line(f"{half}, {lo} < M <= {hi}", r))
    for v in ("v88", "v90"):
        d = load("run5-heldout-v88-v90", v)
        r = [p["rows"][1]["ms"] / p["rows"][0]["ms"] for p in d if len(p["rows"]) > 1]
        print(f"{v} (held out; the plan before the rules' time / the rules' plan's):")
        print(line("all", r))
        if v == "v88":
            for name, sel in (("192 rows", lambda p: p["rows"][0]["config"]["bm"] == 192),
                              ("below 48 k-tiles", lambda p: p["rows"][0]["config"]["bm"] != 192)):
                print(line(name, [p["rows"][1]["ms"] / p["rows"][0]["ms"] for p in d if sel(p)]))


if __name__ == "__main__":
    main()
