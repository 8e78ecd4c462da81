"""The concrete fixes in SARIF, rdjson and the PR bot follow the run's config (`--config`, `extend-rules`).

The fixes' edits are computed in the run, on the analysis that found the findings, with
the run's config and tables (castlint.session: Session.check(edits=...)), and carried by
the findings (Fix.edits); renderers never load config or compute fixes themselves. Here a rule table that only
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
    (ci / "latent_rules.toml").write_text(
        textwrap.dedent("""\
        schema = 1
        [[accessor]]
        name = "get_latent_cache"
        returns = "tensor"
    """)
    )
    config_file = ci / "castlint.toml"
    config_file.write_text(f"extend-rules = [{str(ci / 'latent_rules.toml')!r}]\n")
    src = tmp_path / "engine"
    src.mkdir()
    backend = src / "backend.py"
    backend.write_text(SOURCE, encoding="utf-8")
    return backend, config_file


def run_check(backend: Path, config_file: Path, edits: bool = True, tables=None):
    """(findings, errors, config, tables) of `castlint check --config config_file backend`, the
    fixable findings with their edits unless edits=False; tables: other tables than the config's."""
    from castlint.config import load_settings
    from castlint.engine import check_paths
    from castlint.session import FixOptions, describer, take_edits

    config, run_tables = load_settings([str(backend)], config_file)
    tables = tables or run_tables
    fixer = describer(FixOptions()) if edits else None
    run = check_paths([str(backend)], tables, config, jobs=1, cache=False, fixer=fixer)
    take_edits(run.results)
    return run.findings, list(run.all_errors), config, tables


def apply_sarif_replacements(text: str, replacements: list) -> str:
    for r in sorted(replacements, key=lambda r: r["deletedRegion"]["charOffset"], reverse=True):
        start = r["deletedRegion"]["charOffset"]
        text = text[:start] + r["insertedContent"]["text"] + text[start + r["deletedRegion"]["charLength"] :]
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


def test_the_edits_follow_the_tables_of_the_run(project):
    from castlint.fixes.edit_set import finding_fixes
    from castlint.tables import load_tables

    backend, config_file = project
    findings, errors, config, tables = run_check(backend, config_file)
    assert not errors and [(f.code, f.start.line) for f in findings] == [("CL003", CAST_LINE)]
    (edit,) = findings[0].fix.edits
    assert edit.content == FIXED_LINE and edit.location.line == CAST_LINE and findings[0].fix.file_fix is None
    (fix,) = finding_fixes(findings).values()
    assert not fix.whole_file and "".join(fix.blocks[0].new_lines) == FIXED_LINE
    assert f"+{FIXED_LINE}" in fix.unified_diff("engine/backend.py")
    # the builtin tables do not know the accessor: no finding, no edit
    assert run_check(backend, config_file, tables=load_tables())[0] == []


@pytest.mark.parametrize("fmt", ["sarif", "rdjson"])
def test_check_shows_the_fixes_of_the_runs_config(project, monkeypatch, fmt):
    backend, config_file = project
    monkeypatch.chdir(backend.parent.parent)
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    proc = run_castlint("check", "--no-cache", "--config", config_file, "--format", fmt, backend)
    assert proc.returncode == 1, proc.stderr
    (assert_sarif_fixes_the_cast if fmt == "sarif" else assert_rdjson_fixes_the_cast)(json.loads(proc.stdout))


@pytest.mark.parametrize("fmt", ["sarif", "rdjson"])
def test_renderers_show_only_the_fixes_they_are_given(project, monkeypatch, fmt):
    """A renderer computes no fixes: findings without edits show the fix's description only."""
    from castlint.report import FORMATS

    backend, config_file = project
    monkeypatch.chdir(backend.parent.parent)
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    findings, errors, config, tables = run_check(backend, config_file, edits=False)
    bare = json.loads(FORMATS[fmt](findings, errors, {"files": 1}))
    if fmt == "sarif":
        (result,) = bare["runs"][0]["results"]
        assert "fixes" not in result and result["properties"]["fix"]["codemod"] == "cast-after-gather"
    else:
        (diagnostic,) = bare["diagnostics"]
        assert "suggestions" not in diagnostic
    findings, errors, _, _ = run_check(backend, config_file)
    doc = json.loads(FORMATS[fmt](findings, errors, {"files": 1}))
    (assert_sarif_fixes_the_cast if fmt == "sarif" else assert_rdjson_fixes_the_cast)(doc)


@pytest.mark.parametrize("fmt", ["sarif", "rdjson"])
def test_check_fixes_follow_the_config_option(project, fmt):
    """`castlint check --format sarif --config FILE`: the fixes come from FILE's extend-rules."""
    backend, config_file = project
    proc = run_castlint(
        "check",
        "--format",
        fmt,
        "--config",
        config_file,
        "engine/backend.py",
        cwd=backend.parent.parent,
        env={"GITHUB_WORKSPACE": ""},
    )
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
