#!/usr/bin/env bash
# Stage what benchmarks/h200_profiles.sh needs in .gpu/ (git-ignored): the castlint snapshot it runs
# (src + rules), the pure-Python packages validate imports (the H200 has no network), the released
# backend files and the same files after `castlint fix --profile full|minimal`. FlashInfer itself is
# staged by ../shared/tools/flashinfer-wheels VERSION into .whl/.
# Usage: benchmarks/stage_h200_profiles.sh [RELEASES]   (default "0.5.23 0.5.16"; sources from
# ~/.cache/castlint/src/<release>/sglang, where the tests unpack the released wheels)
set -euo pipefail
releases=${1:-"0.5.23 0.5.16"}
top=$(git rev-parse --show-toplevel)
cd "$top"
src=~/.cache/castlint/src
rm -rf .gpu && mkdir -p .gpu/cl .gpu/site
cp -r src rules .gpu/cl/
find .gpu/cl -name __pycache__ -prune -exec rm -rf {} +
site=$(python3 -c 'import rich, os; print(os.path.dirname(os.path.dirname(rich.__file__)))')
for pkg in rich markdown_it mdurl pygments pathspec typer click shellingham typing_extensions.py annotated_doc tomli; do
  [ -e "$site/$pkg" ] && cp -r "$site/$pkg" .gpu/site/
done
find .gpu/site -name __pycache__ -prune -exec rm -rf {} +
A=srt/layers/attention/flashinfer_mla_backend.py
for r in $releases; do
  tree=$src/$r/sglang
  for f in $A srt/environ.py version.py _version.py; do
    [ -e "$tree/$f" ] || continue
    mkdir -p ".gpu/orig-$r/sglang/$(dirname $f)" && cp "$tree/$f" ".gpu/orig-$r/sglang/$f"
  done
  for p in full minimal; do
    cp -r ".gpu/orig-$r" ".gpu/fixed-$r-$p"
    castlint fix -q --profile $p ".gpu/fixed-$r-$p/sglang" || true
  done
done
du -sh .gpu .whl 2>/dev/null
