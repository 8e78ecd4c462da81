"""One module per output format. FORMATS maps a --format name to its renderer.

A renderer takes (findings, errors, meta) and returns the report as a string;
reporters never analyze, nor load config or compute fixes: they render what they
are given. The formats in SHOWS_FIX_EDITS show the concrete edits of fixable
findings, which the findings carry (Fix.edits): the caller asks the run for them
(castlint.session.Session.check(edits=...)). `castlint trace` passes its
run as meta["trace"] and each runtime finding's evidence as its `runtime`; text,
json and sarif show them. statistics.py and settings.py render --statistics and
--show-settings from the session's data.
"""

from castlint.report import (
    azure,
    concise,
    full,
    github,
    gitlab,
    grouped,
    json_format,
    json_lines,
    junit,
    pylint,
    rdjson,
    sarif,
    text,
)

FORMATS = {
    "text": text.render,
    "full": full.render,
    "concise": concise.render,
    "grouped": grouped.render,
    "json": json_format.render,
    "json-lines": json_lines.render,
    "junit": junit.render,
    "sarif": sarif.render,
    "github": github.render,
    "gitlab": gitlab.render,
    "pylint": pylint.render,
    "azure": azure.render,
    "rdjson": rdjson.render,
}
SHOWS_FIX_EDITS = frozenset({"json", "sarif", "rdjson"})


def render(fmt: str, findings, errors, meta, quiet: bool = False, color: bool = False) -> str:
    """The report in fmt ('text' with colour and quiet as given; every other format as it is)."""
    if fmt == "text":
        return text.render(findings, errors, meta, color=color, quiet=quiet)
    renderer = FORMATS.get(fmt)
    if renderer is None:
        raise ValueError(f"unknown format {fmt!r}")
    return renderer(findings, errors, meta)
