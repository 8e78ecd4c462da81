#!/usr/bin/env bash
# `castlint validate` of the MLA fix in both profiles (full, minimal) on sglang 0.5.23 and 0.5.16,
# on the H200, in one device call: for each (release, profile) the headline report (every site at
# the GLM-5 preset's default shape: pool 495,552, batch 1, context 4,096) and then `--sweep`,
# in that order of priority; a step is not started once ELAPSED_MAX seconds have passed, so the
# call stays under the device tool's 10 minutes. Results go into one tarball (the tool brings
# back at most 8 files) plus the console log.
#
# Staging (here, with network and libcst; the H200 has neither):
#   ../shared/tools/flashinfer-wheels 0.6.18                          # .whl/
#   .gpu/cl/{src,rules}: the castlint snapshot to run (validate only; no libcst needed with --baseline)
#   .gpu/site: pure-Python deps validate imports (rich, markdown_it, mdurl, pygments, pathspec, ...)
#   .gpu/orig-<release>/sglang/...: the released backend and version files
#   .gpu/fixed-<release>-<profile>/sglang/...: the same after `castlint fix --profile <profile>` in a
#     copy of the release tree (backend, the added mla_kv_read.py, environ.py, version files)
# On the H200 (the `run` tool, carry [".whl", ".gpu"]):
#   OUT=$OUT bash benchmarks/h200_profiles.sh
# A CPU dry run here: DEVICE=cpu SKIP_INSTALL=1 PY=.venv/bin/python OUT=/tmp/o bash benchmarks/h200_profiles.sh
set -uo pipefail
OUT=${OUT:-/tmp/castlint-h200}
TAG=${TAG:-$(date +%Y-%m-%d)}
DEVICE=${DEVICE:-cuda}
PY=${PY:-python3}
ELAPSED_MAX=${ELAPSED_MAX:-420}
RELEASES=${RELEASES:-"0.5.23 0.5.16"}
PROFILES=${PROFILES:-"full minimal"}
ROOT=$PWD
mkdir -p $OUT/r
export PYTHONUNBUFFERED=1
if [ -z "${SKIP_INSTALL:-}" ]; then
  rm -rf /tmp/site
  $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl || exit 3
fi
export PYTHONPATH=/tmp/site:$ROOT/.gpu/site:$ROOT/.gpu/cl/src
cd .gpu/cl  # its rules/ are the tables validate reads
[ "$DEVICE" = cuda ] && $PY -c "import flashinfer, torch, triton; print('flashinfer', flashinfer.__version__, 'torch', torch.__version__, 'triton', triton.__version__, torch.cuda.get_device_name())"
validate() { $PY -c 'import sys, json; from castlint.validate.command import run_validate
sys.exit(run_validate(**json.loads(sys.argv[1])))' "$1"; }
A=sglang/srt/layers/attention/flashinfer_mla_backend.py
start=$(date +%s)
step() {  # step NAME JSON-OPTIONS: one validate run, unless time is up
  local name=$1 options=$2 now
  now=$(( $(date +%s) - start ))
  if [ $now -gt $ELAPSED_MAX ]; then echo "### $name: not run ($now s elapsed)"; return; fi
  echo "### $name (at $now s)"
  timeout 240 bash -c "$(declare -f validate); PY=$PY; validate '$options'" 2>$OUT/r/$name.err
  echo "$name rc=$? ($(( $(date +%s) - start )) s)"
  tail -2 $OUT/r/$name.err
}
for r in $RELEASES; do
  for p in $PROFILES; do
    fixed=$ROOT/.gpu/fixed-$r-$p/$A orig=$ROOT/.gpu/orig-$r/$A
    step $r-$p-headline "{\"path\": \"$fixed\", \"baseline\": \"$orig\", \"preset\": \"glm-5\", \"device\": \"$DEVICE\", \"json_file\": \"$OUT/r/$TAG-$r-$p-headline.json\", \"output_file\": \"$OUT/r/$TAG-$r-$p-headline.txt\"}"
    grep -E "│ [a-z-]+ +│ (PASS|FAIL)" $OUT/r/$TAG-$r-$p-headline.txt 2>/dev/null | cut -c1-150
  done
done
for r in $RELEASES; do
  for p in $PROFILES; do
    fixed=$ROOT/.gpu/fixed-$r-$p/$A orig=$ROOT/.gpu/orig-$r/$A
    step $r-$p-sweep "{\"path\": \"$fixed\", \"baseline\": \"$orig\", \"preset\": \"glm-5\", \"device\": \"$DEVICE\", \"sweep\": true, \"json_file\": \"$OUT/r/$TAG-$r-$p-sweep.json\", \"sweep_svg\": \"$OUT/r/$TAG-$r-$p-sweep.svg\", \"output_file\": \"$OUT/r/$TAG-$r-$p-sweep.md\"}"
    grep -E "^\| |PASS|FAIL" $OUT/r/$TAG-$r-$p-sweep.md 2>/dev/null | tail -4
  done
done
rm -f $OUT/r/*.err.empty
find $OUT/r -name '*.err' -size 0 -delete
tar -C $OUT -czf $OUT/$TAG-results.tar.gz r && rm -rf $OUT/r
ls -la $OUT
