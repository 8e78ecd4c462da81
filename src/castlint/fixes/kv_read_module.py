"""The module the MLA fixes add to an engine tree, and the switch it reads.

The template castlint/fixes/templates/mla_kv_read.py is that engine module itself:
real Python that the tests fill, import and run. Three marks in it are castlint's,
and none reaches the engine:

- `# [compact]` at the end of a line: the line belongs to the compact read; on a
  line of its own: the statement below it does. `--profile minimal` leaves them
  out (what remains is the native read and the cast); both profiles drop the marks.
  `# [native]` at the end of a line or on a line of its own: the line or the
  statement below is the minimal profile's only (the full profile leaves it out).
- `# [switch]`: the lines that import and read the switch, written the way the
  release reads its other variables (rules/sglang.toml [[switch_mechanism]]);
- `# [first-party]`: where a first-party import of the switch goes (isort's section).

Its `NAME = ()` placeholders are filled from rules/*.toml.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

from castlint.common.versions import package_dir
from castlint.fixes.base import added_module
from castlint.fixes.edits import Record, fill_placeholders
from castlint.fixes.style import DEFAULT, Style, style_for
from castlint.tables import Tables, parse_version

TEMPLATE = Path(__file__).with_name("templates") / "mla_kv_read.py"
COMPACT, NATIVE_ONLY = "# [compact]", "# [native]"
SWITCH, FIRST_PARTY = "# [switch]", "# [first-party]"
PROFILES = ("full", "minimal")
# how a line at the statement's own indentation may still belong to it
_CONTINUED = (")", "]", "}", "except", "else:", "elif ", "finally:")


@dataclass(frozen=True)
class SwitchMechanism:
    """How the module reads its switch in this tree, and the declaration it adds."""

    row: dict
    declaration: Optional[str] = None  # the file that declares the release's variables
    declared: Optional[bytes] = None  # that file with the switch declared (None: already is)


@dataclass
class KvReadModule:
    location: str  # where the module goes
    import_name: str  # the name the fixed file imports it by
    companions: Dict[str, bytes] = field(default_factory=dict)  # the module, the switch's declaration


def kv_read_module(path: str, tables: Tables, profile: str = "full") -> Optional[KvReadModule]:
    """What a fix of the file at `path` adds to its tree; None when the module would
    replace that very file."""
    added = added_module(path, tables.kv_read_module["module"])
    if added is None:
        return None
    location, import_name = added
    mechanism = switch_mechanism(path, tables)
    module = KvReadModule(location, import_name)
    style = style_for(location, tables.formatting)
    module.companions[location] = module_source(tables, profile, mechanism.row, style).encode("utf-8")
    if mechanism.declared is not None:
        module.companions[mechanism.declaration] = mechanism.declared
    return module


# -- the module's source ----------------------------------------------------------------


def module_source(
    tables: Tables, profile: str = "full", mechanism: Optional[dict] = None, style: Style = DEFAULT
) -> str:
    """The engine module for this profile, its switch read by `mechanism` (default: the
    last [[switch_mechanism]] row, plain os.environ), its placeholders filled and laid
    out at the tree's line length (`style`). The template's own lines are written so that
    Black leaves them as they are at every line length from 79 to 120: none is longer than
    79 columns, and every bracket split over lines ends in a magic trailing comma."""
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r} (one of {', '.join(PROFILES)})")
    text = _profile_text(TEMPLATE.read_text(encoding="utf-8"), keep_compact=profile == "full")
    text = _switch_text(text, mechanism or tables.switch_mechanisms[-1], tables)
    values = {name: value for name, value in template_values(tables).items() if re.search(rf"^{name} = ", text, re.M)}
    return fill_placeholders(text, values, TEMPLATE.name, style.line_length)


def _profile_text(text: str, keep_compact: bool) -> str:
    """The template with its [compact] lines and statements kept (marks dropped) or left out."""
    lines = text.split("\n")
    out: List[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped in (COMPACT, NATIVE_ONLY):
            i += 1
            if keep_compact != (stripped == COMPACT):
                i = _statement_end(lines, i, len(line) - len(line.lstrip()))
                while i < len(lines) and not lines[i].strip() and out and not out[-1].strip():
                    i += 1  # the blank lines around it become one run
            continue
        for mark, kept in ((COMPACT, keep_compact), (NATIVE_ONLY, not keep_compact)):
            if line.endswith(mark):
                if kept:
                    out.append(line[: -len(mark)].rstrip())
                break
        else:
            out.append(line)
        i += 1
        continue
    return _blank_runs("\n".join(out))


def _statement_end(lines: List[str], start: int, indent: int) -> int:
    """The index after the statement that starts at lines[start] (its block and any
    continuation lines included)."""
    i = start + 1
    while i < len(lines):
        line = lines[i]
        text = line.lstrip()
        if line.strip() and len(line) - len(text) <= indent and not text.startswith(_CONTINUED):
            break
        i += 1
    while i > start + 1 and not lines[i - 1].strip():  # the blank lines after it stay
        i -= 1
    return i


def _blank_runs(text: str) -> str:
    """At most two blank lines at the top level and one inside a block, as Black leaves them."""
    out: List[str] = []
    blanks, last_top = 0, ""
    for line in text.split("\n"):
        if line.strip():
            indented = line.startswith((" ", "\t"))
            after_def = blanks and out[-1].startswith((" ", "\t")) and last_top.startswith(("def ", "class "))
            out.extend([""] * (min(blanks, 1) if indented else 2 if after_def else min(blanks, 2)))
            out.append(line)
            blanks, last_top = 0, last_top if indented else line
        else:
            blanks += 1
    return "\n".join(out) + "\n"


def _switch_text(text: str, row: dict, tables: Tables) -> str:
    switch = tables.kv_read_switch
    read = row["read"].format(variable=switch["variable"], default=switch["values"][0])
    out = []
    for line in text.split("\n"):
        indent = line[: len(line) - len(line.lstrip())]
        if line.endswith(SWITCH) and line.lstrip().startswith(("import ", "from ")):
            if row["import_section"] == "stdlib":
                out.append(indent + row["import"])
        elif line.endswith(SWITCH):
            target = line.split("=", 1)[0].strip()
            out.append(f"{indent}{target} = {read}")
        elif line.strip() == FIRST_PARTY:
            if row["import_section"] == "first-party":
                out.extend(["", row["import"]])
        else:
            out.append(line)
    return "\n".join(out)


def template_values(tables: Tables) -> Dict[str, object]:
    """The template's placeholders, from rules/*.toml."""
    kernels = []
    for row in sorted(tables.fp8_kv_mla, key=lambda r: parse_version(r["since"]), reverse=True):
        kernels.append(
            Record(
                "Fp8KvMlaKernel",
                flashinfer=row["since"],
                backends=tuple(row.get("backends", ())),
                ckv_head_dims=tuple(row.get("head_dim_ckv", ())),
                kpe_head_dims=tuple(row.get("head_dim_kpe", ())),
                compute_capability=tuple(row.get("compute_capability", ())),
                kv_dtypes=tuple(_dtype_name(d) for d in row.get("kv_dtypes", ())),
                q_dtypes=tuple(_dtype_name(d) for d in row.get("q_dtypes", ())),
            )
        )
    costs = [
        Record(
            "ReadCosts",
            flashinfer=row["since"],
            gpu=row.get("gpu", ""),
            measured=row.get("measured", ""),
            cast_per_pool_row=row["cast_ms_per_pool_token"],
            gather=row["gather_ms"],
            gather_per_row=row["gather_ms_per_token"],
            native=row["native_ms"],
            native_per_row_query=row["native_ms_per_token_query"],
            bf16_per_row_query=row["bf16_ms_per_token_query"],
            margin=row["margin"],
        )
        for row in sorted(tables.mla_kv_read, key=lambda r: parse_version(r["since"]), reverse=True)
    ]
    compact, switch, pool = tables.compact_kv_read, tables.kv_read_switch, tables.kv_pool
    return {
        "SWITCH": (switch["variable"], tuple(switch["values"])),
        "FP8_KV_MLA_KERNELS": tuple(kernels),
        "AUTO_BACKEND": dict(tables.auto_backend),
        "MLA_KV_READ_COSTS": tuple(costs),
        "COMPACT_CONVERT_COST": Record(
            "ConvertCost",
            gpu=compact.get("gpu", ""),
            measured=compact.get("measured", ""),
            fixed=compact["ms"],
            per_row=compact["ms_per_row"],
            whole_pool_share=compact["whole_pool_share"],
        ),
        "PAGED_WHOLE_POOL_SHARE": float(tables.paged_kv_read["whole_pool_share"]),
        "POOL_ROWS": (pool["pool"], pool["size"], pool["padding"]),
        "RUN_SCALES": run_scales(tables),
        **plan_signature(tables),
    }


