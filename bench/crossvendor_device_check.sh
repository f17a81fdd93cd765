#!/usr/bin/env bash
# The AMD schedules on the lent H100 (issue 14), one `run` call (carry .device):
#
#   here:    WARPSCHED_CACHE_DIR=.device/cache .venv/bin/python bench/crossvendor_device.py prepare
#   device:  bash bench/crossvendor_device_check.sh
#
# the GPU tests, then bench/crossvendor_device.py run (correctness, mutations, throughput) and
# masks (the wrong elements of C of each racy case, for bench/crossvendor_attribution.py), then
# compute-sanitizer racecheck and synccheck on every schedule and racecheck on each mutation
# (one launch each, K-loop iterations included).  Logs and masks.npz go to $OUT when it is set.
set -u
ln -sfn "$PWD/compiler" /tmp/warpsched
export PYTHONPATH=/tmp WARPSCHED_CACHE_DIR=.device/cache
out=${OUT:-/tmp}
status=0
step() {
  echo "== $*"
  "$@"
  local rc=$?
  [ "$rc" != 0 ] && echo "== FAILED ($rc): $*" && [ "$status" = 0 ] && status=$rc
  return 0
}
step timeout 60 python3 -m pytest -q -p no:cacheprovider tests/test_crossvendor_gpu.py
step timeout 120 python3 bench/crossvendor_device.py run
step timeout 120 python3 bench/crossvendor_device.py masks "$out/masks.npz"
for case in s4_strict s1_strict s4_strict_mn s1_strict_a_col s4 s1_fixed s1_fixed_bk32 s1_golden; do
  for tool in racecheck synccheck; do
    step timeout 60 compute-sanitizer --tool "$tool" --error-exitcode 3 --report-api-errors no \
      python3 bench/crossvendor_device.py one "$case" 512,512,384 1
  done
done
for case in s4_strict_weakened_wait_vm s4_strict_prefetch_into_live_stage s1_strict_removed_barrier; do
  step timeout 60 compute-sanitizer --tool racecheck --error-exitcode 3 --report-api-errors no \
    --print-limit 3 python3 bench/crossvendor_device.py one "$case" 512,512,384 1
done
exit "$status"
