"""Write the case_*.py files of this benchmark from _cases_h.py / _cases_s.py and _header.py: round 2's
make_cases.py (benchmarks/fix_behaviour_2/make_cases.py), run on this folder.
    python benchmarks/fix_behaviour_15/make_cases.py
"""
import importlib.util
import os

HERE = os.path.dirname(os.path.abspath(__file__))
_SPEC = importlib.util.spec_from_file_location("fb2_make_cases", os.path.join(HERE, "..", "fix_behaviour_2", "make_cases.py"))
_MAKE = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_MAKE)

if __name__ == "__main__":
    _MAKE.main(HERE)
