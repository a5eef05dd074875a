"""Write (or check) ``src/fastswz/data/gemm_corpus.json``, the GEMM shape corpus of issue 27.

The corpus is data: every problem the benchmarks and the default plan are held to, with the
published model dimensions it was derived from and where each came from. This script is the one
place that turns those dimensions into problems, so the JSON never gets edited by hand:

    python tools/gemm_corpus.py            # rewrite the file
    python tools/gemm_corpus.py --check    # exit 1 if the committed file differs (a test runs this)
    python tools/gemm_corpus.py --fresh 7 --out fresh.json   # shapes nobody tuned for (below)

What goes in (``fastswz.corpus`` reads and validates it):

* the linear layers of published open LLMs, ``x @ W.T`` with ``x`` M x K (K-major) and ``W``
  N x K (K-major): N = output features, K = input features; Q, K and V fused into one GEMM, gate
  and up fused into one GEMM (the SwiGLU pair as inference engines run it), at the token counts
  ``TOKENS``. A shape two models share is one problem whose ``shared_by`` names the others;
* squares 512 .. 16384 (K-major, and the other majors in bf16 at 2048 and 4096); 8192^3 and
  16384^3 are also Llama 3 70B's and 405B's o projection at those token counts, and are listed
  in both buckets;
* ragged sizes that are multiples of nothing in particular (primes, 777, 1000, 3000 x 5000 x 1000);
* long-K problems with few output tiles (stream-K / split-K territory);

each in bf16 and e4m3 (fp8 operands K-major only: wgmma transposes 16-bit types alone), with a
bf16 output (``fastswz.cuda.default_out_dtype``).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "src" / "fastswz" / "data" / "gemm_corpus.json"

TOKENS = (1, 8, 16, 32, 64, 128, 512, 2048, 8192, 16384)
DTYPES = ("bf16", "e4m3")

# Published configuration values. Llama 3's FFN width is not stored in Meta's model arguments but
# derived by the reference model's rule (4 x dim, x 2/3, x ffn_dim_multiplier, rounded up to
# multiple_of); FFN_RULE below applies it, and the results equal the Llama 3 paper's table.
LLAMA_SOURCE = ("meta-llama/llama-models, models/llama3_1/api/sku_list.py (dim, n_heads, n_kv_heads, "
                "ffn_dim_multiplier, multiple_of) with the FFN width rule of "
                "models/llama3/reference_impl/model.py (FeedForward); the same values in 'The Llama 3 "
                "Herd of Models' (arXiv 2407.21783), Table 3, and the models' config.json "
                "(intermediate_size)")
GQA = ("hidden_size", "intermediate_size", "num_attention_heads", "num_key_value_heads", "head_dim")
MLA = ("hidden_size", "intermediate_size", "num_attention_heads", "q_lora_rank", "kv_lora_rank",
       "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim")


def ffn_rule(dim, multiplier, multiple_of):
    """Llama 3's FFN width: 4 dim, then 2/3 of it, then the multiplier, rounded up."""
    hidden = int(2 * (4 * dim) / 3)
    hidden = int(multiplier * hidden)
    return multiple_of * ((hidden + multiple_of - 1) // multiple_of)


MODELS = [
    {"model": "Llama 3 8B", "key": "llama3-8b", "attention": "gqa",
     "config": dict(zip(GQA, (4096, ffn_rule(4096, 1.3, 1024), 32, 8, 128))),
     "layers": ["qkv", "o", "gate_up", "down"], "source": LLAMA_SOURCE},
    {"model": "Llama 3 70B", "key": "llama3-70b", "attention": "gqa",
     "config": dict(zip(GQA, (8192, ffn_rule(8192, 1.3, 4096), 64, 8, 128))),
     "layers": ["qkv", "o", "gate_up", "down"], "source": LLAMA_SOURCE},
    {"model": "Llama 3 405B", "key": "llama3-405b", "attention": "gqa",
     "config": dict(zip(GQA, (16384, ffn_rule(16384, 1.2, 4096), 128, 8, 128))),
     "layers": ["qkv", "o", "gate_up", "down"], "source": LLAMA_SOURCE},
    {"model": "Mistral 7B", "key": "mistral-7b", "attention": "gqa",
     "config": dict(zip(GQA, (4096, 14336, 32, 8, 128))),
     "layers": ["qkv", "o", "gate_up", "down"],
     "source": ("'Mistral 7B' (arXiv 2310.06825), Table 1 (dim, hidden_dim, n_heads, n_kv_heads, "
                "head_dim); config.json of the Hugging Face repository mistralai/Mistral-7B-v0.1")},
    {"model": "Mixtral 8x7B", "key": "mixtral-8x7b", "attention": "gqa",
     "config": dict(zip(GQA, (4096, 14336, 32, 8, 128)), num_experts=8, experts_per_token=2),
     "layers": ["expert_gate_up", "expert_down"],
     "source": ("'Mixtral of Experts' (arXiv 2401.04088), Table 1 (dim, hidden_dim per expert, "
                "n_heads, n_kv_heads, head_dim, 8 experts, top 2); config.json of the Hugging Face "
                "repository mistralai/Mixtral-8x7B-v0.1. Only the expert FFN is listed: its "
                "attention is Mistral 7B's")},
    {"model": "Qwen 2.5 7B", "key": "qwen2.5-7b", "attention": "gqa",
     "config": dict(zip(GQA, (3584, 18944, 28, 4, 128))),
     "layers": ["qkv", "o", "gate_up", "down"],
     "source": ("config.json of the Hugging Face repository Qwen/Qwen2.5-7B (hidden_size, "
                "intermediate_size, num_attention_heads, num_key_value_heads; head_dim = "
                "hidden_size / num_attention_heads); the Qwen2.5 technical report (arXiv "
                "2412.15115), Table 1 (heads Q/KV 28/4)")},
    {"model": "Qwen 2.5 72B", "key": "qwen2.5-72b", "attention": "gqa",
     "config": dict(zip(GQA, (8192, 29568, 64, 8, 128))),
     "layers": ["qkv", "o", "gate_up", "down"],
     "source": ("config.json of the Hugging Face repository Qwen/Qwen2.5-72B (hidden_size, "
                "intermediate_size, num_attention_heads, num_key_value_heads; head_dim = "
                "hidden_size / num_attention_heads); the Qwen2.5 technical report (arXiv "
                "2412.15115), Table 1 (heads Q/KV 64/8)")},
    {"model": "DeepSeek-V3", "key": "deepseek-v3", "attention": "mla",
     "config": dict(zip(MLA, (7168, 18432, 128, 1536, 512, 128, 64, 128))),
     "layers": ["qkv_a", "q_b", "kv_b", "o", "gate_up", "down"],
     "source": ("deepseek-ai/DeepSeek-V3, inference/configs/config_671B.json (dim, inter_dim, "
                "n_heads, q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, "
                "v_head_dim) and the layer shapes of inference/model.py (MLA, MLP); the dense MLP "
                "is that of the first 3 layers (n_dense_layers)")},
    {"model": "DeepSeek-V2", "key": "deepseek-v2", "attention": "mla",
     "config": dict(zip(MLA, (5120, 12288, 128, 1536, 512, 128, 64, 128))),
     "layers": ["qkv_a", "q_b", "kv_b", "o", "gate_up", "down"],
     "source": ("deepseek-ai/DeepSeek-V3, inference/configs/config_236B.json (DeepSeek-V2's "
                "dimensions: dim, inter_dim, n_heads, q_lora_rank, kv_lora_rank; the head dims as "
                "V3's) and the 'DeepSeek-V2' paper (arXiv 2405.04434); the dense MLP is that of the "
                "first layer (n_dense_layers 1)")},
]

LAYERS = {
    "qkv": "fused Q, K and V projections: N = (num_attention_heads + 2 x num_key_value_heads) x "
           "head_dim, K = hidden_size",
    "o": "attention output projection: N = hidden_size, K = num_attention_heads x head_dim "
         "(v_head_dim for MLA)",
    "gate_up": "fused gate and up projections of the SwiGLU MLP, one GEMM: N = 2 x "
               "intermediate_size, K = hidden_size",
    "down": "MLP down projection: N = hidden_size, K = intermediate_size",
    "expert_gate_up": "one expert's fused gate (w1) and up (w3) projections: N = 2 x "
                      "intermediate_size, K = hidden_size; M = tokens routed to that expert",
    "expert_down": "one expert's down projection (w2): N = hidden_size, K = intermediate_size; "
                   "M = tokens routed to that expert",
    "qkv_a": "MLA: the query down-projection (wq_a) fused with the compressed key/value "
             "projection and its shared RoPE key (wkv_a): N = q_lora_rank + kv_lora_rank + "
             "qk_rope_head_dim, K = hidden_size",
    "q_b": "MLA query up-projection (wq_b): N = num_attention_heads x (qk_nope_head_dim + "
           "qk_rope_head_dim), K = q_lora_rank",
    "kv_b": "MLA key/value up-projection (wkv_b): N = num_attention_heads x (qk_nope_head_dim + "
            "v_head_dim), K = kv_lora_rank",
}

SQUARES = (512, 1024, 2048, 4096, 8192, 16384)
SQUARE_MAJORS = {2048: ("K/MN", "MN/K", "MN/MN"), 4096: ("K/MN", "MN/K", "MN/MN")}  # bf16 only
RAGGED = ((1000, 1000, 1000), (3000, 5000, 1000), (777, 777, 777), (96, 12288, 4096),
          (100, 3001, 2999), (7, 5003, 4099), (127, 8191, 1021), (2039, 4093, 1021),
          (4093, 4093, 4093), (8191, 1021, 4093), (509, 8191, 2039), (1237, 2731, 3571))
LONG_K = ((256, 256, 65536), (512, 512, 32768), (1024, 1024, 16384))

BUCKETS = {
    "decode": "a model layer at M <= 16 tokens (memory-bound: held to the DRAM roofline)",
    "small": "a model layer at 16 < M <= 128 tokens",
    "prefill": "a model layer at M > 128 tokens",
    "square": "M = N = K",
    "ragged": "not every one of M, N, K is a multiple of 64",
    "long_k": "K >= 16 x max(M, N): few output tiles, a long K loop",
}


def layer_shape(attention, c, layer):
    """(N, K) of one linear layer from a model's configuration."""
    h, inter, heads = c["hidden_size"], c["intermediate_size"], c["num_attention_heads"]
    if layer == "qkv":
        return (heads + 2 * c["num_key_value_heads"]) * c["head_dim"], h
    if layer == "o":
        return h, heads * (c["v_head_dim"] if attention == "mla" else c["head_dim"])
    if layer in ("gate_up", "expert_gate_up"):
        return 2 * inter, h
    if layer in ("down", "expert_down"):
        return h, inter
    if layer == "qkv_a":
        return c["q_lora_rank"] + c["kv_lora_rank"] + c["qk_rope_head_dim"], h
    if layer == "q_b":
        return heads * (c["qk_nope_head_dim"] + c["qk_rope_head_dim"]), c["q_lora_rank"]
    if layer == "kv_b":
        return heads * (c["qk_nope_head_dim"] + c["v_head_dim"]), c["kv_lora_rank"]
    raise ValueError(f"layer={layer!r} has no shape rule")


def token_bucket(m):
    return "decode" if m <= 16 else "small" if m <= 128 else "prefill"


def problems():
    out, seen = [], {}

    def add(name, model, layer, m, n, k, dt, a_major, b_major, bucket, who=None):
        # one problem per shape and kind: a shape two models share is listed once (shared_by);
        # a square that is also a model layer (8192^3, 16384^3) stays in both buckets
        key = (m, n, k, dt, a_major, b_major, model is None and bucket)
        if key in seen:
            seen[key]["shared_by"].append(who)
            return
        entry = {"name": name, "model": model, "layer": layer, "m": m, "n": n, "k": k,
                 "a_dtype": dt, "b_dtype": dt, "out_dtype": "bf16", "a_major": a_major,
                 "b_major": b_major, "bucket": bucket, "shared_by": []}
        seen[key] = entry
        out.append(entry)

    for spec in MODELS:
        for layer in spec["layers"]:
            n, k = layer_shape(spec["attention"], spec["config"], layer)
            for dt in DTYPES:
                for m in TOKENS:
                    add(f"{spec['key']}.{layer}.m{m}.{dt}", spec["model"], layer, m, n, k, dt,
                        "K", "K", token_bucket(m), f"{spec['model']}/{layer}")
    for dt in DTYPES:
        for s in SQUARES:
            add(f"square.{s}.{dt}", None, None, s, s, s, dt, "K", "K", "square")
            if dt == "bf16":
                for majors in SQUARE_MAJORS.get(s, ()):
                    a, b = majors.split("/")
                    add(f"square.{s}.{dt}.{a}-{b}", None, None, s, s, s, dt, a, b, "square")
        for m, n, k in RAGGED:
            add(f"ragged.{m}x{n}x{k}.{dt}", None, None, m, n, k, dt, "K", "K", "ragged")
        for m, n, k in LONG_K:
            add(f"long_k.{m}x{n}x{k}.{dt}", None, None, m, n, k, dt, "K", "K", "long_k")
    return out


def fresh_corpus(seed, layers=80, tokens_per_layer=3):
    """A corpus of shapes nobody tuned for: ``layers`` random layers (N, K), each at
    ``tokens_per_layer`` random token counts M, from ``random.Random(seed)`` (the same seed, the
    same problems). The shipped corpus's rules were fitted on model dimensions at fixed token
    counts; these come from the same ranges but land anywhere: M uniform over 1 .. 16 (the decode
    bucket) in a third of the draws, else log-uniform over 17 .. 16384; N and K log-uniform over
    256 .. 32768 and, per layer, a multiple of 128, a multiple of 16 or any integer (ragged: fp8
    is then timed against bf16 cuBLAS); A's type bf16 or e4m3. Every problem is a layer of one
    synthetic model (``fresh-SEED``), so the corpus's bucket rule (by M) and its checks apply."""
    import random
    rng = random.Random(seed)

    def extent(style):
        x = int(round(math.exp(rng.uniform(math.log(256), math.log(32768)))))
        return {"aligned": max(128, x // 128 * 128), "16": max(16, x // 16 * 16), "ragged": x}[style]

    key = f"fresh-{seed}"
    names, rows = [], []
    for i in range(layers):
        style = rng.choice(("aligned", "16", "ragged"))
        n, k = extent(style), extent(style)
        dt = rng.choice(DTYPES)
        layer = f"l{i}"
        names.append(layer)
        ms = set()
        while len(ms) < tokens_per_layer:
            ms.add(rng.randint(1, 16) if rng.random() < 1 / 3
                   else int(round(math.exp(rng.uniform(math.log(17), math.log(16384))))))
        for m in sorted(ms):
            rows.append({"name": f"{key}.{layer}.m{m}.{dt}", "model": key, "layer": layer, "m": m,
                         "n": n, "k": k, "a_dtype": dt, "b_dtype": dt, "out_dtype": "bf16",
                         "a_major": "K", "b_major": "K", "bucket": token_bucket(m), "shared_by": []})
    header = {
        "format": "fastswz-gemm-corpus", "version": 1,
        "description": (f"random GEMM shapes, not the shipped corpus (tools/gemm_corpus.py --fresh "
                        f"{seed}): {layers} layers x {tokens_per_layer} token counts; M uniform "
                        f"over 1-16 in a third of the draws, else log-uniform over 17-16384; N "
                        f"and K log-uniform over 256-32768, per layer a multiple of 128, of 16 or "
                        f"of nothing; bf16 or e4m3"),
        "buckets": BUCKETS,
        "models": [{"model": key, "key": key, "layers": names,
                    "source": f"random.Random({seed}) in tools/gemm_corpus.py fresh_corpus"}],
    }
    return header, rows


def corpus():
    header = {
        "format": "fastswz-gemm-corpus",
        "version": 1,
        "description": ("GEMM problems D = A x B (x @ W.T of a linear layer: A is M x K, the "
                        "activations; B is W.T, W N x K; N = output features, K = input "
                        "features) that fastswz's default plan is held to against cuBLAS (issue "
                        "27). Written by tools/gemm_corpus.py; read by fastswz.corpus."),
        "majors": ("a_major K: A is M x K row-major; b_major K: W is N x K row-major (B = W.T); "
                   "MN: the transposes. fp8 operands are K-major only (wgmma transposes 16-bit "
                   "types alone)"),
        "shapes": ("a shape two models share is one problem, its shared_by naming the others; the "
                   "squares 8192^3 and 16384^3 are also Llama 3 70B's and 405B's o projection at "
                   "those token counts and are listed in both buckets"),
        "tokens": list(TOKENS),
        "dtypes": list(DTYPES),
        "buckets": BUCKETS,
        "layers": LAYERS,
        "models": [{k: spec[k] for k in ("model", "key", "attention", "config", "layers", "source")}
                   for spec in MODELS],
    }
    return header, problems()


def dumps(header, rows):
    """The file's text: the header indented, one problem a line (diffs stay readable)."""
    head = json.dumps(header, indent=1)[:-2]  # drop the closing brace
    lines = [json.dumps(r, separators=(", ", ": ")) for r in rows]
    return head + ',\n "problems": [\n  ' + ",\n  ".join(lines) + "\n ]\n}\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true", help="compare with the committed file; exit 1 if it differs")
    p.add_argument("--out", default=str(OUT), help=f"where to write (default {OUT})")
    p.add_argument("--fresh", type=int, metavar="SEED", default=None,
                   help="write random shapes nobody tuned for (fresh_corpus) instead; needs --out")
    p.add_argument("--layers", type=int, default=80, help="with --fresh: random layers (default 80)")
    args = p.parse_args(argv)
    if args.fresh is not None:
        if args.check or Path(args.out) == OUT:
            p.error("--fresh writes a corpus of its own: give --out FILE (not the shipped corpus), no --check")
        if args.layers < 1:
            p.error("--layers must be >= 1")
        header, rows = fresh_corpus(args.fresh, args.layers)
        Path(args.out).write_text(dumps(header, rows), encoding="utf-8")
        print(f"gemm_corpus: wrote {len(rows)} random problems (seed {args.fresh}) to {args.out}")
        return 0
    text = dumps(*corpus())
    path = Path(args.out)
    if args.check:
        have = path.read_text(encoding="utf-8") if path.exists() else None
        if have != text:
            print(f"gemm_corpus: {path} differs from what tools/gemm_corpus.py writes: rerun it",
                  file=sys.stderr)
            return 1
        print(f"gemm_corpus: {path} is current ({len(json.loads(text)['problems'])} problems)")
        return 0
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    print(f"gemm_corpus: wrote {len(json.loads(text)['problems'])} problems to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
