"""Rule selectors and config values: one validator for the flags and the files, errors that name their source.

Issue 12 (bugs 2 and 3) and issue 10 (config values accepted silently, rich markup
in error messages)."""

import json
import shutil

import pytest

from castlint.checks import ALL_RULES
from castlint.cli import _fix_word
from castlint.codes import RULES, SelectorError, check_selector, parse_selectors
from conftest import FIXTURES, run_castlint

BAD = FIXTURES / "check" / "fa3_backend.py"  # 3 findings


def project(tmp_path, config: str):
    (tmp_path / "pyproject.toml").write_text(config)
    shutil.copy(BAD, tmp_path / "backend.py")
    return tmp_path


def test_codes_table_matches_the_rules():
    """castlint.codes (read without libcst) says what the rule classes say."""
    assert [(r.code, r.name, r.summary, r.fix) for r in RULES] == [
        (r.code, r.name, r.summary, _fix_word(r)) for r in ALL_RULES
    ]


@pytest.mark.parametrize("flag", ["--select", "--ignore", "--extend-select"])
def test_a_flag_prefix_that_selects_nothing_is_an_error(flag):
    proc = run_castlint("check", flag, "CL7", BAD)
    assert proc.returncode == 2, proc.stdout
    assert f"{flag}: 'CL7' selects no rule" in proc.stderr
    assert proc.stdout == ""


def test_select_cl9_is_not_a_silent_pass():
    """CL9 matches only CL900, which reports suppressions of the rules that run: alone it can never fire."""
    proc = run_castlint("check", "--select", "CL9", BAD)
    assert proc.returncode == 2 and "All checks passed" not in proc.stdout
    assert "--select CL9 leaves CL900 enabled" in proc.stderr


def test_select_and_ignore_that_leave_nothing_is_an_error():
    proc = run_castlint("check", "--select", "CL001", "--ignore", "CL0", BAD)
    assert proc.returncode == 2
    assert "--select CL001 and --ignore CL0 leaves no rule enabled" in proc.stderr


@pytest.mark.parametrize("key", ["select", "ignore", "extend-select"])
def test_a_config_prefix_that_selects_nothing_names_file_and_key(tmp_path, key):
    project(tmp_path, f'[tool.castlint]\n{key} = ["CL7"]\n')
    proc = run_castlint("check", ".", cwd=tmp_path)
    assert proc.returncode == 2
    assert f"{tmp_path / 'pyproject.toml'}: {key}: 'CL7' selects no rule" in proc.stderr


def test_config_select_cl9_names_file_and_key(tmp_path):
    project(tmp_path, '[tool.castlint]\nselect = ["CL9"]\n')
    proc = run_castlint("check", ".", cwd=tmp_path)
    assert proc.returncode == 2 and f"{tmp_path / 'pyproject.toml'}: select leaves CL900 enabled" in proc.stderr


def test_config_ignore_unknown_code_names_file_and_key(tmp_path):
    project(tmp_path, '[tool.castlint]\nignore = ["XYZ"]\n')
    proc = run_castlint("check", ".", cwd=tmp_path)
    assert proc.returncode == 2
    assert f"{tmp_path / 'pyproject.toml'}: ignore: 'XYZ' selects no rule" in proc.stderr


def test_lower_case_codes_are_rejected_the_same_way_on_the_cli_and_in_config(tmp_path):
    cli = run_castlint("check", "--select", "cl001", BAD)
    project(tmp_path, '[tool.castlint]\nselect = ["cl001"]\n')
    config = run_castlint("check", ".", cwd=tmp_path)
    for proc, source in ((cli, "--select"), (config, f"{tmp_path / 'pyproject.toml'}: select")):
        assert proc.returncode == 2
        assert f"{source}: 'cl001' is not a rule code or prefix" in proc.stderr
        assert "did you mean 'CL001'?" in proc.stderr


def test_a_string_where_a_list_belongs_is_rejected_like_exclude(tmp_path):
    for key in ("select", "ignore", "exclude"):
        project(tmp_path, f'[tool.castlint]\n{key} = "CL001"\n')
        proc = run_castlint("check", ".", cwd=tmp_path)
        assert proc.returncode == 2, key
        assert f"pyproject.toml: {key}: must be a list" in proc.stderr


def test_empty_select_list_selects_nothing(tmp_path):
    project(tmp_path, "[tool.castlint]\nselect = []\n")
    proc = run_castlint("check", ".", cwd=tmp_path)
    assert proc.returncode == 2 and "select: an empty list selects no rule" in proc.stderr


def test_per_file_ignores_value_that_names_no_rule(tmp_path):
    """Issue 10: accepted silently before."""
    project(tmp_path, '[tool.castlint]\nper-file-ignores = { "backend.py" = ["XY9"] }\n')
    proc = run_castlint("check", ".", cwd=tmp_path)
    assert proc.returncode == 2
    assert f"{tmp_path / 'pyproject.toml'}: per-file-ignores.\"backend.py\": 'XY9' selects no rule" in proc.stderr


