#!/usr/bin/env bash
# The H200 validation runs recorded in docs/validation-h200.md.
#
# Staging (on a machine with network, from the repository root):
#   benchmarks/stage_h200.sh 0.7.2.post1      # or 0.6.18 / 0.6.14: wheels + sglang sources into .vgpu/
# Then on the H200 (the `run` tool, carry [".vgpu"]):
#   bash benchmarks/h200_validate.sh TAG      # TAG names the outputs, e.g. fi072
# Everything lands in $OUT (default /tmp/castlint-h200).
set -uo pipefail
TAG=${1:-fi}
OUT=${OUT:-/tmp/castlint-h200}
mkdir -p "$OUT"
if [ -z "${SKIP_INSTALL:-}" ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .vgpu/whl/*.whl || exit 3
fi
export PYTHONPATH=/tmp/site:$PWD/src PYTHONUNBUFFERED=1
X=${EXTRA_ARGS:-}        # a CPU dry run: EXTRA_ARGS="--device cpu --pool-tokens 8192 --context-len 256"
SX=${SWEEP_ARGS:-}
LOG=$OUT/$TAG-log.txt
V="python3 -m castlint validate $X"
ORIG=.vgpu/src/0.5.23/sglang
FIXED=.vgpu/fixed/0.5.23/sglang   # the tree `castlint fix` rewrote in place
step() { echo; echo "### $*"; }
{
  python3 -c "import torch, flashinfer; print('torch', torch.__version__, 'flashinfer', flashinfer.__version__, torch.cuda.get_device_name(0), torch.cuda.get_device_capability(0))" || true
  step "1. headline: sglang 0.5.23 patched by castlint fix, DeepSeek-R1 tp8 (16 heads), 495,552-token pool, bs 1, ctx 4096"
  $V $FIXED --baseline $ORIG --preset deepseek-r1 --tp 8 --require-native --json-file "$OUT/$TAG-headline.json" -o "$OUT/$TAG-headline.txt"
  echo "rc=$?"; cat "$OUT/$TAG-headline.txt"
  step "2. fa2 forced (the file says backend='auto')"
  $V $FIXED --baseline $ORIG --preset deepseek-r1 --tp 8 --mla-backend fa2 --site decode --site extend-paged --json-file "$OUT/$TAG-fa2.json"
  echo "rc=$?"
  if [ -z "${CORE:-}" ]; then   # CORE=1 skips steps 3-4
    step "3. keyword call form (castlint fix --flashinfer-api keyword): FlashInfer >= 0.7 only"
    $V .vgpu/patched/0.5.23-keyword.py --baseline $ORIG --preset deepseek-r1 --tp 8 --site decode --site extend-paged --json-file "$OUT/$TAG-keyword.json"
    echo "rc=$?"
    step "4. sglang 0.5.4 (pins FlashInfer 0.4.1: run() gets **castlint_mla_run_scales)"
    $V .vgpu/patched/0.5.4-auto.py --baseline .vgpu/src/0.5.4/sglang --preset deepseek-r1 --tp 8 --site decode --site extend-paged --json-file "$OUT/$TAG-0.5.4.json"
    echo "rc=$?"
  fi
  if [ -n "${GLM5:-}" ]; then
    step "5. GLM-5 preset, 64 heads (tp 1)"
    $V $FIXED --baseline $ORIG --preset glm-5 --site decode --json-file "$OUT/$TAG-glm5.json"
    echo "rc=$?"
  fi
  if [ -n "${WARM:-}" ]; then
    step "5b. the same decode site with a warm L2 (--no-flush-l2), fa3 (auto) then fa2"
    $V $FIXED --baseline $ORIG --preset deepseek-r1 --tp 8 --site decode --site decode-cuda-graph --no-flush-l2 --json-file "$OUT/$TAG-warm.json"
    echo "rc=$?"
    $V $FIXED --baseline $ORIG --preset deepseek-r1 --tp 8 --site decode --no-flush-l2 --mla-backend fa2 --no-profile
    echo "rc=$?"
  fi
  if [ -n "${BROKEN:-}" ]; then
    step "5c. deliberately broken patches must fail: run() given the layer's k_scale (2.0) instead of 1.0"
    $V .vgpu/patched/broken-scale.py --baseline $ORIG --preset deepseek-r1 --tp 8 --site decode --site extend-paged --no-profile --json-file "$OUT/$TAG-broken-scale.json"
    echo "rc=$?"
    step "5d. deliberately broken patch: kv_data_type left as the model dtype while the FP8 pool is passed"
    $V .vgpu/patched/broken-kvdtype.py --baseline $ORIG --preset deepseek-r1 --tp 8 --site decode --site extend-paged --no-profile --json-file "$OUT/$TAG-broken-kvdtype.json"
    echo "rc=$?"
  fi
  step "6. pool-size and context-length sweeps"
  python3 benchmarks/validate_sweep.py $FIXED/srt/layers/attention/flashinfer_mla_backend.py \
    --baseline $ORIG/srt/layers/attention/flashinfer_mla_backend.py --preset deepseek-r1 --tp 8 --json "$OUT/$TAG-sweep.json" $SX
  echo "rc=$?"
} 2>&1 | tee "$LOG"
