"""The concrete fixes in SARIF, rdjson and the PR bot follow the run's config (`--config`, `extend-rules`).

The fixes are computed once by the caller (castlint.fixes.suggestions.suggest_fixes with
the run's config and tables) and handed to the renderers in meta["fix_suggestions"];
renderers never load config or compute fixes themselves. Here a rule table that only
the run's --config names adds an accessor: the cast through it is found, and its fix
must be in the report too.
"""
from __future__ import annotations

import io
import json
import textwrap
from pathlib import Path

import pytest

from conftest import run_castlint

SOURCE = """\
import torch


class LatentBackend:
    def forward_extend(self, q, layer, loc):
        latent = self.pool.get_latent_cache(layer.layer_id).to(torch.bfloat16)[loc]
        return latent
"""
CAST_LINE = 6
FIXED_LINE = "        latent = self.pool.get_latent_cache(layer.layer_id)[loc].to(torch.bfloat16)\n"


@pytest.fixture()
def project(tmp_path):
    """(source file, --config file): the config and its rule table live apart from the code,
    so only --config finds them."""
    ci = tmp_path / "ci"
    ci.mkdir()
    (ci / "latent_rules.toml").write_text(textwrap.dedent("""\
        schema = 1
        [[accessor]]
        name = "get_latent_cache"
        returns = "tensor"
    """))
    config_file = ci / "castlint.toml"
    config_file.write_text(f"extend-rules = [{str(ci / 'latent_rules.toml')!r}]\n")
    src = tmp_path / "engine"
    src.mkdir()
    backend = src / "backend.py"
    backend.write_text(SOURCE, encoding="utf-8")
    return backend, config_file


def run_check(backend: Path, config_file: Path):
    """(findings, errors, config, tables) of `castlint check --config config_file backend`."""
    from castlint.config import load_settings
    from castlint.engine import check_paths

    config, tables = load_settings([str(backend)], config_file)
    run = check_paths([str(backend)], tables, config, jobs=1)
    return run.findings, list(run.all_errors), config, tables


def apply_sarif_replacements(text: str, replacements: list) -> str:
    for r in sorted(replacements, key=lambda r: r["deletedRegion"]["charOffset"], reverse=True):
        start = r["deletedRegion"]["charOffset"]
        text = text[:start] + r["insertedContent"]["text"] + text[start + r["deletedRegion"]["charLength"]:]
    return text


def cl003_sarif_fix(doc: dict) -> dict:
    (result,) = [r for r in doc["runs"][0]["results"] if r["ruleId"] == "CL003"]
    assert result["properties"]["fixable"] is True
    (fix,) = result["fixes"]
    return fix


def assert_sarif_fixes_the_cast(doc: dict) -> None:
    (change,) = cl003_sarif_fix(doc)["artifactChanges"]
    assert change["artifactLocation"]["uri"] == "engine/backend.py"
    fixed = apply_sarif_replacements(SOURCE, change["replacements"])
    assert fixed.splitlines(keepends=True)[CAST_LINE - 1] == FIXED_LINE


def assert_rdjson_fixes_the_cast(doc: dict) -> None:
    (diagnostic,) = [d for d in doc["diagnostics"] if d["code"]["value"] == "CL003"]
    (suggestion,) = diagnostic["suggestions"]
    assert suggestion["range"]["start"] == {"line": CAST_LINE, "column": 1}
    assert suggestion["text"] == FIXED_LINE


def test_suggest_fixes_uses_the_tables_it_is_given(project):
    from castlint.fixes.suggestions import suggest_fixes
    from castlint.tables import load_tables

    backend, config_file = project
    findings, errors, config, tables = run_check(backend, config_file)
    assert not errors and [(f.code, f.start.line) for f in findings] == [("CL003", CAST_LINE)]
    (fix,) = suggest_fixes(findings, tables, config).values()
    assert not fix.whole_file and "".join(fix.blocks[0].new_lines) == FIXED_LINE
    assert f"+{FIXED_LINE}" in fix.unified_diff("engine/backend.py")
    # the builtin tables do not know the accessor: no fix, which is why the run's tables are passed
    assert suggest_fixes(findings, load_tables(), config) == {}


@pytest.mark.parametrize("fmt", ["sarif", "rdjson"])
def test_render_passes_fixes_from_the_runs_config(project, monkeypatch, fmt):
    from castlint.cli import OutputFormat, _render

    backend, config_file = project
    monkeypatch.chdir(backend.parent.parent)
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    findings, errors, config, tables = run_check(backend, config_file)
    meta = {"files": 1, "step_total_exclude": tables.decode_step_exclude_words}
    doc = json.loads(_render(OutputFormat(fmt), findings, errors, meta, False, False, config=config, tables=tables))
    (assert_sarif_fixes_the_cast if fmt == "sarif" else assert_rdjson_fixes_the_cast)(doc)
    assert "fix_suggestions" not in meta  # the caller's meta is left as it was


@pytest.mark.parametrize("fmt", ["sarif", "rdjson"])
def test_renderers_show_only_the_fixes_they_are_given(project, monkeypatch, fmt):
    """A renderer computes no fixes: without meta["fix_suggestions"] it shows the fix's description only."""
    from castlint.fixes.suggestions import suggest_fixes
    from castlint.report import FORMATS

    backend, config_file = project
    monkeypatch.chdir(backend.parent.parent)
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    findings, errors, config, tables = run_check(backend, config_file)
    bare = json.loads(FORMATS[fmt](findings, errors, {"files": 1}))
    if fmt == "sarif":
        (result,) = bare["runs"][0]["results"]
        assert "fixes" not in result and result["properties"]["fix"]["codemod"] == "cast-after-gather"
    else:
        (diagnostic,) = bare["diagnostics"]
        assert "suggestions" not in diagnostic
    given = {"files": 1, "fix_suggestions": suggest_fixes(findings, tables, config)}
    doc = json.loads(FORMATS[fmt](findings, errors, given))
    (assert_sarif_fixes_the_cast if fmt == "sarif" else assert_rdjson_fixes_the_cast)(doc)


@pytest.mark.parametrize("fmt", ["sarif", "rdjson"])
def test_check_fixes_follow_the_config_option(project, fmt):
    """`castlint check --format sarif --config FILE`: the fixes come from FILE's extend-rules."""
    backend, config_file = project
    proc = run_castlint("check", "--format", fmt, "--config", config_file, "engine/backend.py",
                        cwd=backend.parent.parent, env={"GITHUB_WORKSPACE": ""})
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    (assert_sarif_fixes_the_cast if fmt == "sarif" else assert_rdjson_fixes_the_cast)(doc)


def test_bot_comment_diffs_follow_the_config_option(project):
    from castlint.bot.command import run_bot

    backend, config_file = project
    root = backend.parent.parent
    out, err = io.StringIO(), io.StringIO()
    env = {"GITHUB_REPOSITORY": "octo/engine", "GITHUB_WORKSPACE": str(root), "GITHUB_SHA": "f" * 40}
    status = run_bot(paths=[str(backend)], dry_run=True, config_file=str(config_file), env=env, out=out, err=err)
    assert status == 1, err.getvalue()
    body = out.getvalue()
    assert "<!-- castlint-bot v1 findings=1 -->" in body
    assert "safe, diff below" in body and f"+{FIXED_LINE}" in body
