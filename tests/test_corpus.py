"""The GEMM shape corpus (fastswz/data/gemm_corpus.json) and its loader, fastswz.corpus.

The file is checked against its own header: every model layer's N and K are recomputed here from
the header's published dimensions with the layer rules (a second implementation, not the
generator's), every model and layer appears at every token count in both types, buckets follow M,
nothing is listed twice, and the committed file is what tools/gemm_corpus.py writes.
"""

from __future__ import annotations

import copy
import importlib.resources
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

import fastswz
from fastswz.corpus import (BUCKETS, CORPUS_PATH, GemmProblem, corpus_header, load_corpus,
                            token_bucket, validate_corpus)
from fastswz.errors import CorpusError

ROOT = Path(__file__).resolve().parents[1]
RAW_TEXT = CORPUS_PATH.read_text(encoding="utf-8")
RAW = json.loads(RAW_TEXT)
PROBLEMS = load_corpus()
HEADER = corpus_header()


def _shape(model, layer):
    """(N, K) of a layer from the header's configuration (the rules its "layers" text states)."""
    c = model["config"]
    h, f, q = c["hidden_size"], c["intermediate_size"], c["num_attention_heads"]
    mla = model["attention"] == "mla"
    return {
        "qkv": lambda: ((q + 2 * c["num_key_value_heads"]) * c["head_dim"], h),
        "o": lambda: (h, q * (c["v_head_dim"] if mla else c["head_dim"])),
        "gate_up": lambda: (2 * f, h),
        "expert_gate_up": lambda: (2 * f, h),
        "down": lambda: (h, f),
        "expert_down": lambda: (h, f),
        "qkv_a": lambda: (c["q_lora_rank"] + c["kv_lora_rank"] + c["qk_rope_head_dim"], h),
        "q_b": lambda: (q * (c["qk_nope_head_dim"] + c["qk_rope_head_dim"]), c["q_lora_rank"]),
        "kv_b": lambda: (q * (c["qk_nope_head_dim"] + c["v_head_dim"]), c["kv_lora_rank"]),
    }[layer]()


def test_ships_inside_the_package():
    res = importlib.resources.files("fastswz").joinpath("data/gemm_corpus.json")
    assert res.is_file()
    assert json.loads(res.read_text(encoding="utf-8")) == RAW


def test_at_least_300_problems_in_both_types():
    assert len(PROBLEMS) >= 300
    by_type = Counter(p.a_dtype for p in PROBLEMS)
    assert set(by_type) == {"bf16", "e4m3"} and min(by_type.values()) >= 150
    assert all(p.a_dtype == p.b_dtype and p.out_dtype == "bf16" for p in PROBLEMS)


def test_schema_of_every_row():
    keys = {"name", "model", "layer", "m", "n", "k", "a_dtype", "b_dtype", "out_dtype", "a_major",
            "b_major", "bucket", "shared_by"}
    assert all(set(row) == keys for row in RAW["problems"])
    assert [p.name for p in PROBLEMS] == [row["name"] for row in RAW["problems"]]
    for p in PROBLEMS:
        assert isinstance(p, GemmProblem)
        assert all(type(x) is int and x > 0 for x in (p.m, p.n, p.k)), p.name
        assert p.bucket in BUCKETS
        assert p.a_major in ("K", "MN") and p.b_major in ("K", "MN")
        if p.a_dtype == "e4m3":
            assert (p.a_major, p.b_major) == ("K", "K"), p.name


def test_every_source_is_named():
    assert HEADER["format"] == "fastswz-gemm-corpus"
    names = [m["model"] for m in HEADER["models"]]
    for want in ("Llama 3 8B", "Llama 3 70B", "Llama 3 405B", "Mistral 7B", "Mixtral 8x7B",
                 "Qwen 2.5 7B", "Qwen 2.5 72B", "DeepSeek-V3", "DeepSeek-V2"):
        assert want in names
    for m in HEADER["models"]:
        assert len(m["source"]) > 40, m["model"]
        for layer in m["layers"]:
            assert layer in HEADER["layers"], layer


