#!/bin/sh
# Regenerates every .labels file from the "# positive: fN CLxxx" comments and prints counts.
python3 - "$(dirname "$0")" <<'PYEOF'
import ast, os, re, sys, collections
root = sys.argv[1]
pos_re = re.compile(r"#\s*positive:\s*(f\d)\s+(CL\d{3})\b")
neg_re = re.compile(r"#\s*negative:")
fam_pos = collections.Counter(); fam_neg = collections.Counter(); codes = collections.Counter()
files = 0
for dp, dn, fn in os.walk(root):
    for f in sorted(fn):
        if not f.endswith(".py"): continue
        p = os.path.join(dp, f); rel = os.path.relpath(p, root)
        src = open(p).read(); ast.parse(src, p); files += 1
        fam_file = re.match(r"(f\d)_", rel).group(1)
        labels = []
        for i, line in enumerate(src.splitlines(), 1):
            m = pos_re.search(line)
            if "# positive" in line and not m: sys.exit(f"bad positive comment {rel}:{i}")
            if m:
                assert m.group(1) == fam_file, (rel, i)
                labels.append(f"{i} {m.group(2)}"); fam_pos[fam_file] += 1; codes[m.group(2)] += 1
            if neg_re.search(line): fam_neg[fam_file] += 1
        with open(p[:-3] + ".labels", "w") as out:
            out.write("".join(l + "\n" for l in labels))
print("py files", files)
for fam in sorted(set(fam_pos) | set(fam_neg)):
    print(fam, "positives", fam_pos[fam], "negatives", fam_neg[fam])
print("total positives", sum(fam_pos.values()), "negatives", sum(fam_neg.values()), dict(codes))
PYEOF
