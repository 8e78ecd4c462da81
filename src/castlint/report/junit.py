"""--output-format junit: JUnit XML (ruff's junit), for Jenkins and GitLab test reports.

One <testsuite> per file with a <testcase> per finding (a <failure>) or per error (an
<error>: the file could not be checked); a clean run is one passing testcase. Built
with xml.etree, so names and messages are escaped; characters XML 1.0 cannot hold
(control characters, undecodable bytes) are written out (castlint.report.names)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from castlint.report.names import escaped

PACKAGE = "org.castlint"


def _text(value: str) -> str:
    return escaped(value)  # no control character, no lone surrogate: valid XML 1.0 text


def render(findings, errors, meta) -> str:
    by_path: dict = {}
    for f in findings:
        by_path.setdefault(f.path, ([], []))[0].append(f)
    for e in errors:
        by_path.setdefault(e.path, ([], []))[1].append(e)
    root = ET.Element(
        "testsuites",
        name="castlint",
        tests=str(max(len(findings) + len(errors), 1)),
        failures=str(len(findings)),
        errors=str(len(errors)),
    )
    for path in sorted(by_path):
        found, failed = by_path[path]
        suite = ET.SubElement(
            root,
            "testsuite",
            name=_text(path),
            tests=str(len(found) + len(failed)),
            disabled="0",
            errors=str(len(failed)),
            failures=str(len(found)),
            package=PACKAGE,
        )
        for f in found:
            case = ET.SubElement(
                suite,
                "testcase",
                name=f"{PACKAGE}.{f.code}",
                classname=_text(path),
                line=str(f.start.line),
                column=str(f.start.column),
            )
            failure = ET.SubElement(case, "failure", message=_text(f.message), type=f.code)
            failure.text = f"line {f.start.line}, col {f.start.column}, {_text(f.message)}"
        for e in failed:
            case = ET.SubElement(suite, "testcase", name=f"{PACKAGE}.{e.kind}", classname=_text(path), line=str(e.line))
            error = ET.SubElement(case, "error", message=_text(e.message), type=e.kind)
            error.text = f"line {e.line}, {_text(e.message)}"
    if not by_path:
        suite = ET.SubElement(
            root, "testsuite", name="castlint", tests="1", disabled="0", errors="0", failures="0", package=PACKAGE
        )
        ET.SubElement(suite, "testcase", name="No findings", classname="castlint")
    ET.indent(root) if hasattr(ET, "indent") else None
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
