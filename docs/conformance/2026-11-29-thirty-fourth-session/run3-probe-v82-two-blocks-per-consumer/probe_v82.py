# Probe set v82 as it ran (appended to tests/gpu/gemm/probe.py on top of consumer_rows.diff; both
# taken out again: the configuration key consumer_rows was not kept).


def _v82_kind(m, n, k, dt, shipped):
    """v82's regions: "tall" (M >= 1024, N <= 512, at least 8 k-tiles of 128 bytes) and "big"
    (the shipped corpus's M, N >= 2048), K a multiple of 32 bytes; else None."""
    width = {"e4m3": 1, "bf16": 2}.get(dt)
    if width is None or k * width % 32 or -(-k * width // 128) < 8:
        return None
    if m >= 1024 and n <= 512:
        return "tall"
    if shipped and m >= 2048 and n >= 2048:
        return "big"
    return None


def candidates_v82(m, n, k, dt):
    """The default, then 256-row tiles on two consumer warpgroups of two 64-row blocks each
    (consumer_rows=128): tall, BN covering N in 1-4 column tiles (a multiple of 8, at most 136),
    alone and on a 2-CTA cluster along M; big, 256 x 128 alone and on the pair, and 256 x 128 on
    four warpgroups of one block (consumer_rows=64) beside it. One pass, deepest ring <= 16,
    register stores."""
    from fastswz.cuda import choose_plan
    from fastswz.cuda.codegen import normalize_config, supported

    base = normalize_config(choose_plan(m, n, k, dt, dt))
    out = [base]
    bk = 128 if dt == "e4m3" else 64
    common = {"a_dtype": dt, "b_dtype": dt, "bk": bk, "bm": 256, "split_k": 1, "stream_k": 0,
              "pingpong": False, "swap_ab": False, "epilogue": False, "out_dtype": "bf16"}

    def add(c):
        c = _fit(c)
        if c is not None:
            c = normalize_config(c)
            if supported(c) is None and c not in out:
                out.append(c)

    kind = _v82_kind(m, n, k, dt, True)
    widths = ([-(-(-(-n // t)) // 8) * 8 for t in (1, 2, 3, 4)] if kind == "tall" else [128])
    for bn in widths:
        if bn <= 136:
            for cm in (1, 2):
                add(dict(common, bn=bn, consumer_rows=128, cluster_m=cm))
    if kind == "big":
        add(dict(common, bn=128, consumer_rows=64, cluster_m=1))
    return out


def problems_v82():
    """Every corpus and seed 1-20 problem in :func:`_v82_kind`'s regions."""
    shipped = {key for f, key in _corpus_and_seeds_problems() if f == "gemm_corpus.json"}
    return [key for _, key in _corpus_and_seeds_1_20() if _v82_kind(*key, key in shipped)]


SETS["v82"] = (problems_v82, candidates_v82)
