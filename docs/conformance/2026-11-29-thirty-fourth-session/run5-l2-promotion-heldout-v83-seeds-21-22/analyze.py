"""Run 5's summary (from this folder: python3 analyze.py): v83, the rule (auto) against 256-byte
promotion everywhere, each problem's time the geometric mean of its two runs per setting; and each
fresh seed's corpus verdicts per run."""
import gzip, json, glob, math, re
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
def load(pat):
    return {(tuple(p["shape"]), p["dtype"]): p for p in json.load(gzip.open(glob.glob(pat + ".json.gz")[0]))}
R = {(P, r): load(f"v83-{P}-{r}") for P in ("auto", "256") for r in (1, 2)}
ks = list(R[("auto", 1)])
t = lambda P, k: math.sqrt(R[(P, 1)][k]["rows"][0]["ms"] * R[(P, 2)][k]["rows"][0]["ms"])
c = lambda P, k: math.sqrt(R[(P, 1)][k]["cublas_ms"] * R[(P, 2)][k]["cublas_ms"])
v = [t("256", k) / t("auto", k) for k in ks]
print(f"v83: {len(v)} problems, the rule {g(v):.4f}x the old 256-byte promotion; faster by > 3%: "
      f"{sum(x > 1.03 for x in v)}, slower by > 3%: {sum(x < 0.97 for x in v)}; least {min(v):.3f}, most {max(v):.3f}")
print(f"     cuBLAS gauge {g([c('256', k) / c('auto', k) for k in ks]):.4f}; same setting twice: auto "
      f"{g([R[('auto', 1)][k]['rows'][0]['ms'] / R[('auto', 2)][k]['rows'][0]['ms'] for k in ks]):.4f}, 256 "
      f"{g([R[('256', 1)][k]['rows'][0]['ms'] / R[('256', 2)][k]['rows'][0]['ms'] for k in ks]):.4f}; every D matched: "
      f"{all(R[x][k]['rows'][0]['ok'] for x in R for k in ks)}")
for f in sorted(glob.glob("fresh-*.txt.gz")):
    text = gzip.open(f, "rt").read()
    gm = re.search(r"time <= 1.0: ([\d.]+)", text).group(1)
    share = re.search(r"at >= 0.9x cuBLAS speed: (\d+)%", text).group(1)
    below = re.search(r"none below 0.75x cuBLAS speed: (\d+) below; worst ([\d.]+)x \(([^)]+)\)", text)
    print(f"{f[:-7]}: {gm} / {share}% / {below.group(1)} under 0.75x (worst {below.group(2)}x, {below.group(3)})")
