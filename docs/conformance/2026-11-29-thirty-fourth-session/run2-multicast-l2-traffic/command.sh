# tests/gpu/gemm/_mc.py is this folder's mc.py (code 97e4579)
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
t=$(date +%s); timeout 120 python3 tests/gpu/gemm/_mc.py make > /tmp/r/make.txt 2>&1; T make $? $t
t=$(date +%s); timeout 120 python3 tests/gpu/gemm/_mc.py time /tmp/r/time.json > /tmp/r/time.txt 2>&1; T time $? $t
M=gpu__time_duration.sum,lts__t_bytes.sum,dram__bytes_read.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed
t=$(date +%s); timeout 150 ncu --profile-from-start off --csv --page raw --metrics "$M" python3 tests/gpu/gemm/_mc.py ncu > /tmp/r/ncu.csv 2> /tmp/r/ncu.err; T ncu $? $t
M2=gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum
t=$(date +%s); timeout 150 ncu --profile-from-start off --csv --page raw --metrics "$M2" python3 tests/gpu/gemm/_mc.py ncu > /tmp/r/ncu2.csv 2> /tmp/r/ncu2.err; T ncu2 $? $t
cd /tmp && tar czf $OUT/r.tgz r
