"""issue 22: ruff's other --output-format values, each read back by its consumer's parser
or checked against the format's schema: concise, full, grouped, json-lines, junit (a JUnit
XML reader), gitlab (GitLab Code Quality's fields), pylint and azure."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest

from conftest import FIXTURES, run_castlint

BAD = FIXTURES / "check" / "fa3_backend.py"


def _json(path=BAD):
    return json.loads(run_castlint("check", "-f", "json", path).stdout)


def _hostile():
    """Findings and an error whose message and path hold what each format must escape."""
    from castlint.models import FileError, Finding, Position, Severity

    message = 'cast ]; of `x`\nsecond line %0A 100% <tag> & "q" \x1b[31m'
    finding = Finding(
        "CL001", "whole-pool-cast", Severity.ERROR, "dir/a b;].py", Position(3, 5), Position(3, 9), message
    )
    return [finding], [FileError("dir/bad].py", 2, "syntax error: <no> & ]", "parse")], {"files": 2}


def test_every_ruff_format_name_is_accepted():
    from castlint.report import FORMATS

    for name in (
        "concise",
        "full",
        "grouped",
        "json",
        "json-lines",
        "junit",
        "github",
        "gitlab",
        "pylint",
        "azure",
        "sarif",
        "rdjson",
    ):
        assert name in FORMATS, name
        proc = run_castlint("check", "--output-format", name, BAD)
        assert proc.returncode == 1, (name, proc.stderr)


def test_concise_is_one_line_per_finding():
    data = _json()
    out = run_castlint("check", "--output-format", "concise", BAD).stdout.splitlines()
    pattern = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<code>CL\d+) (?P<fix>\[\*\] )?(?P<msg>.+)$")
    rows = [pattern.match(line) for line in out[: len(data["findings"])]]
    assert all(rows), out
    for row, f in zip(rows, data["findings"]):
        assert (row["path"], int(row["line"]), int(row["col"]), row["code"]) == (
            f["path"],
            f["start"]["line"],
            f["start"]["column"],
            f["code"],
        )
        assert row["msg"] == f["message"] and bool(row["fix"]) == (f["fixable"] and f["fix"]["safety"] == "safe")
    assert out[len(data["findings"])] == f"Found {len(data['findings'])} findings."
    assert " | " not in "\n".join(out)  # no code frames


def test_full_has_code_frames():
    out = run_castlint("check", "--output-format", "full", BAD).stdout
    assert "  >    21 |" in out and ": CL001 " in out


def test_grouped_groups_by_file(tmp_path):
    (tmp_path / "a.py").write_text(BAD.read_text())
    (tmp_path / "b.py").write_text(BAD.read_text())
    out = run_castlint("check", "--output-format", "grouped", ".", cwd=tmp_path).stdout
    blocks = out.strip().split("\n\n")
    assert blocks[0].splitlines()[0] == "./a.py:" and blocks[1].splitlines()[0] == "./b.py:"
    row = re.compile(r"^  (\d+):(\d+)\s+(CL\d+) ")
    assert all(row.match(line) for line in blocks[0].splitlines()[1:])
    assert blocks[-1] == "Found 6 findings."


def test_json_lines_each_line_is_a_finding():
    data = _json()
    lines = run_castlint("check", "--output-format", "json-lines", BAD).stdout.splitlines()
    parsed = [json.loads(line) for line in lines]
    assert [p.pop("type") for p in parsed] == ["finding"] * len(data["findings"])
    assert parsed == data["findings"]
    findings, errors, meta = _hostile()
    from castlint.report import json_lines

    text = json_lines.render(findings, errors, meta)
    assert len(text.splitlines()) == 2 and all(json.loads(line) for line in text.splitlines())
    assert json.loads(text.splitlines()[1])["type"] == "error"


def test_junit_reads_back_with_a_junit_parser():
    junitparser = pytest.importorskip("junitparser")
    data = _json()
    text = run_castlint("check", "--output-format", "junit", BAD).stdout
    xml = junitparser.JUnitXml.fromstring(text)
    suites = list(xml) if isinstance(xml, junitparser.JUnitXml) else [xml]
    cases = [case for suite in suites for case in suite]
    assert len(cases) == len(data["findings"])
    for case, f in zip(cases, data["findings"]):
        assert case.name == f"org.castlint.{f['code']}" and case.classname == f["path"]
        (result,) = case.result
        assert isinstance(result, junitparser.Failure) and result.message == f["message"]
    root = ET.fromstring(text)  # and the attributes Jenkins and GitLab read
    assert root.tag == "testsuites" and root.get("failures") == str(len(data["findings"]))
    suite = root.find("testsuite")
    assert suite.get("name") == str(BAD) and suite.get("tests") == str(len(data["findings"]))
    assert suite.find("testcase").get("line") == str(data["findings"][0]["start"]["line"])


def test_junit_escapes_and_reports_errors():
    from castlint.report import junit

    findings, errors, meta = _hostile()
    root = ET.fromstring(junit.render(findings, errors, meta))  # well-formed XML 1.0, control bytes written out
    failure = root.find(".//failure")
    assert failure.get("message").startswith("cast ]; of `x`") and '<tag> & "q"' in failure.get("message")
    assert "\x1b" not in failure.get("message")
    error = root.find(".//error")
    assert error is not None and error.get("message") == "syntax error: <no> & ]"
    clean = ET.fromstring(junit.render([], [], {"files": 1}))
    assert clean.find(".//testcase").get("name") == "No findings" and clean.get("failures") == "0"


# GitLab Code Quality (docs.gitlab.com/ci/testing/code_quality/#code-quality-report-format): the fields
# GitLab reads, as a JSON schema
GITLAB_SCHEMA = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["description", "check_name", "fingerprint", "severity", "location"],
        "properties": {
            "description": {"type": "string", "minLength": 1},
            "check_name": {"type": "string", "minLength": 1},
            "fingerprint": {"type": "string", "pattern": "^[0-9a-f]{32}$"},
            "severity": {"enum": ["info", "minor", "major", "critical", "blocker"]},
            "location": {
                "type": "object",
                "required": ["path"],
                "properties": {
                    "path": {"type": "string", "not": {"pattern": "^/"}},
                    "lines": {
                        "type": "object",
                        "required": ["begin"],
                        "properties": {"begin": {"type": "integer", "minimum": 1}},
                    },
                    "positions": {
                        "type": "object",
                        "required": ["begin"],
                        "properties": {
                            "begin": {
                                "type": "object",
                                "required": ["line"],
                                "properties": {"line": {"type": "integer", "minimum": 1}},
                            }
                        },
                    },
                },
                "anyOf": [{"required": ["lines"]}, {"required": ["positions"]}],
            },
        },
    },
}


def test_gitlab_code_quality(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    (tmp_path / "backend.py").write_text(BAD.read_text())
    (tmp_path / "broken.py").write_text("def f(:\n")
    args = ("check", "--no-cache", "--output-format", "gitlab", "backend.py", "broken.py")
    proc = run_castlint(*args, cwd=tmp_path, env={"CI_PROJECT_DIR": str(tmp_path)})
    issues = json.loads(proc.stdout)
    jsonschema.validate(issues, GITLAB_SCHEMA)
    assert {i["location"]["path"] for i in issues} == {"backend.py", "broken.py"}
    assert len({i["fingerprint"] for i in issues}) == len(issues)
    again = json.loads(run_castlint(*args, cwd=tmp_path, env={"CI_PROJECT_DIR": str(tmp_path)}).stdout)
    assert [i["fingerprint"] for i in again] == [i["fingerprint"] for i in issues]  # stable across runs
    broken = next(i for i in issues if i["location"]["path"] == "broken.py")
    assert broken["severity"] == "critical"


def test_pylint_parseable():
    data = _json()
    lines = run_castlint("check", "--output-format", "pylint", BAD).stdout.splitlines()
    pattern = re.compile(r"^(?P<path>.+?):(?P<line>\d+): \[(?P<code>[A-Z]+\d+)\] (?P<msg>.*)$")  # pylint's parseable
    rows = [pattern.match(line) for line in lines]
    assert all(rows) and len(rows) == len(data["findings"])
    assert [(r["path"], int(r["line"]), r["code"]) for r in rows] == [
        (f["path"], f["start"]["line"], f["code"]) for f in data["findings"]
    ]


AZURE = re.compile(r"^##vso\[task\.logissue (?P<props>[^\]]*)\](?P<msg>.*)$")


def _azure_unescape(value: str) -> str:
    for raw, coded in (("\r", "%0D"), ("\n", "%0A"), (";", "%3B"), ("]", "%5D"), ("%", "%AZP25")):
        value = value.replace(coded, raw)
    return value


def _azure(line: str) -> tuple:
    match = AZURE.match(line)
    assert match, line
    props = dict(item.split("=", 1) for item in match["props"].split(";") if item)
    return {k: _azure_unescape(v) for k, v in props.items()}, _azure_unescape(match["msg"])


def test_azure_logging_commands():
    data = _json()
    lines = run_castlint("check", "--output-format", "azure", BAD).stdout.splitlines()
    assert len(lines) == len(data["findings"])
    for line, f in zip(lines, data["findings"]):
        props, message = _azure(line)
        assert props["type"] == f["severity"] and props["code"] == f["code"]
        assert int(props["linenumber"]) == f["start"]["line"] and int(props["columnnumber"]) == f["start"]["column"]
        assert message == f["message"]


def test_azure_escapes_what_would_end_a_command():
    from castlint.report import azure

    findings, errors, meta = _hostile()
    lines = azure.render(findings, errors, meta).splitlines()
    assert len(lines) == 2  # the newline in the message did not start a command of its own
    props, message = _azure(lines[0])
    assert message == findings[0].message and props["sourcepath"] == "dir/a b;].py"
    props, message = _azure(lines[1])
    assert props["type"] == "error" and message == "syntax error: <no> & ]"
