#!/usr/bin/env bash
# Regenerate every <file>.py.labels from the "# positive: fN CLxxx" comments
# and check that every file parses (python -m py_compile).
set -euo pipefail
cd "$(dirname "$0")"
PY="${PYTHON:-python3}"
status=0
while IFS= read -r -d '' f; do
  "$PY" - "$f" <<'PYEOF'
import re, sys
path = sys.argv[1]
out = []
for n, line in enumerate(open(path, encoding="utf-8"), 1):
    m = re.search(r"#\s*positive:\s*f\d+\s+(CL\d{3})\b", line)
    if m:
        out.append(f"{n} {m.group(1)}\n")
open(path[:-3] + ".labels", "w").write("".join(out))
PYEOF
  if ! "$PY" -m py_compile "$f" 2>/dev/null; then
    echo "PARSE ERROR: $f"; "$PY" -m py_compile "$f" || true; status=1
  fi
done < <(find . -name '*.py' -not -path '*/__pycache__/*' -print0 | sort -z)
find . -name '__pycache__' -type d -prune -exec rm -rf {} +
total=$(cat $(find . -name '*.labels') | wc -l)
echo "files: $(find . -name '*.py' | wc -l)  positives: $total"
exit $status
