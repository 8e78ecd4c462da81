#!/usr/bin/env bash
# `castlint validate --sweep` on the H200, for each FlashInfer version staged in .gpu/.
#
# The grid (castlint/validate/sweep.py): pools 65,536 and 495,552; decode bs 1 / 32, target-verify,
# draft-extend and their CUDA-graph variants at bs 8 / 32 x 4 draft tokens, extend 1 x 4,096 (32 new)
# and 1 x 32,768 (8,192 new), each at context 4,096 unless said; on the 495,552 pool the same cells
# again with the native FP8-KV read off (SGLANG_MLA_KV_READ=compact). 29 cells, about 40 s per sglang
# release on an H200 after FlashInfer's JIT build (about 45 s), so one command per FlashInfer version
# (both releases) stays well under the device tool's 10 minutes.
#
# Staging (here, with network and castlint installed):
#   for v in 0.6.14 0.6.18; do pip download --no-deps --only-binary=:all: --python-version 3.12 \
#     --implementation cp --platform manylinux_2_28_x86_64 -d ${GPU_DIR:-.gpu}/fi$v flashinfer-python==$v 'apache-tvm-ffi<0.2,>=0.1.11'; done
#   for v in 0.5.16 0.5.23; do   # released sglang: the backend file and its version files
#     unzip sglang-$v-*.whl 'sglang/srt/layers/attention/flashinfer_mla_backend.py' 'sglang/*version.py' -d .gpu/src/$v
#     cp -r .gpu/src/$v/sglang .gpu/fixed/$v/ && castlint fix .gpu/fixed/$v/sglang; done
# Then on the H200 (the `run` tool, carry [".gpu"]):
#   bash benchmarks/h200_sweep.sh "0.6.14 0.6.18" "0.5.16 0.5.23"
# CASTLINT_SRC: the castlint sources to run (default ./src; a staged snapshot when the working tree
# is mid-change). Outputs (JSON, SVG heat maps, markdown) land in $OUT.
set -uo pipefail
VERSIONS=${1:-"0.6.14 0.6.18"}
RELEASES=${2:-"0.5.16 0.5.23"}
OUT=${OUT:-/tmp/castlint-h200}
export PYTHONUNBUFFERED=1
for v in $VERSIONS; do
  rm -rf /tmp/site
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site ${GPU_DIR:-.gpu}/fi$v/*.whl || exit 3
  export PYTHONPATH=/tmp/site:${CASTLINT_SRC:-$PWD/src}
  for r in $RELEASES; do
    echo "### FlashInfer $v, sglang $r"
    timeout ${CELL_TIMEOUT:-260} python3 -m castlint validate ${GPU_DIR:-.gpu}/fixed/$r/sglang --baseline ${GPU_DIR:-.gpu}/src/$r/sglang \
      --preset glm-5 --sweep --json-file $OUT/sweep-fi$v-sglang$r.json --svg $OUT/sweep-fi$v-sglang$r.svg \
      -o $OUT/sweep-fi$v-sglang$r.md 2>&1; echo "rc=$?"
    tail -3 $OUT/sweep-fi$v-sglang$r.md
  done
done
