#!/usr/bin/env bash
# The paged-read fix on the H200 (issue 24): `castlint validate` on sglang 0.5.23's FA3/FA4,
# xpu and musa MLA backends, original (.gpu/paged/orig) against the CLI-fixed tree
# (.gpu/paged/fixed, with the module the fix adds), GLM-5, the stand-in attention kernel
# (FlashInfer BF16 MLA): one cell at pool 495,552, batch 1, context 4,096, then the sweep.
# Staging (here): FlashInfer wheels in .gpu/fi<version>/, the trees in .gpu/paged/.
# On the H200 (the `run` tool, carry [".gpu"]): bash benchmarks/h200_paged.sh 0.6.18
set -uo pipefail
FI=${1:-0.6.18}
OUT=${OUT:-/tmp/castlint-h200}
mkdir -p $OUT
export PYTHONUNBUFFERED=1
rm -rf /tmp/site
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .gpu/fi$FI/*.whl || exit 3
export PYTHONPATH=/tmp/site:$PWD/src
A=sglang/srt/layers/attention
for f in $A/flashattention_backend.py $A/xpu_backend.py sglang/srt/hardware_backend/musa/attention/flashattention_backend.py; do
  label=$(echo $f | tr '/' '_' | sed 's/.py$//')
  timeout 200 python3 -m castlint validate .gpu/paged/fixed/$f --baseline .gpu/paged/orig/$f --preset glm-5 \
    --pool-tokens 495552 --batch-size 1 --context-len 4096 --json-file $OUT/paged-fi$FI-$label.json \
    >> $OUT/paged-fi$FI-cells.txt 2>/tmp/err.txt; echo "$label rc=$?"; tail -2 /tmp/err.txt
done
timeout 300 python3 -m castlint validate .gpu/paged/fixed/$A/flashattention_backend.py \
  --baseline .gpu/paged/orig/$A/flashattention_backend.py --preset glm-5 --sweep \
  --json-file $OUT/paged-fi$FI-sweep.json -o $OUT/paged-fi$FI-sweep.txt > /dev/null 2>/tmp/err.txt
echo "sweep rc=$?"; cat $OUT/paged-fi$FI-cells.txt | grep -E "^(PASS|FAIL)"; cat $OUT/paged-fi$FI-sweep.txt; tail -3 /tmp/err.txt