def test_llama_ffn_widths_are_the_published_ones():
    # The generator derives them by Meta's rule; the Llama 3 paper (Table 3) prints them.
    ffn = {m["model"]: m["config"]["intermediate_size"] for m in HEADER["models"]}
    assert (ffn["Llama 3 8B"], ffn["Llama 3 70B"], ffn["Llama 3 405B"]) == (14336, 28672, 53248)


def test_every_model_layer_at_every_token_count_in_both_types():
    found = Counter()
    for p in PROBLEMS:
        for who in ([f"{p.model}/{p.layer}"] if p.model else []) + list(p.shared_by):
            found[who, p.m, p.a_dtype] += 1
    for model in HEADER["models"]:
        for layer in model["layers"]:
            for m in HEADER["tokens"]:
                for dt in HEADER["dtypes"]:
                    assert found[f"{model['model']}/{layer}", m, dt] == 1, (model["model"], layer, m, dt)
    assert HEADER["tokens"] == [1, 8, 16, 32, 64, 128, 512, 2048, 8192, 16384]


def test_layer_shapes_follow_the_header():
    models = {m["model"]: m for m in HEADER["models"]}
    for p in PROBLEMS:
        for who in ([f"{p.model}/{p.layer}"] if p.model else []) + list(p.shared_by):
            model, layer = who.split("/")
            assert _shape(models[model], layer) == (p.n, p.k), (p.name, who)
            assert (p.a_major, p.b_major) == ("K", "K")  # x @ W.T: both K-major


def test_no_duplicates():
    assert len({p.name for p in PROBLEMS}) == len(PROBLEMS)
    model_shapes = [p.key for p in PROBLEMS if p.model]
    assert len(set(model_shapes)) == len(model_shapes)
    for bucket in ("square", "ragged", "long_k"):
        keys = [p.key for p in PROBLEMS if p.bucket == bucket]
        assert len(set(keys)) == len(keys)


def test_buckets_are_consistent_with_the_shapes():
    for p in PROBLEMS:
        if p.model:
            want = "decode" if p.m <= 16 else "small" if p.m <= 128 else "prefill"
            assert p.bucket == want == token_bucket(p.m), p.name
        elif p.bucket == "square":
            assert p.m == p.n == p.k
        elif p.bucket == "ragged":
            assert any(x % 64 for x in (p.m, p.n, p.k))
        else:
            assert p.bucket == "long_k" and p.k >= 16 * max(p.m, p.n)
    assert {p.bucket for p in PROBLEMS} == set(BUCKETS)
    squares = {p.m for p in PROBLEMS if p.bucket == "square"}
    assert squares == {512, 1024, 2048, 4096, 8192, 16384}
    majors = {(p.a_major, p.b_major) for p in PROBLEMS if p.bucket == "square"}
    assert majors == {("K", "K"), ("K", "MN"), ("MN", "K"), ("MN", "MN")}


def test_ragged_sizes_are_multiples_of_nothing_in_particular():
    ragged = [p for p in PROBLEMS if p.bucket == "ragged"]
    assert len(ragged) >= 20
    assert any(p.k % 16 for p in ragged)      # where torch._scaled_mm refuses e4m3
    assert sum(all(x % 8 for x in (p.m, p.n, p.k)) for p in ragged) >= 8


