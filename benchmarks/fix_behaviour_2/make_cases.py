"""Write the case_*.py files of this benchmark from _cases_h.py / _cases_s.py and _header.py.

Each written case is standalone (the toy pool is copied into it); this script only saves typing.
Later rounds' make_cases.py run this one's main() on their own folder.
    python benchmarks/fix_behaviour_2/make_cases.py
"""
import importlib.util
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def _load(here, name):
    spec = importlib.util.spec_from_file_location(f"{os.path.basename(here)}_{name}", os.path.join(here, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(here=HERE):
    _cases_h, _cases_s = _load(here, "_cases_h"), _load(here, "_cases_s")
    header = open(os.path.join(here, "_header.py")).read()
    for name, kind, family, doc, code in _cases_h.CASES + _cases_s.CASES:
        prefix = "h" if kind == "hazard" else "s"
        text = f'"""{kind.upper()} case {prefix}_{name}: {doc}."""\n' + header.format(kind=kind, family=family) \
            + code.lstrip("\n")
        with open(os.path.join(here, f"case_{prefix}_{name}.py"), "w") as f:
            f.write(text)
    print(len(_cases_h.CASES), "hazard,", len(_cases_s.CASES), "safe")


if __name__ == "__main__":
    main()