@pytest.mark.parametrize(
    "value,needle",
    [
        (
            "100000000000000000000",
            "model.pool-tokens: must be from 1 to 1,000,000,000,000, got 100,000,000,000,000,000,000",
        ),
        ("1e20", "model.pool-tokens: must be an integer from 1 to 1,000,000,000,000, got 1e+20"),
        ("0", "model.pool-tokens: must be from 1"),
    ],
)
def test_pool_tokens_out_of_range(tmp_path, value, needle):
    """Issue 10: `pool-tokens = 1e20` (the integer) printed costs in the yottabytes."""
    project(tmp_path, f"[tool.castlint.model]\npool-tokens = {value}\n")
    proc = run_castlint("check", ".", cwd=tmp_path)
    assert proc.returncode == 2
    assert str(tmp_path / "pyproject.toml") in proc.stderr and needle in proc.stderr


def test_select_all_and_extend_select(tmp_path):
    got = json.loads(run_castlint("check", "--format", "json", "--select", "ALL", BAD).stdout)
    assert {f["code"] for f in got["findings"]} == {"CL001"}
    both = FIXTURES / "check"
    got = json.loads(run_castlint("check", "-f", "json", "--select", "CL004", "--extend-select", "CL002", both).stdout)
    assert {f["code"] for f in got["findings"]} == {"CL002", "CL004"}
    project(tmp_path, '[tool.castlint]\nselect = ["CL004"]\nextend-select = ["CL001"]\n')
    shutil.copy(FIXTURES / "check" / "sparse_backend.py", tmp_path / "sparse.py")
    got = json.loads(run_castlint("check", "-f", "json", ".", cwd=tmp_path).stdout)
    assert {f["code"] for f in got["findings"]} == {"CL001", "CL004"}


def test_validator_unit():
    assert parse_selectors(["CL001, CL00", "ALL"], "--select") == (
        "CL001",
        "CL00",
        "CL002",
        "CL003",
        "CL004",
        "CL005",
        "CL101",
        "CL900",
    )
    with pytest.raises(SelectorError) as info:
        check_selector("C[/]L", "x.toml: select")
    assert str(info.value).startswith("x.toml: select: 'C[/]L' is not a rule code")


# -- rich markup in messages (issue 10) ---------------------------------------------


def test_config_key_with_markup_is_shown_verbatim(tmp_path):
    """A key holding `[/]` raised rich's MarkupError; `[codes]` vanished from the message."""
    project(tmp_path, '[tool.castlint]\n"a[/]b" = 1\n')
    proc = run_castlint("check", ".", cwd=tmp_path)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "MarkupError" not in proc.stderr
    assert "a[/]b: unknown key" in proc.stderr


@pytest.mark.parametrize(
    "config,needle",
    [
        ('[tool.castlint]\nselect = ["C[/]L"]\n', "'C[/]L' is not a rule code"),
        ('[tool.castlint]\nselect = ["[codes]"]\n', "'[codes]' is not a rule code"),
        ('[tool.castlint.model]\npreset = "[schema]"\n', "unknown preset '[schema]'"),
        ('[tool.castlint]\nper-file-ignores = { "[bold]x.py" = ["CL9x"] }\n', 'per-file-ignores."[bold]x.py"'),
    ],
)
def test_user_text_with_brackets_survives(tmp_path, config, needle):
    project(tmp_path, config)
    proc = run_castlint("check", ".", cwd=tmp_path)
    assert proc.returncode == 2 and needle in proc.stderr, proc.stderr


def test_extend_rules_error_with_brackets_survives(tmp_path):
    (tmp_path / "my[schema].toml").write_text("schema = 2\n")
    project(tmp_path, "[tool.castlint]\nextend-rules = ['my[schema].toml']\n")
    proc = run_castlint("check", ".", cwd=tmp_path)
    assert proc.returncode == 2
    assert "my[schema].toml: [schema] unsupported schema 2" in proc.stderr


def test_flag_value_with_markup_in_an_error():
    proc = run_castlint("check", "--select", "[red]CL", BAD)
    assert proc.returncode == 2 and "'[red]CL' is not a rule code" in proc.stderr


def test_errors_are_never_hard_wrapped(tmp_path):
    """Paths in errors stay on one line when stderr is not a terminal (bug 6)."""
    deep = tmp_path / ("very-long-directory-name-" * 4) / ("another-long-directory-name-" * 3)
    deep.mkdir(parents=True)
    (deep / "pyproject.toml").write_text("[tool.castlint.model]\nlayers = -3\n")
    shutil.copy(BAD, deep / "backend.py")
    proc = run_castlint("check", ".", cwd=deep, env={"COLUMNS": "80"})
    assert proc.returncode == 2
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and str(deep / "pyproject.toml") in lines[0], proc.stderr
