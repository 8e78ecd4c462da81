#!/usr/bin/env bash
# The module the MLA fixes add (mla_kv_read.py: one compact conversion kernel for the FlashInfer MLA
# fix and the paged read) on the H200, sglang 0.5.23 as released (.gpu/orig) against the CLI-fixed
# tree (.gpu/fixed), GLM-5. Part A: the kernel itself (benchmarks/compact_convert.py), the FlashInfer
# MLA headline cell and `validate --sweep`. Part B: the paged read (FA3/FA4, xpu, musa) headline cells
# and the FA3 sweep (stand-in attention kernel: FlashInfer's BF16 MLA reading the same rows).
# Staging (here): ../shared/tools/flashinfer-wheels 0.6.18 (.whl/), the trees and pure-Python deps
# (typer, rich, ...) in .gpu/ (see docs/validation-h200.md). On the H200 (carry [".whl", ".gpu"]):
#   bash benchmarks/h200_kv_read.sh A; bash benchmarks/h200_kv_read.sh B
# The minimal profile's tree (castlint fix --profile minimal, staged in .gpu/fixed-min), part A only:
#   FIXED=.gpu/fixed-min TAG=min SKIP_COMPACT=1 bash benchmarks/h200_kv_read.sh A
set -uo pipefail
PART=${1:-A}
OUT=${OUT:-/tmp/castlint-h200}
FIXED=${FIXED:-.gpu/fixed}  # the tree castlint fix rewrote
TAG=${TAG:-mla}  # the result files' prefix (min for the minimal profile)
mkdir -p $OUT
export PYTHONUNBUFFERED=1
rm -rf /tmp/site
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl || exit 3
export PYTHONPATH=/tmp/site:$PWD/.gpu/site:$PWD/src
python3 -c "import flashinfer, torch; print('flashinfer', flashinfer.__version__, torch.cuda.get_device_name())"
# castlint validate through its Python API (the H200 lacks the CLI's typer/pydantic for Python 3.12)
validate() { python3 -c 'import sys, json; from castlint.validate.command import run_validate
sys.exit(run_validate(**json.loads(sys.argv[1])))' "$1"; }
A=sglang/srt/layers/attention
if [ "$PART" = A ]; then
  [ -n "${SKIP_COMPACT:-}" ] || timeout 120 python3 benchmarks/compact_convert.py $FIXED/$A/mla_kv_read.py --json $OUT/compact.json 2>&1 | tail -14
  M=$A/flashinfer_mla_backend.py
  timeout 200 bash -c "$(declare -f validate); validate '{\"path\": \"$FIXED/$M\", \"baseline\": \".gpu/orig/$M\", \"preset\": \"glm-5\", \"json_file\": \"$OUT/$TAG-headline.json\", \"output_file\": \"$OUT/$TAG-headline.txt\"}'" 2>/tmp/err.txt; echo "headline rc=$?"
  grep -E "PASS|FAIL|speedup|x faster|ms" $OUT/$TAG-headline.txt | head -20; tail -3 /tmp/err.txt
  timeout 330 bash -c "$(declare -f validate); validate '{\"path\": \"$FIXED/$M\", \"baseline\": \".gpu/orig/$M\", \"preset\": \"glm-5\", \"sweep\": true, \"json_file\": \"$OUT/$TAG-sweep.json\", \"sweep_svg\": \"$OUT/$TAG-sweep.svg\", \"output_file\": \"$OUT/$TAG-sweep.md\"}'" 2>/tmp/err.txt
  echo "sweep rc=$?"; cat $OUT/$TAG-sweep.md | tail -40; tail -3 /tmp/err.txt
else
  for f in $A/flashattention_backend.py $A/xpu_backend.py sglang/srt/hardware_backend/musa/attention/flashattention_backend.py; do
    label=$(echo $f | tr '/' '_' | sed 's/.py$//')
    timeout 150 bash -c "$(declare -f validate); validate '{\"path\": \".gpu/fixed/$f\", \"baseline\": \".gpu/orig/$f\", \"preset\": \"glm-5\", \"pool_tokens\": 495552, \"batch_size\": 1, \"context_len\": 4096, \"json_file\": \"$OUT/paged-$label.json\", \"output_file\": \"$OUT/paged-$label.txt\"}'" 2>/tmp/err.txt; echo "$label rc=$?"; tail -6 $OUT/paged-$label.txt; tail -2 /tmp/err.txt
  done
  F=$A/flashattention_backend.py
  timeout 300 bash -c "$(declare -f validate); validate '{\"path\": \".gpu/fixed/$F\", \"baseline\": \".gpu/orig/$F\", \"preset\": \"glm-5\", \"sweep\": true, \"json_file\": \"$OUT/paged-sweep.json\", \"output_file\": \"$OUT/paged-sweep.txt\"}'" 2>/tmp/err.txt
  echo "sweep rc=$?"; cat $OUT/paged-sweep.txt | tail -40; tail -3 /tmp/err.txt
fi
