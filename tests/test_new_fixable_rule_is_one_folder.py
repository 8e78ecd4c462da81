"""A new fixable rule is one new folder: checks/<rule>/rule.py declares code, name, docs,
examples (its INVALID one with what the fix writes) and trigger words, and builds the fix
of each site it finds; checks/<rule>/fix.py is the codemod that rewrites those sites.
Nothing else in castlint changes.

The test copies the castlint package, adds one folder to castlint/checks/ and runs the
copy: the registry lists the rule, selectors accept its code, the prefilter and prune let
its files through, the rule's own examples are its tests (the fixed source too), reporters
describe it, `check -f json` carries its fix's edits and `castlint fix` applies it.
"""

from __future__ import annotations

import filecmp
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import castlint

FOLDER = "print_in_forward"

TOY_RULE = '''
"""CL950 print-in-forward: a toy fixable rule, written as a contributor would."""
from __future__ import annotations

from typing import List

from castlint.checks.base import FileContext, Invalid, Rule
from castlint.models import Finding, Fix, FixSafety, Severity

CODEMOD = "drop-print"  # the codemod in fix.py, beside this rule


class PrintInForward(Rule):
    code = "CL950"
    name = "print-in-forward"
    fix = "safe"
    summary = "A print() in a forward pass syncs the device on every step"
    what_it_does = "Flags print() statements in functions whose name starts with `forward`."
    why_it_matters = "Printing a tensor copies it to the host and waits for the GPU."
    example = "def forward(self, x):\\n    print(x)\\n"
    fix_safety = "Safe: the statement only prints; the fix removes it."
    VALID = ("def setup(self, x):\\n    print(x)\\n",)
    INVALID = (Invalid("def forward_decode(self, x):\\n    print(x)\\n    return x\\n", (2,),
                       fixed="def forward_decode(self, x):\\n    return x\\n"),)

    def triggers(self, words) -> tuple:
        return ((frozenset({"print("}), frozenset({"def forward"})),)

    def check(self, ctx: FileContext) -> List[Finding]:
        import libcst as cst  # here, not at the top: the registry loads without the parser

        analysis = ctx.analysis
        findings = []
        for call in analysis.nodes.calls:
            function = analysis.enclosing_function(call)
            if not (isinstance(call.func, cst.Name) and call.func.value == "print" and function is not None
                    and function.name.value.startswith("forward")):
                continue
            statement = analysis.parent(analysis.parent(call))  # print(...) as a statement of its own
            fix = None
            if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
                fix = Fix(CODEMOD, FixSafety.SAFE, "remove the print()", site=statement)
            findings.append(self.finding(ctx, call, "print() in a forward pass", Severity.WARNING, fix=fix,
                                         unfixable_reason=None if fix else "print() inside an expression"))
        return findings
'''

TOY_FIX = '''
"""CL950's codemod: remove the print() statements the rule found."""
from __future__ import annotations

from typing import List

import libcst as cst

from castlint.checks.print_in_forward.rule import CODEMOD
from castlint.fixes.base import Codemod, CodemodResult, FixOptions


class _Drop(cst.CSTTransformer):
    def __init__(self, statements):
        super().__init__()
        self.statements = statements

    def leave_SimpleStatementLine(self, original, updated):
        return cst.RemoveFromParent() if id(original) in self.statements else updated


class DropPrint(Codemod):
    name = CODEMOD

    def apply(self, module: cst.Module, ctx, findings: List, options: FixOptions) -> CodemodResult:
        statements = {id(f.fix.site) for f in findings}
        return CodemodResult(module.visit(_Drop(statements)), applied=[f"{len(statements)} print() removed"])
'''

EXAMPLES = """
import libcst as cst
from castlint.checks import rule_for
from castlint.config import Config
from castlint.engine import analyze_module
from castlint.fixes import FixOptions, fix_source
from castlint.tables import load_tables

tables, rule = load_tables(), rule_for("CL950")
config = Config(select=("CL950",))
def lines(source):
    found = analyze_module(cst.parse_module(source), "x.py", source, tables, config, config.cost_model(tables))
    return sorted(f.start.line for f in found if f.code == "CL950")
assert all(lines(source) == [] for source in rule.VALID)
assert all(lines(source) == sorted(expected) for source, expected in rule.INVALID)
for example in rule.INVALID:
    fixed = fix_source(example[0].encode(), "x.py", tables, FixOptions(), config).new_source.decode()
    assert fixed == example.fixed, fixed
print("examples ok")
"""


def _copy_with_toy_rule(tmp_path: Path) -> Path:
    package = Path(castlint.__file__).parent
    root = tmp_path / "site"
    shutil.copytree(package, root / "castlint", ignore=shutil.ignore_patterns("__pycache__"))
    if not (root / "castlint" / "rules").is_dir():  # an editable install reads the repository's rules/
        from castlint.tables import builtin_rules_dir

        shutil.copytree(builtin_rules_dir(), root / "castlint" / "rules")
    folder = root / "castlint" / "checks" / FOLDER  # one folder: no __init__.py, nothing else
    folder.mkdir()
    (folder / "rule.py").write_text(TOY_RULE)
    (folder / "fix.py").write_text(TOY_FIX)
    return root


