"""Check that every hazard case of this round is a real hazard, independently of castlint: round 4's
validate_hazards.py (the naive "move the cast after the gather" rewrite, an AST transform, not castlint),
run on this folder. Lists the hazard cases whose behaviour the naive rewrite keeps (bad tests), and, with
--safe, the safe cases whose behaviour it changes (bad safe tests).

    python benchmarks/fix_behaviour_15/validate_hazards.py [--safe]
"""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_SPEC = importlib.util.spec_from_file_location("fb4_validate", os.path.join(HERE, "..", "fix_behaviour_4", "validate_hazards.py"))
_V4 = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_V4)

if __name__ == "__main__":
    sys.exit(_V4.main(HERE))
