#!/bin/sh
# Rebuild every x.labels from the "# positive: fN CLxxx" comments of x.py, then py_compile every file.
cd "$(dirname "$0")" || exit 1
PY=${PYTHON:-python3}
find . -name '*.py' -path './f*' | sort | while read -r f; do
    grep -n '# positive: f[0-9] CL[0-9][0-9][0-9]' "$f" | sed -E 's/^([0-9]+):.*# positive: f[0-9] (CL[0-9]{3}).*/\1 \2/' > "${f%.py}.labels"
done
find . -name '*.py' -path './f*' -print0 | xargs -0 "$PY" -m py_compile && echo "all files parse"
find . -name '__pycache__' -type d -prune -exec rm -rf {} +