def _run(root: Path, *args, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(root), NO_COLOR="1", COLUMNS="200")
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


# Several CLI runs of the copy in one child process (one start-up, not one a run): the child
# imports the copy (PYTHONPATH) and runs each argv through conftest's in-process runner, which
# gives each run its own argv, streams and exit code, as a process of its own would.
DRIVER = """
import json, sys
sys.path.insert(1, sys.argv[1])  # tests/, after the copy on PYTHONPATH
import castlint
assert castlint.__file__.startswith(sys.argv[2]), castlint.__file__  # the copy, not the checkout
from conftest import _env, _run_in_process
runs = [_run_in_process(argv, cwd=None, env=_env(None), input=None) for argv in json.loads(sys.argv[3])]
runs = [[r.returncode, r.stdout, r.stderr] for r in runs]
import contextlib, io, traceback
out, code = io.StringIO(), 0
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
    try:  # then the script, in a fresh namespace
        exec(compile(sys.argv[4], "<examples>", "exec"), {"__name__": "__main__"})
    except BaseException:
        traceback.print_exc()
        code = 1
print(json.dumps(runs + [[code, out.getvalue(), ""]]))
"""


def _cli_runs(root: Path, *argvs, script: str, cwd: Path) -> list:
    """`castlint ARGV` of the copy for each argv, then `python -c script`, as CompletedProcesses
    (the script's stderr in its stdout), from one child process."""
    proc = _run(
        root, "-c", DRIVER, str(Path(__file__).parent), str(root), json.dumps([list(a) for a in argvs]), script, cwd=cwd
    )
    assert proc.returncode == 0, proc.stderr
    return [
        subprocess.CompletedProcess(list(argv), code, out, err)
        for argv, (code, out, err) in zip([*argvs, ("-c", script)], json.loads(proc.stdout))
    ]


def _differences(left: Path, right: Path) -> list:
    """Files that differ between two trees (caches ignored)."""
    cmp = filecmp.dircmp(left, right, ignore=["__pycache__", "rules"])
    out = [str(Path(right) / name) for name in cmp.left_only + cmp.right_only + cmp.diff_files]
    for sub in cmp.common_dirs:
        out += _differences(left / sub, right / sub)
    return out


def test_a_new_fixable_rule_needs_only_its_own_folder(tmp_path):
    root = _copy_with_toy_rule(tmp_path)
    assert _differences(Path(castlint.__file__).parent, root / "castlint") == [
        str(root / "castlint" / "checks" / FOLDER)
    ]
    project = tmp_path / "project"
    project.mkdir()
    hot = "def forward(self, x):\n    print(x)\n    return x\n"
    (project / "hot.py").write_text(hot)
    (project / "cold.py").write_text("def setup(self, x):\n    print(x)\n")

    rules, check, sarif, doc, fix, examples = _cli_runs(
        root,
        ("rules", "--format", "json"),
        ("check", "--select", "CL950", "--no-cache", "--output-format", "json", "."),
        ("check", "--select", "CL950", "--no-cache", "--output-format", "sarif", "."),
        ("rule", "CL950"),
        ("fix", "--select", "CL950", "--no-cache", "."),
        script=EXAMPLES,
        cwd=project,
    )
    assert rules.returncode == 0, rules.stderr
    assert {
        "code": "CL950",
        "name": "print-in-forward",
        "summary": "A print() in a forward pass syncs the device on every step",
        "fix": "safe",
    } in json.loads(rules.stdout)

    assert check.returncode == 1, check.stderr
    (found,) = json.loads(check.stdout)["findings"]
    assert (os.path.basename(found["path"]), found["start"]["line"], found["code"]) == ("hot.py", 2, "CL950")
    # the fix the rule built, as edits: line 2 goes
    assert found["fix"]["applicability"] == "safe" and found["fix"]["codemod"] == "drop-print"
    assert found["fix"]["edits"] == [
        {"content": "", "location": {"row": 2, "column": 1}, "end_location": {"row": 3, "column": 1}}
    ]

    (result,) = json.loads(sarif.stdout)["runs"][0]["results"]
    assert "CL950" in [r["id"] for r in json.loads(sarif.stdout)["runs"][0]["tool"]["driver"]["rules"]]
    (change,) = result["fixes"][0]["artifactChanges"]
    assert change["replacements"] == [
        {"deletedRegion": {"charOffset": 22, "charLength": 13}, "insertedContent": {"text": ""}}
    ]

    assert doc.returncode == 0 and "print() in a forward pass syncs" in doc.stdout

    # `castlint fix` applies it: the file is the example's fixed form, nothing is left to report
    assert fix.returncode == 0, fix.stdout + fix.stderr
    assert (project / "hot.py").read_text() == "def forward(self, x):\n    return x\n"

    assert examples.returncode == 0 and "examples ok" in examples.stdout, examples.stdout

    # the prefilter reads the rule's trigger words: without them the file is never parsed
    from castlint.prefilter import encode, has_trigger

    groups = encode(((frozenset({"print("}), frozenset({"def forward"})),))
    assert has_trigger(b"def forward(self):\n    print(1)\n", groups)
    assert not has_trigger(b"def setup(self):\n    print(1)\n", groups)