def plan_signature(tables: Tables) -> Dict[str, object]:
    """How the module binds a plan()'s arguments (rules/flashinfer.toml): the MLA plan's
    positional parameters (the newest [[mla_signature]]), the other keywords callers spell
    some of them with (`plan_keyword_aliases`), the keyword of FlashInfer 0.7's metadata
    object (`plan_metadata.keyword`) and the KV dtype parameter (the MLA [[wrapper]]'s)."""
    rows = tables.mla_signatures
    aliases = {
        alias: name
        for row in rows
        for name, spelled in row.get("plan_keyword_aliases", {}).items()
        for alias in spelled
    }
    metadata = next((row["plan_metadata"].get("keyword", "") for row in reversed(rows) if row.get("plan_metadata")), "")
    return {
        "PLAN_PARAMETERS": tuple(rows[-1]["plan_positional"]),
        "PLAN_KEYWORD_ALIASES": aliases,
        "PLAN_METADATA": metadata,
        "PLAN_KV_DTYPE": tables.mla_wrapper().kv_dtype.keyword,
    }


def run_scales(tables: Tables) -> tuple:
    """run()'s keywords for the ckv and kpe scales (the newest [[mla_signature]] that has them)."""
    return tuple(next(row["run_scales"] for row in reversed(tables.mla_signatures) if row.get("run_scales")))


