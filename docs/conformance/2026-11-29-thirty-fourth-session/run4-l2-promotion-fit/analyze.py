"""Run 4's summary: each promotion against the two 256-byte runs (their geometric mean per
problem), by whether A's rows (K x element bytes) are on the 128-byte line; cuBLAS in each run as
the gauge. From this folder: python3 analyze.py"""
import gzip, json, glob, math
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
def load(pat):
    return {(tuple(p["shape"]), p["dtype"]): p for p in json.load(gzip.open(glob.glob(pat + "*.json.gz")[0]))}
A = [load("promo3-1795973385"), load("promo3-1795973436")]
for name, label in (("promo0", "none"), ("promo1", "64B"), ("promo2", "128B"), ("promo3-1795973436", "256B again")):
    X = load(name)
    for on in (True, False):
        v, cb = [], []
        for k, p in X.items():
            (m, n, kk), dt = k
            if ((kk * (1 if dt == "e4m3" else 2)) % 128 == 0) != on:
                continue
            t256 = (A[0][k]["rows"][0]["ms"] * A[1][k]["rows"][0]["ms"]) ** 0.5
            v.append(t256 / p["rows"][0]["ms"])
            cb.append((A[0][k]["cublas_ms"] * A[1][k]["cublas_ms"]) ** 0.5 / p["cublas_ms"])
        print(f"{label:10s} rows {'on ' if on else 'off'} the line: {len(v):3d} problems, {g(v):.4f}x "
              f"(cuBLAS gauge {g(cb):.4f}), faster by > 3%: {sum(x > 1.03 for x in v)}, slower: {sum(x < 0.97 for x in v)}")
