#!/usr/bin/env bash
# Stage what benchmarks/h200_validate.sh needs into .vgpu/ (git-ignored via .git/info/exclude):
# FlashInfer wheels for the H200's Python 3.12, the released sglang backend files
# (third-party source: staged, never committed), and the trees `castlint fix` rewrote.
#
# Usage: benchmarks/stage_h200.sh FLASHINFER_VERSION   (0.7.2.post1, 0.6.18 or 0.6.14)
# Needs: the sglang sources unpacked under ~/.cache/castlint/src/<version>/sglang, and
# castlint installed here (the fix runs here; the H200 has no libcst).
set -euo pipefail
ver="${1:-0.7.2.post1}"
top=$(git rev-parse --show-toplevel)
cd "$top"
grep -qxF '/.vgpu/' .git/info/exclude 2>/dev/null || echo '/.vgpu/' >> .git/info/exclude
rm -rf .vgpu && mkdir -p .vgpu/whl .vgpu/patched
plat=(--platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_24_x86_64
      --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64)
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  "${plat[@]}" -d .vgpu/whl "flashinfer-python==${ver}" "apache-tvm-ffi<0.2,>=0.1.11"
src=~/.cache/castlint/src
for v in 0.5.23 0.5.4; do
  d=.vgpu/src/$v/sglang
  mkdir -p $d/srt/layers/attention
  cp $src/$v/sglang/srt/layers/attention/flashinfer_mla_backend.py $d/srt/layers/attention/
  cp $src/$v/sglang/version.py $src/$v/sglang/_version.py $d/ 2>/dev/null || true
done
# the headline: a copy of the 0.5.23 tree rewritten in place by the CLI
mkdir -p .vgpu/fixed/0.5.23 && cp -r .vgpu/src/0.5.23/sglang .vgpu/fixed/0.5.23/
castlint fix .vgpu/fixed/0.5.23/sglang/srt/layers/attention/flashinfer_mla_backend.py || true
castlint fix --diff --flashinfer-api keyword .vgpu/src/0.5.23/sglang/srt/layers/attention/flashinfer_mla_backend.py > /dev/null || true
python3 - <<'EOF'
from castlint.tables import load_tables
from castlint.fixes import FixOptions, fix_source
t = load_tables()
for v, api in (("0.5.23", "keyword"), ("0.5.4", "auto")):
    p = f".vgpu/src/{v}/sglang/srt/layers/attention/flashinfer_mla_backend.py"
    r = fix_source(open(p, "rb").read(), p, t, FixOptions(flashinfer_api=api))
    open(f".vgpu/patched/{v}-{api}.py", "wb").write(r.new_source)
# two deliberately broken variants of the 0.5.23 fix (tests/test_validate_cpu.py makes the same edits)
fixed = open(".vgpu/fixed/0.5.23/sglang/srt/layers/attention/flashinfer_mla_backend.py", "rb").read()
bad_scale = fixed.replace(b"ckv_scale=self.castlint_kv_scale", b"ckv_scale=layer.k_scale_float")
bad_kv = fixed.replace(b"model_runner.kv_cache_dtype if attn_backend.castlint_native_fp8_kv else model_runner.dtype",
                       b"model_runner.dtype")
assert bad_scale != fixed and bad_kv != fixed
open(".vgpu/patched/broken-scale.py", "wb").write(bad_scale)
open(".vgpu/patched/broken-kvdtype.py", "wb").write(bad_kv)
EOF
du -sh .vgpu .vgpu/whl