def _dtype_name(name: str) -> str:
    return name.split(".")[-1]


# -- the switch ---------------------------------------------------------------------------


def switch_mechanism(path: str, tables: Tables) -> SwitchMechanism:
    """The first [[switch_mechanism]] row whose declaration the tree of `path` has."""
    package = package_dir(path, tables.pin_source["package"])
    for row in tables.switch_mechanisms:
        if "declaration" not in row:
            return SwitchMechanism(row)
        if package is None:
            continue
        declaration = package / row["declaration"]
        try:
            source = declaration.read_bytes()
        except OSError:
            continue
        declared = declare_switch(source, row, tables)
        if declared is not None:
            return SwitchMechanism(row, str(declaration), None if declared == source else declared)
    return SwitchMechanism(tables.switch_mechanisms[-1])


def declare_switch(source: bytes, row: dict, tables: Tables) -> Optional[bytes]:
    """`source` with the switch declared at the end of its `declaration_class` (as it is,
    when it already declares it); None when it has no such class."""
    import libcst as cst

    from castlint.fixes.edits import statements

    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return None
    switch = tables.kv_read_switch
    variable = switch["variable"]
    for index, statement in enumerate(module.body):
        if not (isinstance(statement, cst.ClassDef) and statement.name.value == row["declaration_class"]):
            continue
        body = list(statement.body.body)
        for item in body:
            if isinstance(item, cst.SimpleStatementLine) and isinstance(item.body[0], (cst.Assign, cst.AnnAssign)):
                targets = item.body[0].targets if isinstance(item.body[0], cst.Assign) else [item.body[0]]
                if any(isinstance(t.target, cst.Name) and t.target.value == variable for t in targets):
                    return source
        comment = row.get("field_comment", "").format(values=", ".join(switch["values"]))
        code = (
            (f"# {comment}\n" if comment else "")
            + row["field"].format(variable=variable, default=switch["values"][0])
            + "\n"
        )
        added = statements(code)
        added[0] = added[0].with_changes(leading_lines=[cst.EmptyLine(indent=False), *added[0].leading_lines])
        new_class = statement.with_changes(body=statement.body.with_changes(body=[*body, *added]))
        new_body = list(module.body)
        new_body[index] = new_class
        return module.with_changes(body=new_body).bytes
    return None
