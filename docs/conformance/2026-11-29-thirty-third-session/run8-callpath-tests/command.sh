# after the cluster bit-identity tests moved to one helper (_same_bits_as_one_cta); no .whl carried
bash tests/gpu/run_batch.sh > /tmp/b.txt 2>&1; export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache; timeout 300 python3 -m pytest -q -p no:cacheprovider -p no:logging --tb=short -rfE tests/test_gpu_callpath.py 2>&1 | tail -5
