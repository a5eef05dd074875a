rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
V='[{"bn":160,"stages":5},{"bn":160,"stages":4},{"bn":160,"stages":6,"epilogue_n":32},{"bn":192,"stages":4},{"bn":192,"stages":4,"epilogue_n":64},{"bn":192,"stages":5,"epilogue_n":64},{"bn":96,"stages":6}]'
U='[{"bn":128,"bk":128,"stages":6,"epilogue_n":0},{"bn":160,"bk":128,"stages":5,"epilogue_n":0},{"bn":192,"bk":128,"stages":4,"epilogue_n":64}]'
BS=$(head -5 tests/gpu/gemm/ab_block_specs.txt); US=$(cat tests/gpu/gemm/ab_block_unscaled_specs.txt)
cat > /tmp/pre.py <<'PY'
import json, sys
sys.path.insert(0, "tests/gpu/gemm")
from ab_defines import default_plans
from fastswz.cuda import compile_many, normalize_config, supported
cfgs = []
for vjson, specs in ((sys.argv[1], sys.argv[2].split()), (sys.argv[3], sys.argv[4].split())):
    for m, n, k, dt, base in default_plans(specs):
        for v in [{}] + json.loads(vjson):
            c = normalize_config(dict(base, **v))
            if supported(c) is None: cfgs.append(c)
import sys as _s; print(len(cfgs), "configs", file=_s.stderr)
ks = compile_many(cfgs, jobs=16)
print(sum(not hasattr(k, "cubin") for k in ks), "failed", [str(k)[:300] for k in ks if not hasattr(k, "cubin")][:3])
PY
timeout 150 python3 /tmp/pre.py "$V" "$BS" "$U" "$US" > /tmp/r/precompile.txt 2>&1; echo "precompile $?"; tail -3 /tmp/r/precompile.txt
timeout 150 python3 tests/gpu/gemm/ab_configs.py "$V" $BS > /tmp/r/ab_block.txt 2>&1; echo "ab_block $?"
timeout 60 python3 tests/gpu/gemm/ab_configs.py "$U" $US > /tmp/r/ab_unscaled.txt 2>&1; echo "ab_unscaled $?"
cat /tmp/r/ab_block.txt /tmp/r/ab_unscaled.txt | cut -c1-1500
timeout 200 python3 -m pytest -q -p no:cacheprovider --tb=short -rfE tests/test_gpu_epilogue.py -k "block_scaled or runtime_check" > /tmp/r/tests.txt 2>&1; echo "tests $?"; tail -5 /tmp/r/tests.txt
cd /tmp && tar czf $OUT/r.tgz r
