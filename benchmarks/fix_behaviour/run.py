"""The first round's runner: the second round's (benchmarks/fix_behaviour_2/run.py), run on this
folder. It compares more than this file's earlier copy did (exceptions by type and message,
requires_grad, inference mode) and takes the same flags (-k, --diffs, --markdown, --no-unsafe, -j).
validate_hazards.py reads its run_module and same."""

import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_SPEC = importlib.util.spec_from_file_location("fix_behaviour_2_run", os.path.join(HERE, "..", "fix_behaviour_2", "run.py"))
_RUNNER = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_RUNNER)
run_module, same = _RUNNER.run_module, _RUNNER.same

if __name__ == "__main__":
    sys.argv[1:1] = ["--dir", HERE]
    _RUNNER.main()
