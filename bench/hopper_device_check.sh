#!/usr/bin/env bash
# A device session's checks of the Hopper GEMM on the lent GPU machine (CUDA, torch and
# compute-sanitizer, no MLIR toolchain), each part one `run` call under its 10-minute limit:
#
#   here:    WARPSCHED_CACHE_DIR=.device/cache .venv/bin/python bench/gemm_vs_cublas.py prepare
#            WARPSCHED_CACHE_DIR=.device/cache .venv/bin/python bench/fused_epilogue_vs_torch.py prepare
#   device:  bash bench/hopper_device_check.sh checks        (carry .device)
#            bash bench/hopper_device_check.sh bench [quick]
#            bash bench/hopper_device_check.sh fused-checks
#            bash bench/hopper_device_check.sh any-checks
#            bash bench/hopper_device_check.sh uneven-checks
#            bash bench/hopper_device_check.sh fused [quick]
#            bash bench/hopper_device_check.sh ncu
#
# checks: the GPU tests (every configuration, 2x1 clusters included, and every fused-epilogue
#         variant) against float64 torch, then compute-sanitizer memcheck, racecheck and
#         synccheck on one small launch of each consumer mode, epilogue and cluster shape (each
#         launch also checks its result);
# any-checks: gemm() on every kind of matrix torch.matmul takes (unaligned, strided, batched,
#         fp16, empty, a column-major out), the swap-AB kernels (column-major C), the custom op
#         under torch.compile and a CUDA graph, then memcheck and
#         racecheck on the unaligned, stride-0, batched, split-K and one-wave ladder paths, all
#         three tools on gemm()'s reduce-scatter picks and on the clustered stream-K kernel;
# uneven-checks: the clusters whose CTAs do not divide a shared tile's atoms (overlapping
#         boxes) against float64, then the three tools on cuBLAS's 64x152 in 2x1;
# fused-checks: the same three tools on one ragged launch of each fused-epilogue variant (CTAs of
#         two or more tiles, which the overlapped epilogue finishes across);
# bench:  the benchmark against cuBLAS (all shapes, or the four headline ones with "quick");
# fused:  the fused bias + GELU epilogue against torch's best (all shapes, or the headline ones);
# ncu:    Nsight Compute on the data-parallel and stream-K kernels at 8192³ and 6144³.
# Every step prints its summary; the status is that of the first failing step.
set -u
ln -sfn "${WARPSCHED_PACKAGE:-$PWD/compiler}" /tmp/warpsched  # the package to run (a snapshot, say)
export PYTHONPATH=/tmp WARPSCHED_CACHE_DIR=.device/cache
status=0
step() {
  echo "== $*"
  "$@"
  local rc=$?
  if [ "$rc" != 0 ]; then
    echo "== FAILED ($rc): $*"
    [ "$status" = 0 ] && status=$rc
  fi
}

case "${1:-}" in
  checks)
    step timeout 240 python3 -m pytest -q -p no:cacheprovider tests/test_hopper_gpu.py \
      tests/test_runtime_driver.py tests/test_fused_epilogue_gpu.py
    for config in coop_128x256_s3_tma coop_128x256_s3_tma_sk pp_128x128_s4_tma coop_128x256_s4_regs \
                  coop_128x256_s3_tma_c2 coop_128x256_s4_tma_c2 \
                  pp_128x128_s4_tma_c2 coop_128x128_s5_c2x2 coop_128x64_s8_c4x2; do
      for tool in memcheck racecheck synccheck; do
        # cuda-python probes driver entry points with cuGetProcAddress; the misses are
        # host API errors, not kernel faults, so the tools report device errors only.
        step timeout 120 compute-sanitizer --tool "$tool" --error-exitcode 3 --report-api-errors no \
          python3 bench/gemm_profile_target.py --config "$config" --shape 1920,2176,192 --launches 2
      done
    done
    ;;
  any-checks)
    step timeout 400 python3 -m pytest -q -p no:cacheprovider tests/test_gemm_any_shape_gpu.py \
      tests/test_column_major_gpu.py tests/test_hopper_gpu.py tests/test_split_k_gpu.py \
      -k "not test_matches_float64_torch"
    for tool in memcheck racecheck; do
      step timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 3 --report-api-errors no \
        python3 -m pytest -q -p no:cacheprovider tests/test_gemm_any_shape_gpu.py \
        -k "bfloat16 and (odd_everything or misaligned_base or stride_0 or batched_own_b or batched_shared_b or batched_more_tiles or split_k or one_wave)"
    done
    # Split-K's reduce-scatter (a cooperative grid): gemm()'s picks alone and in 1x2 clusters.
    for tool in memcheck racecheck synccheck; do
      step timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 3 --report-api-errors no \
        python3 -m pytest -q -p no:cacheprovider tests/test_split_k_gpu.py -k "reduce_scatter and not two_streams"
    done
    # The clustered stream-K kernel of a partial last wave (72 units of 2x1 on 66 clusters).
    for tool in memcheck racecheck synccheck; do
      step timeout 120 compute-sanitizer --tool "$tool" --error-exitcode 3 --report-api-errors no \
        python3 bench/gemm_profile_target.py --config coop_128x256_s4_tma_c2_sk --shape 1920,2176,192 --launches 2
    done
    ;;
  uneven-checks)
    # Clusters whose CTAs do not divide a shared tile's atoms: one box each, overlapping.
    step timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_column_major_gpu.py \
      -k uneven_atoms
    for tool in memcheck racecheck synccheck; do
      step timeout 120 compute-sanitizer --tool "$tool" --error-exitcode 3 --report-api-errors no \
        python3 bench/gemm_profile_target.py --config swap_pp_64x152_s7_c2x1 --shape 600,2000,6000 \
        --launches 2
    done
    ;;
  fused-checks)
    for variant in $(python3 -c 'import sys; sys.path.insert(0, "tests")
from fused_variants import VARIANTS; print(*(v.name for v in VARIANTS))'); do
      for tool in memcheck racecheck synccheck; do
        step timeout 120 compute-sanitizer --tool "$tool" --error-exitcode 3 --report-api-errors no \
          python3 bench/gemm_profile_target.py --fused "$variant" --shape 4000,2080,264 --launches 2
      done
    done
    ;;
  ncu)
    # The data-parallel and stream-K kernels where stream-K gains (8192³) and loses (6144³).
    for spec in "coop_128x256_s3_tma 8192,8192,8192" "coop_128x256_s3_tma_sk 8192,8192,8192" \
                "coop_128x256_s3_tma 6144,6144,6144" "coop_128x256_s3_tma_sk 6144,6144,6144"; do
      set -- $spec
      step timeout 150 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis \
        --section WarpStateStats --section LaunchStats --kernel-name "$1" --launch-skip 1 \
        --launch-count 1 python3 bench/gemm_profile_target.py --config "$1" --shape "$2" \
        --launches 2
    done
    ;;
  bench)
    if [ "${2:-}" = quick ]; then
      step timeout 500 python3 bench/gemm_vs_cublas.py run --quick
    else
      step timeout 590 python3 bench/gemm_vs_cublas.py run
    fi
    ;;
  fused)
    if [ "${2:-}" = quick ]; then
      step timeout 500 python3 bench/fused_epilogue_vs_torch.py run --quick
    else
      step timeout 590 python3 bench/fused_epilogue_vs_torch.py run
    fi
    ;;
  *)
    echo "usage: bash bench/hopper_device_check.sh checks | any-checks | uneven-checks | fused-checks | bench [quick] | fused [quick] | ncu" >&2
    exit 2
    ;;
esac
exit "$status"
