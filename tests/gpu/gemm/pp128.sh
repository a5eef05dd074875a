# Ping-pong with two MN blocks per consumer warpgroup (BM = 128): correctness on integers, then
# the fused-epilogue parts beside the cooperative 128 x 256 plan (H100/H200, one call).
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache
python3 -m pip install -q --no-index --no-deps --target /tmp/bt .whl/*.whl >/dev/null 2>&1
PYTHONPATH=/tmp/bt python3 setup.py -q build_ext --inplace >/tmp/build.log 2>&1 || { tail /tmp/build.log; exit 1; }
P1='{"bm":128,"bn":128,"pingpong":true,"epilogue":false,"epilogue_n":0,"stages":6}'
P2='{"bm":128,"bn":128,"pingpong":true,"epilogue":false,"epilogue_n":0,"stages":6,"cluster_m":2}'
for p in "$P1" "$P2"; do python3 tests/gpu/gemm/epi_parts.py --plan "$p" --precompile & done
python3 tests/gpu/gemm/epi_parts.py --precompile & wait
E='"a_dtype":"e4m3","b_dtype":"e4m3","bm":128,"bn":128,"bk":128,"stages":6,"pingpong":true'
B='"bm":128,"bn":128,"bk":64,"stages":6,"pingpong":true'
C="{$E};{$E,\"cluster_m\":2};{$E,\"bias\":\"bf16\",\"activation\":\"gelu_tanh\",\"out_dtype\":\"e4m3\",\"amax\":true};{$B};{$B,\"cluster_m\":2,\"residual\":\"bf16\",\"activation\":\"silu\"};{$B,\"bn\":96}"
PRECOMPILE=1 python3 tests/gpu/gemm/debug_cfg.py "$C" '{"FSW_PP":1}' 1,1,1
timeout 120 python3 tests/gpu/gemm/debug_cfg.py "$C" '{"FSW_PP":1}' 777,1500,1000 2>&1 | tail -12
python3 tests/gpu/gemm/epi_parts.py
python3 tests/gpu/gemm/epi_parts.py --plan "$P1"
python3 tests/gpu/gemm/epi_parts.py --plan "$P2"