def test_the_committed_file_is_what_the_generator_writes():
    tool = ROOT / "tools" / "gemm_corpus.py"
    r = subprocess.run([sys.executable, str(tool), "--check", "--out", str(CORPUS_PATH)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


def test_fresh_shapes_are_seeded_valid_and_unlike_the_corpus(tmp_path):
    """``--fresh SEED``: random shapes nobody tuned for (issue 27's "shapes that nobody has shown
    you"), the same file for the same seed, a valid corpus with every bucket by M."""
    tool = ROOT / "tools" / "gemm_corpus.py"
    files = []
    for seed, name in ((7, "a.json"), (7, "b.json"), (8, "c.json")):
        r = subprocess.run([sys.executable, str(tool), "--fresh", str(seed), "--layers", "40",
                            "--out", str(tmp_path / name)], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        assert f"wrote 120 random problems (seed {seed})" in r.stdout
        files.append((tmp_path / name).read_text(encoding="utf-8"))
    assert files[0] == files[1] and files[0] != files[2]
    fresh = load_corpus(tmp_path / "a.json")
    assert len(fresh) == 120 and len({p.name for p in fresh}) == 120
    assert {p.bucket for p in fresh} == {"decode", "small", "prefill"}
    assert all(p.bucket == token_bucket(p.m) and 1 <= p.m <= 16384 for p in fresh)
    assert all(256 <= p.n <= 32768 and 256 <= p.k <= 32768 for p in fresh)
    assert 20 <= sum(p.bucket == "decode" for p in fresh) <= 60     # a third of the draws
    assert {p.a_dtype for p in fresh} == {"bf16", "e4m3"}
    assert any(p.k % 16 for p in fresh) and any(p.k % 128 == 0 for p in fresh)   # ragged and aligned
    shipped = {(p.m, p.n, p.k) for p in PROBLEMS}
    assert sum((p.m, p.n, p.k) in shipped for p in fresh) <= 2
    for bad in (["--fresh", "7"], ["--fresh", "7", "--check", "--out", str(tmp_path / "x.json")],
                ["--fresh", "7", "--layers", "0", "--out", str(tmp_path / "x.json")]):
        r = subprocess.run([sys.executable, str(tool), *bad], capture_output=True, text=True, timeout=120)
        assert r.returncode == 2 and ("--out" in r.stderr or "--layers" in r.stderr), r.stderr
    assert CORPUS_PATH.read_text(encoding="utf-8") == RAW_TEXT


def test_the_loader_imports_no_gpu_stack():
    code = ("import sys, fastswz.corpus as c; c.load_corpus(); "
            "bad = [m for m in sys.modules if m.split('.')[0] in ('torch', 'cupy', 'cuda') "
            "or m.startswith('fastswz.cuda')]; print(bad); sys.exit(1 if bad else 0)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


# -- selections -------------------------------------------------------------------------------------
def test_filters():
    decode = load_corpus(bucket="decode")
    assert decode and all(p.bucket == "decode" and p.m <= 16 for p in decode)
    e4m3 = load_corpus(dtype="e4m3")
    assert e4m3 and all(p.a_dtype == "e4m3" for p in e4m3)
    both = load_corpus(dtype=["bf16"], bucket=("square", "long_k"))
    assert {p.bucket for p in both} == {"square", "long_k"} and {p.a_dtype for p in both} == {"bf16"}
    assert len(load_corpus(dtype=["bf16", "e4m3"])) == len(PROBLEMS)
    assert [p.name for p in load_corpus(bucket="decode", dtype="e4m3")] == \
        [p.name for p in decode if p.a_dtype == "e4m3"]


@pytest.mark.parametrize("kwargs, cls, text", [
    ({"dtype": "f16"}, CorpusError, "dtype='f16' is not in the corpus"),
    ({"bucket": "huge"}, CorpusError, "bucket='huge' is not a corpus bucket"),
    ({"bucket": ["decode", "tiny"]}, CorpusError, "bucket=['decode', 'tiny']"),
    ({"dtype": 16}, fastswz.FastswzTypeError, "dtype=16 must be a string"),
    ({"bucket": []}, fastswz.FastswzTypeError, "bucket=[] must be a string"),
])
def test_bad_filters(kwargs, cls, text):
    with pytest.raises(cls) as info:
        load_corpus(**kwargs)
    assert text in str(info.value)


# -- validation -------------------------------------------------------------------------------------
def _one(**change):
    row = dict(RAW["problems"][0], **change)
    return dict(RAW, problems=[row])


@pytest.mark.parametrize("change, text", [
    ({"m": 0}, "m=0 must be a positive int"),
    ({"n": -4}, "n=-4 must be a positive int"),
    ({"k": 2**31}, "k=2147483648 must be a positive int of at most 2**31 - 1"),
    ({"k": 64.0}, "k=64.0 must be a positive int"),
    ({"m": True}, "m=True must be a positive int"),
    ({"a_dtype": "fp16"}, "a_dtype='fp16' is not an sm90 operand type"),
    ({"b_dtype": "e2m1"}, "b_dtype='e2m1' is not an sm90 operand type"),
    ({"out_dtype": "e4m3"}, "out_dtype='e4m3' is not an output type"),
    ({"a_major": "M"}, "a_major='M' must be 'K' or 'MN'"),
    ({"b_major": "MN", "b_dtype": "e4m3", "a_dtype": "e4m3"}, "b_major='MN' with b_dtype='e4m3'"),
    ({"bucket": "decoding"}, "bucket='decoding' is not one of"),
    ({"bucket": "prefill"}, "bucket='prefill' but m=1 tokens is 'decode'"),
    ({"model": "Llama 4"}, "model='Llama 4', layer='qkv' is not a layer of a model in the header"),
    ({"layer": None}, "model='Llama 3 8B', layer=None is not a layer"),
    ({"model": None, "layer": None, "bucket": "decode"}, "bucket='decode' does not fit the synthetic problem"),
    ({"model": None, "layer": None, "bucket": "square"}, "does not fit the synthetic problem 1 x 6144 x 4096: M = N = K"),
    ({"shared_by": ["Mistral 7B/mlp"]}, "shared_by=['Mistral 7B/mlp'] must be a list"),
    ({"shared_by": "Mistral 7B/qkv"}, "shared_by='Mistral 7B/qkv' must be a list"),
])
def test_a_bad_field_names_itself(change, text):
    with pytest.raises(CorpusError) as info:
        validate_corpus(_one(**change))
    assert text in str(info.value)
    assert str(info.value).startswith("corpus problem 0 (")


def test_keys_missing_or_unknown():
    data = _one()
    del data["problems"][0]["bucket"]
    data["problems"][0]["tokens"] = 1
    with pytest.raises(CorpusError, match=r"missing \['bucket'\], unknown \['tokens'\]"):
        validate_corpus(data)


def test_listed_twice():
    data = copy.deepcopy(RAW)
    data["problems"].append(dict(data["problems"][0]))
    with pytest.raises(CorpusError, match="is listed twice"):
        validate_corpus(data)
    data["problems"][-1]["name"] = "again"
    with pytest.raises(CorpusError, match="is the same problem as 'llama3-8b.qkv.m1.bf16'"):
        validate_corpus(data)


@pytest.mark.parametrize("data, text", [
    ([], "the top level is a list"),
    (dict(RAW, format="csv"), "format='csv'"),
    (dict(RAW, version=2), "version=2"),
    (dict(RAW, models={"a": 1}), "models={'a': 1} is not a list"),
    (dict(RAW, problems=None), "problems=None is not a list"),
])
def test_a_bad_header(data, text):
    with pytest.raises(CorpusError) as info:
        validate_corpus(data)
    assert text in str(info.value) and "a corpus is the JSON object" in str(info.value)


def test_a_file_that_does_not_read(tmp_path):
    with pytest.raises(CorpusError, match="cannot read it"):
        load_corpus(tmp_path / "none.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(CorpusError, match="bad.json: cannot read it"):
        load_corpus(bad)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_one()))
    assert [p.name for p in load_corpus(good)] == [RAW["problems"][0]["name"]]


def test_problem_arithmetic():
    p = GemmProblem("x", None, None, 3, 5, 7, "e4m3", "e4m3", "bf16", "K", "K", "ragged")
    assert p.flops == 2 * 3 * 5 * 7
    assert p.bytes == 3 * 7 * 1 + 5 * 7 * 1 + 3 * 5 * 2
    q = GemmProblem("y", None, None, 3, 5, 7, "bf16", "bf16", "f32", "MN", "K", "ragged")
    assert q.bytes == 3 * 7 * 2 + 5 * 7 * 2 + 3 * 5 * 4
    assert q.key != p.key
