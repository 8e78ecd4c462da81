#!/usr/bin/env bash
# The module the MLA fixes add (mla_kv_read.py: one compact conversion kernel for the FlashInfer MLA
# fix and the paged read) on the H200, sglang 0.5.23 as released (.gpu/orig) against the CLI-fixed
# tree (.gpu/fixed), GLM-5. Part A: the kernel itself (benchmarks/compact_convert.py), the FlashInfer
# MLA headline cell and `validate --sweep`. Part B: the paged read (FA3/FA4, xpu, musa) headline cells
# and the FA3 sweep (stand-in attention kernel: FlashInfer's BF16 MLA reading the same rows).
# Staging (here): ../shared/tools/flashinfer-wheels 0.6.18 (.whl/), the trees and pure-Python deps
# (typer, rich, ...) in .gpu/ (see docs/validation-h200.md). On the H200 (carry [".whl", ".gpu"]):
#   bash benchmarks/h200_kv_read.sh A; bash benchmarks/h200_kv_read.sh B
set -uo pipefail
PART=${1:-A}
OUT=${OUT:-/tmp/castlint-h200}
mkdir -p $OUT
export PYTHONUNBUFFERED=1
rm -rf /tmp/site
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl || exit 3
export PYTHONPATH=/tmp/site:$PWD/.gpu/site:$PWD/src
python3 -c "import flashinfer, torch; print('flashinfer', flashinfer.__version__, torch.cuda.get_device_name())"
A=sglang/srt/layers/attention
if [ "$PART" = A ]; then
  timeout 120 python3 benchmarks/compact_convert.py .gpu/fixed/$A/mla_kv_read.py --json $OUT/compact.json 2>&1 | tail -14
  timeout 200 python3 -m castlint validate .gpu/fixed/$A/flashinfer_mla_backend.py --baseline .gpu/orig/$A/flashinfer_mla_backend.py \
    --preset glm-5 --json-file $OUT/mla-headline.json -o $OUT/mla-headline.txt 2>/tmp/err.txt; echo "headline rc=$?"
  grep -E "PASS|FAIL|speedup|x faster|ms" $OUT/mla-headline.txt | head -20; tail -3 /tmp/err.txt
  timeout 300 python3 -m castlint validate .gpu/fixed/$A/flashinfer_mla_backend.py --baseline .gpu/orig/$A/flashinfer_mla_backend.py \
    --preset glm-5 --sweep --json-file $OUT/mla-sweep.json --svg $OUT/mla-sweep.svg -o $OUT/mla-sweep.md 2>/tmp/err.txt
  echo "sweep rc=$?"; cat $OUT/mla-sweep.md | tail -40; tail -3 /tmp/err.txt
else
  for f in $A/flashattention_backend.py $A/xpu_backend.py sglang/srt/hardware_backend/musa/attention/flashattention_backend.py; do
    label=$(echo $f | tr '/' '_' | sed 's/.py$//')
    timeout 150 python3 -m castlint validate .gpu/fixed/$f --baseline .gpu/orig/$f --preset glm-5 \
      --pool-tokens 495552 --batch-size 1 --context-len 4096 --json-file $OUT/paged-$label.json \
      -o $OUT/paged-$label.txt 2>/tmp/err.txt; echo "$label rc=$?"; tail -6 $OUT/paged-$label.txt; tail -2 /tmp/err.txt
  done
  timeout 300 python3 -m castlint validate .gpu/fixed/$A/flashattention_backend.py \
    --baseline .gpu/orig/$A/flashattention_backend.py --preset glm-5 --sweep \
    --json-file $OUT/paged-sweep.json -o $OUT/paged-sweep.txt 2>/tmp/err.txt
  echo "sweep rc=$?"; cat $OUT/paged-sweep.txt | tail -40; tail -3 /tmp/err.txt
fi
