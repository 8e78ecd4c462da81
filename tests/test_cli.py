"""The command line as users meet it: exit codes, formats, options, config, errors."""

import json
import os
import shutil
import textwrap

import pytest

from conftest import FIXTURES, ROOT, run_castlint

BAD = FIXTURES / "check" / "fa3_backend.py"
CLEAN = FIXTURES / "check" / "false_positives.py"


def test_version_and_module_entry():
    proc = run_castlint("--version")
    assert proc.returncode == 0 and proc.stdout.startswith("castlint ")


def test_exit_codes_clean_findings_and_exit_zero():
    assert run_castlint("check", CLEAN).returncode == 0
    proc = run_castlint("check", BAD)
    assert proc.returncode == 1
    assert run_castlint("check", "--exit-zero", BAD).returncode == 0


def test_text_output_format_and_order(tmp_path):
    shutil.copy(BAD, tmp_path / "b.py")
    shutil.copy(FIXTURES / "check" / "sparse_backend.py", tmp_path / "a.py")
    proc = run_castlint("check", tmp_path)
    lines = [line for line in proc.stdout.splitlines() if ": CL" in line]
    assert lines[0].startswith(f"{tmp_path / 'a.py'}:21:24: CL004 ")
    assert lines[1].startswith(f"{tmp_path / 'b.py'}:21:20: CL001 whole-pool cast")
    assert "  >    21 |" in proc.stdout  # a code frame
    assert "no fix:" in proc.stdout  # unfixable findings say why
    assert "Found 4 findings" in proc.stdout


def test_quiet_has_no_frames():
    proc = run_castlint("check", "--quiet", BAD)
    assert " | " not in proc.stdout
    assert len([line for line in proc.stdout.splitlines() if ": CL" in line]) == 3


def test_json_schema():
    proc = run_castlint("check", "--format", "json", BAD)
    data = json.loads(proc.stdout)
    assert data["schema_version"] == 1 and data["tool"]["name"] == "castlint"
    finding = data["findings"][0]
    for key in ("code", "name", "severity", "path", "start", "end", "message", "cost", "fixable"):
        assert key in finding
    assert finding["start"] == {"line": 21, "column": 20}
    assert finding["end"]["line"] == 23
    assert finding["cost"]["bytes_per_layer"] == 495552 * 576 * 3
    assert finding["cost"]["bytes_per_step"] == 495552 * 576 * 3 * 78


def test_select_and_ignore():
    both = FIXTURES / "check"
    got = json.loads(run_castlint("check", "--format", "json", "--select", "CL004", both).stdout)
    assert {f["code"] for f in got["findings"]} == {"CL004"}
    every = {f["code"] for f in json.loads(run_castlint("check", "--format", "json", both).stdout)["findings"]}
    got = json.loads(run_castlint("check", "--format", "json", "--ignore", "CL001,CL900", both).stdout)
    assert {f["code"] for f in got["findings"]} == every - {"CL001", "CL900"} and {"CL002", "CL004"} <= every


def test_unknown_code_is_an_error():
    proc = run_castlint("check", "--select", "CL777", CLEAN)
    assert proc.returncode == 2 and "--select: 'CL777' selects no rule" in proc.stderr


def test_ruff_style_fix_form(tmp_path):
    """`castlint --fix PATH` works, as `ruff check --fix` does."""
    target = tmp_path / "x.py"
    shutil.copy(FIXTURES / "fix" / "cast_before_gather.in.py", target)
    proc = run_castlint("--fix", tmp_path)
    assert proc.returncode == 1  # the unsafe one is left
    assert "[loc].to(torch.bfloat16)" in target.read_text()
    assert run_castlint(tmp_path).returncode == 1  # `castlint PATH` means check


def test_fix_diff_writes_nothing(tmp_path):
    target = tmp_path / "x.py"
    shutil.copy(FIXTURES / "fix" / "mla_backend.in.py", target)
    before = target.read_bytes()
    proc = run_castlint("fix", "--diff", target)
    assert proc.returncode == 1
    assert proc.stdout.startswith("--- a/") and "+        k_buffer = self.kv_read.convert(" in proc.stdout
    assert target.read_bytes() == before


def test_check_says_what_is_fixable():
    proc = run_castlint("check", FIXTURES / "fix" / "mla_backend.in.py")
    assert "[*]" in proc.stdout and "4 fixable" in proc.stdout


def test_parse_error_names_file_and_line_and_others_still_checked(tmp_path):
    # a half-edited backend (files without any trigger word are not parsed at all)
    (tmp_path / "broken.py").write_text("def f(:\n    return pool.get_key_buffer(0).to(q.dtype)\n")
    shutil.copy(BAD, tmp_path / "ok.py")
    proc = run_castlint("check", "--format", "json", tmp_path)
    assert proc.returncode == 2
    data = json.loads(proc.stdout)
    assert data["errors"][0]["path"].endswith("broken.py") and data["errors"][0]["line"] == 1
    assert len(data["findings"]) == 3  # ok.py was still checked
    text = run_castlint("check", tmp_path)
    assert f"{tmp_path / 'broken.py'}:1: error" in text.stdout


def test_missing_path_is_an_error(tmp_path):
    proc = run_castlint("check", tmp_path / "nope")
    assert proc.returncode == 2 and "no such file" in proc.stdout


