"""What a ruff user expects from the command line (issue 12): flags, `rule`, stdin, output."""

import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

from conftest import FIXTURES, ROOT, run_castlint

BAD = FIXTURES / "check" / "fa3_backend.py"  # 3 CL001, no fix
# one safe fix (CL003), one unsafe (CL003 with .to(other)), one finding with no fix (CL001)
MIXED = textwrap.dedent("""\
    import torch


    class ToyBackend:
        def forward_decode(self, q, layer, loc):
            rows = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)[loc]
            other = self.token_to_kv_pool.get_value_buffer(layer.layer_id).to(q)[loc]
            whole = self.token_to_kv_pool.get_value_buffer(layer.layer_id).to(q.dtype)
            return rows, other, whole
""")
SAFE_FIXED = "self.token_to_kv_pool.get_key_buffer(layer.layer_id)[loc].to(torch.bfloat16)"


def mixed(tmp_path):
    target = tmp_path / "x.py"
    target.write_text(MIXED)
    return target


def test_quiet_prints_no_summary():
    proc = run_castlint("check", "-q", BAD)
    assert proc.returncode == 1
    assert "Found" not in proc.stdout and "checked" not in proc.stdout
    assert all(": CL" in line for line in proc.stdout.splitlines())
    assert run_castlint("check", "-q", FIXTURES / "check" / "false_positives.py").stdout == ""


def test_output_format_is_an_alias_of_format():
    a = run_castlint("check", "--output-format", "json", BAD)
    b = run_castlint("check", "--format", "json", BAD)
    assert json.loads(a.stdout) == json.loads(b.stdout)


def test_help_documents_every_new_flag():
    out = run_castlint("check", "--help").stdout
    for flag in (
        "--output-format",
        "--statistics",
        "--show-fixes",
        "--extend-select",
        "--exclude",
        "--extend-exclude",
        "--add-noqa",
        "--show-files",
        "--show-settings",
        "--color",
        "--fix-only",
        "--stdin-filename",
        "--no-respect-gitignore",
    ):
        assert flag in out, flag
    assert "ALL" in out
    fix_help = run_castlint("fix", "--help").stdout
    for flag in ("--fix-only", "--show-fixes", "--stdin-filename", "--statistics"):
        assert flag in fix_help, flag


def test_every_new_flag_is_in_the_readme():
    readme = (ROOT / "README.md").read_text()
    for flag in (
        "--output-format",
        "--statistics",
        "--show-fixes",
        "--extend-select",
        "--exclude",
        "--extend-exclude",
        "--select ALL",
        "--add-noqa",
        "--show-files",
        "--show-settings",
        "--color",
        "--fix-only",
        "--stdin-filename",
        "--no-respect-gitignore",
        "castlint rule CL001",
        "castlint fix -",
    ):
        assert flag in readme, flag


def test_statistics(tmp_path):
    mixed(tmp_path)
    proc = run_castlint("check", "--statistics", tmp_path)
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert lines[:2] == ["2\tCL003\t[-] cast-before-gather", "1\tCL001\t    whole-pool-cast"], lines
    assert lines[3] == "per decode step, by backend (a server runs one):"
    assert lines[4].endswith(f"\tToyBackend ({tmp_path / 'x.py'})")
    data = json.loads(run_castlint("check", "--statistics", "-f", "json", tmp_path).stdout)
    assert data[0] == {
        "code": "CL003",
        "name": "cast-before-gather",
        "count": 2,
        "fixable": False,
        "fixable_count": 1,
        "unsafe_fixable_count": 1,
    }
    assert data[1]["code"] == "CL001" and data[1]["fixable_count"] == 0


