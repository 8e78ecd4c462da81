"""Write the case_*.py files of this benchmark from _cases_h.py / _cases_s.py and _header.py.

Each written case is standalone (the toy pool is copied into it); this script only saves typing.
    python benchmarks/fix_behaviour_8/make_cases.py
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import _cases_h  # noqa: E402
import _cases_s  # noqa: E402


def main():
    header = open(os.path.join(HERE, "_header.py")).read()
    for name, kind, family, doc, code in _cases_h.CASES + _cases_s.CASES:
        prefix = "h" if kind == "hazard" else "s"
        text = f'"""{kind.upper()} case {prefix}_{name}: {doc}."""\n' + header.format(kind=kind, family=family) \
            + code.lstrip("\n")
        with open(os.path.join(HERE, f"case_{prefix}_{name}.py"), "w") as f:
            f.write(text)
    print(len(_cases_h.CASES), "hazard,", len(_cases_s.CASES), "safe")


if __name__ == "__main__":
    main()
