#!/usr/bin/env bash
# The read-reach measurements on the H200 (issue: speculative decoding under CUDA graphs,
# GPUs without the FP8-KV kernel): `castlint validate` on released sglang trees fixed by
# the CLI, every site, GLM-5, native read on and off (--no-native), per FlashInfer.
# Staging (here): FlashInfer wheels in .gpu/fi<version>/, released backend files in
# .gpu/src/<release>/sglang, and the same trees fixed by `castlint fix` in .gpu/fixed/.
# On the H200 (the `run` tool, carry [".gpu"]): bash benchmarks/h200_reach.sh "0.6.18 0.6.14"
set -uo pipefail
VERSIONS=${1:-"0.6.18"}
OUT=${OUT:-/tmp/castlint-h200}
export PYTHONUNBUFFERED=1
ITERS=${ITERS:-20}
v() {  # release, label, extra args...
  local r=$1 label=$2; shift 2
  timeout ${CELL_TIMEOUT:-150} python3 -m castlint validate .gpu/fixed/$r/sglang --baseline .gpu/src/$r/sglang \
    --preset glm-5 --iters $ITERS --warmup 3 --no-profile --json-file $OUT/$label.json -o $OUT/$label.txt "$@" \
    > /dev/null 2>&1; echo "$label rc=$?"; grep -E "^(PASS|FAIL)|x faster|ms saved" $OUT/$label.txt | head -12
}
for fi in $VERSIONS; do
  rm -rf /tmp/site
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .gpu/fi$fi/*.whl || exit 3
  export PYTHONPATH=/tmp/site:$PWD/src
  for r in 0.5.23 0.5.16; do
    for mode in native compact; do
      extra=(); [ $mode = compact ] && extra=(--no-native)
      v $r fi$fi-$r-$mode-bs8 --pool-tokens 495552 --batch-size 8 --context-len 4096 --draft-tokens 4 "${extra[@]}"
    done
  done
  v 0.5.23 fi$fi-0.5.23-native-bs32-verify --pool-tokens 495552 --batch-size 32 --context-len 4096 --draft-tokens 4 \
    --site target-verify --site target-verify-cuda-graph
  for mode in native compact; do
    extra=(); [ $mode = compact ] && extra=(--no-native)
    v 0.5.23 fi$fi-0.5.23-$mode-decode-bs1 --pool-tokens 495552 --batch-size 1 --context-len 4096 \
      --site decode --site decode-cuda-graph "${extra[@]}"
  done
done
for r in 0.5.4 0.5.10; do
  v $r fi${VERSIONS%% *}-$r-compact-decode-bs1 --pool-tokens 495552 --batch-size 1 --context-len 4096 \
    --site decode --no-native
done