def test_rules_table_and_docs():
    proc = run_castlint("rules")
    assert proc.returncode == 0
    for code in ("CL001", "CL002", "CL003", "CL004", "CL900"):
        assert code in proc.stdout
    doc = run_castlint("rules", "CL001")
    for heading in ("What it does", "Why it matters", "Example", "Fix safety"):
        assert heading in doc.stdout
    assert run_castlint("rules", "CL999").returncode == 2


def write_project(tmp_path, config_text, name="pyproject.toml"):
    (tmp_path / name).write_text(textwrap.dedent(config_text))
    pkg = tmp_path / "engine"
    pkg.mkdir()
    shutil.copy(BAD, pkg / "fa3.py")
    shutil.copy(FIXTURES / "check" / "sparse_backend.py", pkg / "sparse.py")
    (tmp_path / "vendored").mkdir()
    shutil.copy(BAD, tmp_path / "vendored" / "copy.py")
    return tmp_path


def test_config_from_pyproject(tmp_path):
    write_project(
        tmp_path,
        """
        [tool.castlint]
        ignore = ["CL004"]
        exclude = ["vendored"]
        per-file-ignores = { "engine/fa3.py" = ["CL001"] }
    """,
    )
    proc = run_castlint("check", "--format", "json", ".", cwd=tmp_path)
    assert json.loads(proc.stdout)["findings"] == []
    assert proc.returncode == 0


def test_config_from_castlint_toml_and_model(tmp_path):
    write_project(
        tmp_path,
        """
        select = ["CL001"]
        [model]
        preset = "deepseek-v3"
        pool-tokens = 131072
    """,
        name="castlint.toml",
    )
    data = json.loads(run_castlint("check", "--format", "json", "engine", cwd=tmp_path).stdout)
    cost = data["findings"][0]["cost"]
    assert cost["pool_tokens"] == 131072 and cost["bytes_per_step"] == 131072 * 576 * 3 * 61
    assert {f["code"] for f in data["findings"]} == {"CL001"}


@pytest.mark.parametrize(
    "config,needle",
    [
        ("[tool.castlint]\nselec = ['CL001']\n", "selec: unknown key"),
        ("[tool.castlint]\nselect = 'nonsense code'\n", "select: must be a list of rule codes"),
        ("[tool.castlint]\nselect = ['nonsense code']\n", "select: 'nonsense code' is not a rule code"),
        ("[tool.castlint.model]\npreset = 'gpt-9'\n", "unknown preset 'gpt-9'"),
        ("[tool.castlint.model]\nlayers = -3\n", "model.layers: must be from 1 to 10,000, got -3"),
        ("[tool.castlint]\nextend-rules = ['missing.toml']\n", "rule table 'missing.toml' not found"),
        ("[tool.castlint\n", "invalid TOML"),
    ],
)
def test_bad_config_is_a_clear_error(tmp_path, config, needle):
    (tmp_path / "pyproject.toml").write_text(config)
    shutil.copy(CLEAN, tmp_path / "x.py")
    proc = run_castlint("check", ".", cwd=tmp_path)
    assert proc.returncode == 2
    assert "pyproject.toml" in proc.stderr and needle in proc.stderr


def test_explicit_config_file(tmp_path):
    cfg = tmp_path / "ci.toml"
    cfg.write_text("ignore = ['CL001']\n")
    proc = run_castlint("check", "--config", cfg, "--format", "json", BAD)
    assert json.loads(proc.stdout)["findings"] == []


def test_extend_rules_adds_an_accessor_without_python(tmp_path):
    (tmp_path / "my_rules.toml").write_text(
        textwrap.dedent("""
        schema = 1
        [[accessor]]
        name = "get_latent_cache"
        returns = "tensor"

        [[conversion_helper]]
        name = "dequant_whole_cache"
        arg = 0
        direction = "dequantize"
    """)
    )
    (tmp_path / "pyproject.toml").write_text("[tool.castlint]\nextend-rules = ['my_rules.toml']\n")
    (tmp_path / "backend.py").write_text(
        textwrap.dedent("""
        class B:
            def forward(self, q, layer):
                latent = self.pool.get_latent_cache(layer.layer_id)
                a = latent.to(q.dtype)
                return a, dequant_whole_cache(latent)
    """)
    )
    data = json.loads(run_castlint("check", "--format", "json", ".", cwd=tmp_path).stdout)
    assert [(f["start"]["line"], f["code"]) for f in data["findings"]] == [(5, "CL001"), (6, "CL004")]
    plain = run_castlint("check", "--format", "json", "--config", os.devnull, tmp_path / "backend.py")
    assert plain.returncode in (0, 2)


def test_bad_rule_table_names_file_and_key(tmp_path):
    (tmp_path / "bad.toml").write_text("schema = 1\n[[accessor]]\nname = 'x'\nreturns = 'list'\n")
    (tmp_path / "pyproject.toml").write_text("[tool.castlint]\nextend-rules = ['bad.toml']\n")
    shutil.copy(CLEAN, tmp_path / "x.py")
    proc = run_castlint("check", ".", cwd=tmp_path)
    assert proc.returncode == 2
    assert "bad.toml" in proc.stderr and "accessor[0].returns" in proc.stderr


def test_check_and_fix_never_import_torch():
    code = (
        "import sys, castlint.cli as c\n"
        "from castlint.engine import check_paths\n"
        "import castlint.fixes\n"
        "assert 'torch' not in sys.modules, 'torch imported'\n"
    )
    import subprocess
    import sys

    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