def test_fix_summary_in_ruffs_form_on_stdout(tmp_path):
    target = mixed(tmp_path)
    proc = run_castlint("check", "--fix", tmp_path)
    assert proc.returncode == 1  # the unsafe one and the unfixable one are left
    assert SAFE_FIXED in target.read_text()
    assert "Found 3 findings (1 fixed, 2 remaining)." in proc.stdout
    assert "Found" not in proc.stderr
    again = run_castlint("check", "--fix", tmp_path)
    assert "Found 2 findings (0 fixed, 2 remaining)." in again.stdout
    unsafe = run_castlint("check", "--fix", "--unsafe-fixes", tmp_path)
    assert "Found 2 findings (1 fixed, 1 remaining)." in unsafe.stdout


def test_show_fixes(tmp_path):
    mixed(tmp_path)
    proc = run_castlint("fix", "--show-fixes", tmp_path)
    assert "Fixed 1 finding:" in proc.stdout
    assert f"- {tmp_path / 'x.py'}:\n    1 × CL003 (cast-before-gather)\n" in proc.stdout
    assert run_castlint("fix", "--show-fixes", tmp_path).stdout.count("Fixed ") == 0  # nothing more to fix


def test_fix_only_reports_nothing_left_and_exits_0(tmp_path):
    target = mixed(tmp_path)
    proc = run_castlint("check", "--fix-only", tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == "Fixed 1 finding.\n"
    assert SAFE_FIXED in target.read_text() and ".to(q)[loc]" in target.read_text()  # the unsafe one stays
    assert run_castlint("fix", "--fix-only", tmp_path).stdout == "No findings fixed.\n"
    mixed(tmp_path)
    assert run_castlint("fix", "--fix-only", "--exit-non-zero-on-fix", tmp_path).returncode == 1


def test_show_files(tmp_path):
    for rel in ("b.py", "a/c.pyi", "a/notes.txt", "build/gen.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x = 1\n")
    proc = run_castlint("check", "--show-files", ".", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout == "./a/c.pyi\n./b.py\n"


def test_show_settings(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.castlint]\nignore = ["CL004"]\n[tool.castlint.model]\npreset = "deepseek-v3"\n'
    )
    proc = run_castlint("check", "--show-settings", "--select", "CL0", ".", cwd=tmp_path)
    assert proc.returncode == 0
    assert f'config_file = "{tmp_path / "pyproject.toml"}"' in proc.stdout
    assert 'enabled_rules = ["CL001", "CL002", "CL003"]' in proc.stdout
    assert 'model.name = "deepseek-v3"' in proc.stdout and "respect_gitignore = true" in proc.stdout
    data = json.loads(run_castlint("check", "--show-settings", "-f", "json", ".", cwd=tmp_path).stdout)
    assert data["ignore"] == ["CL004"] and data["model"]["layers"] == 61


def test_color_always_never_auto():
    always = run_castlint("check", "--color", "always", BAD)
    assert "\x1b[" in always.stdout
    never = run_castlint("check", "--color", "never", BAD, env={"NO_COLOR": "", "FORCE_COLOR": "1"})
    assert "\x1b[" not in never.stdout
    auto = run_castlint("check", BAD)  # not a terminal
    assert "\x1b[" not in auto.stdout
    bad = run_castlint("check", "--color", "sometimes", BAD)
    assert bad.returncode == 2 and "--color" in bad.stderr


def test_rule_singular_and_rules():
    doc = run_castlint("rule", "CL001")
    assert doc.returncode == 0 and "What it does" in doc.stdout and "whole-pool-cast" in doc.stdout
    assert "Traceback" not in doc.stderr
    by_name = run_castlint("rule", "cast-before-gather")
    assert "CL003" in by_name.stdout
    data = json.loads(run_castlint("rule", "CL002", "--output-format", "json").stdout)
    assert data["code"] == "CL002" and "## Fix safety" in data["explanation"]
    assert "CL900" in run_castlint("rule", "--all").stdout
    missing = run_castlint("rule", "CL777")
    assert missing.returncode == 2 and "no rule 'CL777'" in missing.stderr
    listing = run_castlint("rules", "-f", "json")
    from castlint.codes import RULE_CODES

    assert [r["code"] for r in json.loads(listing.stdout)] == list(RULE_CODES)


def _modules_after(args):
    code = (
        "import sys\nfrom castlint.cli import main\n"
        f"try:\n    main({args!r})\nexcept SystemExit:\n    pass\n"
        "sys.stderr.write(' '.join(sorted(sys.modules)))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, capture_output=True, text=True)
    return set(proc.stderr.split())


def test_rules_loads_no_more_than_version_and_the_registry():
    """`castlint rules` is about as fast as --version: it lists the rule classes (the one
    registry, castlint.checks) without libcst or the analysis, and the plain command skips
    typer's per-command set-up (which imports pydantic)."""
    extra = _modules_after(["rules"]) - _modules_after(["--version"])
    assert "castlint.checks.whole_pool_cast" in extra
    assert not {
        m
        for m in extra
        if m.split(".")[0] in ("libcst", "pydantic", "torch")
        or m.startswith(
            ("castlint.analysis.dataflow", "castlint.engine", "castlint.prune", "castlint.fixes", "castlint.report")
        )
    }, extra


# -- stdin --------------------------------------------------------------------------


def test_check_stdin_with_a_filename():
    source = BAD.read_text()
    proc = run_castlint("check", "--stdin-filename", "engine/fa3.py", "-", input=source)
    assert proc.returncode == 1
    assert "engine/fa3.py:21:20: CL001" in proc.stdout
    assert "  >    21 |" in proc.stdout  # the frame comes from stdin, not from a file
    assert run_castlint("check", "--stdin-filename", "x.py", input="x = 1\n").returncode == 0
    assert run_castlint("check", "-", input="x = 1\n").returncode == 0


def test_check_stdin_syntax_error():
    proc = run_castlint(
        "check", "--stdin-filename", "x.py", "-", input="def f(:\n    pool.get_key_buffer(0).to(q.dtype)\n"
    )
    assert proc.returncode == 2 and "x.py:1: error" in proc.stdout


def test_fix_stdin_writes_the_fixed_source_to_stdout(tmp_path):
    proc = run_castlint("fix", "--stdin-filename", str(tmp_path / "x.py"), "-", input=MIXED)
    assert proc.returncode == 1  # findings left
    assert proc.stdout == MIXED.replace(
        SAFE_FIXED.replace("[loc].to(torch.bfloat16)", ".to(torch.bfloat16)[loc]"), SAFE_FIXED
    )
    assert "CL003" in proc.stderr and "Found 3 findings (1 fixed, 2 remaining)." in proc.stderr
    assert "  >     8 |" in proc.stderr  # frames from the fixed source
    assert not (tmp_path / "x.py").exists()  # nothing written
    clean = run_castlint("fix", "-", input="x = 1\n")
    assert clean.returncode == 0 and clean.stdout == "x = 1\n"
    diff = run_castlint("fix", "--diff", "--stdin-filename", "x.py", "-", input=MIXED)
    assert diff.returncode == 1 and diff.stdout.startswith("--- a/x.py")
    only = run_castlint("check", "--fix-only", "-", input=MIXED)
    assert only.returncode == 0 and only.stderr == "" and SAFE_FIXED in only.stdout


def test_stdin_reads_config_for_its_filename(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.castlint]\nignore = ["CL001"]\n')
    proc = run_castlint("check", "--stdin-filename", str(tmp_path / "x.py"), "-", input=BAD.read_text())
    assert proc.returncode == 0, proc.stdout


def test_stdin_cannot_mix_with_paths():
    proc = run_castlint("check", "-", str(BAD), input="")
    assert proc.returncode == 2 and "cannot be mixed" in proc.stderr


# -- --add-noqa -----------------------------------------------------------------------

NOQA_SOURCE = textwrap.dedent('''\
    import torch


    class B:
        def forward_decode(self, q, layer, loc):
            a = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)  # keep me
            b = self.token_to_kv_pool.get_key_buffer(
                layer.layer_id
            ).to(torch.bfloat16)  # noqa: E501
            c = self.token_to_kv_pool.get_value_buffer(layer.layer_id).to(q.dtype)[loc]  # castlint: ignore[CL002]
            d = (self.token_to_kv_pool.get_key_buffer(layer.layer_id), """
    text""")[0].to(q.dtype)
            return a, b, c, d
''')


def test_add_noqa_silences_every_finding_and_keeps_comments(tmp_path):
    target = tmp_path / "b.py"
    target.write_bytes(NOQA_SOURCE.replace("\n", "\r\n").encode())
    before = run_castlint("check", "-f", "json", "--no-cache", target)
    assert len(json.loads(before.stdout)["findings"]) >= 3
    proc = run_castlint("check", "--add-noqa", "--no-cache", target)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.match(r"Added \d+ noqa directives?\.", proc.stdout)
    text = target.read_bytes().decode()
    assert "\r\n" in text and "\n" not in text.replace("\r\n", "")  # line endings kept
    assert "(q.dtype)  # keep me  # noqa: CL001" in text
    assert "self.token_to_kv_pool.get_key_buffer(  # noqa: CL001" in text or "# noqa: E501, CL001" in text
    assert "# castlint: ignore[CL002, CL003]" in text or "# castlint: ignore[CL002, CL001]" in text
    compile(text, "b.py", "exec")
    after = json.loads(run_castlint("check", "-f", "json", "--no-cache", target).stdout)
    # all silenced, but for the CL900 on the unused `ignore[CL002]`: that one is deleted, never suppressed
    assert [(f["code"], f["start"]["line"]) for f in after["findings"]] == [("CL900", 10)]
    again = run_castlint("check", "--add-noqa", "--no-cache", target)
    assert again.stdout == "Added 0 noqa directives.\n" and target.read_bytes().decode() == text


def test_add_noqa_unit_string_lines_and_continuations():
    from castlint.noqa import add_to_source

    src = b'x = f("""a\nb""") + \\\n    g\n'
    new, edited, unplaced = add_to_source(src, [(1, 3, "CL001")])
    assert new == b'x = f("""a\nb""") + \\\n    g  # noqa: CL001\n' and edited == 1 and unplaced == []
    new, _, unplaced = add_to_source(b's = """a\nb"""\n', [(1, 1, "CL001")])
    assert unplaced == [(1, "CL001")] and new == b's = """a\nb"""\n'
    new, _, _ = add_to_source(b"\xef\xbb\xbfy = 1  # noqa:E501\n", [(1, 1, "CL004"), (1, 1, "CL900")])
    assert new == b"\xef\xbb\xbfy = 1  # noqa:E501, CL004\n"  # BOM kept; CL900 is never suppressed


def test_add_noqa_refuses_with_fix():
    proc = run_castlint("check", "--add-noqa", "--fix", BAD)
    assert proc.returncode == 2 and "--add-noqa cannot be combined" in proc.stderr


# -- progress bar -------------------------------------------------------------------


def _tree(root, n=220):
    root.mkdir()
    for i in range(n):
        (root / f"m{i:03d}.py").write_text("x = 1\n")
    return root


def test_no_progress_bar_when_stderr_is_not_a_terminal(tmp_path):
    proc = run_castlint("check", "--no-cache", _tree(tmp_path / "t"))
    assert proc.returncode == 0 and proc.stderr == ""


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_progress_bar_on_a_terminal_goes_to_stderr(tmp_path):
    tree = _tree(tmp_path / "t", 400)
    master, slave = os.openpty()
    env = dict(os.environ, COLUMNS="100", TERM="xterm")
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "castlint", "check", "--no-cache", "-j", "1", str(tree)],
        stdout=subprocess.PIPE,
        stderr=slave,
        stdin=subprocess.DEVNULL,
        env=env,
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    out, _ = proc.communicate(timeout=120)
    os.close(master)
    err = b"".join(chunks).decode("utf-8", "replace")
    assert "checking" in err and "/400" in err  # rich's bar: description, done/total
    assert b"checking" not in out and out.decode().startswith("All checks passed.")
