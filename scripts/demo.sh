#!/usr/bin/env bash
# Set up castlint in ./.venv and run it on a real engine: sglang 0.5.23 as released.
# The release is fetched from the package index into ~/.cache/castlint (never into the repo).
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION="${1:-0.5.23}"
CACHE="${CASTLINT_TEST_CACHE:-$HOME/.cache/castlint}"
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e .
mkdir -p "$CACHE/wheels" "$CACHE/src/$VERSION"
.venv/bin/python -m pip download -q --no-deps "sglang==$VERSION" -d "$CACHE/wheels"
.venv/bin/python - "$CACHE" "$VERSION" <<'PY'
import glob, sys, zipfile
cache, version = sys.argv[1], sys.argv[2]
wheel = sorted(glob.glob(f"{cache}/wheels/sglang-{version}-*.whl"))[0]
with zipfile.ZipFile(wheel) as zf:
    zf.extractall(f"{cache}/src/{version}", [n for n in zf.namelist() if n.startswith("sglang/")])
PY
TREE="$CACHE/src/$VERSION/sglang"
echo "== castlint check $TREE/srt/layers/attention"
.venv/bin/castlint check --quiet "$TREE/srt/layers/attention" || true
echo
echo "== castlint fix --diff (the FlashInfer MLA backend; nothing is written)"
.venv/bin/castlint fix --diff "$TREE/srt/layers/attention/flashinfer_mla_backend.py" || true
