rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
V='[{"bn":128,"epilogue_n":0,"stages":6},{"bn":128,"epilogue_n":0,"stages":5}]'
HS=$(cat tests/gpu/gemm/ab_block_heldout_27.txt); US=$(tail -5 tests/gpu/gemm/ab_block_unscaled_specs.txt); BS=$(head -5 tests/gpu/gemm/ab_block_specs.txt)
cat > /tmp/pre.py <<'PY'
import json, sys
sys.path.insert(0, "tests/gpu/gemm")
from ab_defines import default_plans
from fastswz.cuda import compile_many, normalize_config, supported
cfgs = []
for vjson, specs in zip(sys.argv[1::2], sys.argv[2::2]):
    for m, n, k, dt, base in default_plans(specs.split()):
        for v in [{}] + json.loads(vjson):
            c = normalize_config(dict(base, **v))
            if supported(c) is None: cfgs.append(c)
ks = compile_many(cfgs, jobs=16)
print(len(cfgs), "configs,", sum(not hasattr(k, "cubin") for k in ks), "failed", [str(k)[:300] for k in ks if not hasattr(k, "cubin")][:3])
PY
timeout 150 python3 /tmp/pre.py "$V" "$HS" '[]' "$US" '[]' "$BS" > /tmp/r/precompile.txt 2>&1; echo "precompile $?"; tail -2 /tmp/r/precompile.txt
timeout 200 python3 tests/gpu/gemm/ab_configs.py "$V" $HS > /tmp/r/ab_heldout.txt 2>&1; echo "ab_heldout $?"
timeout 60 python3 tests/gpu/gemm/ab_configs.py '[]' $US > /tmp/r/ab_unscaled.txt 2>&1; echo "ab_unscaled $?"
timeout 60 python3 tests/gpu/gemm/ab_configs.py '[]' $BS > /tmp/r/ab_block_default.txt 2>&1; echo "ab_block_default $?"
cat /tmp/r/ab_heldout.txt /tmp/r/ab_unscaled.txt /tmp/r/ab_block_default.txt | sed 's/"epilogue_stages.*"out_dtype": "bf16"}//' | cut -c1-400
timeout 150 python3 -m pytest -q -p no:cacheprovider --tb=short -rfE tests/test_gpu_epilogue.py -k "block or runtime_check or default" > /tmp/r/tests.txt 2>&1; echo "tests $?"; tail -3 /tmp/r/tests.txt
cd /tmp && tar czf $OUT/r.tgz r
