"""Regenerate <file>.labels from `# positive: fN CLxxx` comments and sanity-check them with ast."""
import ast
import io
import pathlib
import re
import sys
import tokenize

ROOT = pathlib.Path(__file__).resolve().parent
POS = re.compile(r"#\s*positive:\s*(f\d)\s+(CL00\d)")
NEG = re.compile(r"#\s*negative:")


def case_files():
    return sorted(p for p in ROOT.rglob("*.py") if p.relative_to(ROOT).parts[0].startswith("f"))


def main():
    npos = nneg = 0
    bad = []
    for py in case_files():
        src = py.read_text()
        tree = ast.parse(src)
        call_lines = {n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call)}
        labels = []
        for tok in tokenize.generate_tokens(io.StringIO(src).readline):
            if tok.type != tokenize.COMMENT:
                continue
            line = tok.start[0]
            m = POS.search(tok.string)
            if m:
                labels.append(f"{line} {m.group(2)}")
                npos += 1
                if line not in call_lines:
                    bad.append(f"{py.relative_to(ROOT)}:{line} no call starts here")
            elif NEG.search(tok.string):
                nneg += 1
        lab = py.with_suffix(".labels")
        lab.write_text("".join(l + "\n" for l in labels))
    print(f"positives={npos} negatives={nneg} files={len(case_files())}")
    for b in bad:
        print("BAD", b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
