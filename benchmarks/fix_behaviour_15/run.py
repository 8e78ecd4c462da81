"""The fifteenth round's runner: the second round's (benchmarks/fix_behaviour_2/run.py), run on this
folder (one runner for all rounds). Same flags (-k, --diffs, --markdown, --no-unsafe, -j), same
comparison (tensors by dtype, shape, bytes, requires_grad, is_inference; exceptions by type and
message; other values by ==).

    . /tmp/dev/bin/activate; export PYTHONPATH=$PWD/src
    python benchmarks/fix_behaviour_15/run.py [-k SUBSTR] [--no-unsafe] [--diffs] [--markdown FILE]
"""

import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_SPEC = importlib.util.spec_from_file_location("fix_behaviour_2_run", os.path.join(HERE, "..", "fix_behaviour_2", "run.py"))
_RUNNER = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_RUNNER)
run_module, same, compare = _RUNNER.run_module, _RUNNER.same, _RUNNER.compare

if __name__ == "__main__":
    if "--dir" not in sys.argv:
        sys.argv[1:1] = ["--dir", HERE]
    sys.exit(_RUNNER.main())
