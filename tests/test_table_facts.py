"""API facts live in rules/*.toml, filed by what they describe, and nowhere else.

- Each builtin section sits in the file of its subject (castlint.tables.SECTION_FILES): pools
  and accessors, FlashInfer's API by version, sglang's API by release, measured costs by GPU.
- Python keeps no fallback copy of a fact: no `.get(key, <literal>)` (nor getattr/next/pop/
  setdefault defaults) beyond the allowlist below, no table value (a dtype, a backend, a
  version, an sglang name) as a default anywhere, no version numbers, no compute capabilities.
- A fact the fixes need that no table states is a load error naming the file and the key.
"""

from __future__ import annotations

import ast
import fnmatch
import re
import shutil

import pytest

from castlint import tables as tables_module
from castlint.tables import (
    COSTS_FILES,
    REQUIRED_SECTIONS,
    SECTION_FILES,
    TableError,
    load_tables,
)
from castlint.tomlcompat import loads
from conftest import ROOT

TABLES = load_tables()
RULES = ROOT / "rules"
SOURCE = ROOT / "src" / "castlint"
COST_SECTIONS = {name for name, files in SECTION_FILES.items() if files == (COSTS_FILES,)}
PROVENANCE = ("gpu", "measured", "source")
LEGACY_SECTIONS = {"layer_index"}  # still read from old user tables (Tables.layer_index_words); no builtin has it

# Literal defaults that are not API facts: (file under src/castlint, the literal as written) -> why.
ALLOWED_DEFAULTS = {
    ("cli.py", "'Options'"): "the --help panel of an option",
    ("bot/client.py", "100"): "GitHub's page size for a listing",
    ("pr/__init__.py", "1"): "the schema of castlint's own validate report",
    ("trace/report.py", "'conversion'"): "the word for an evidence kind in a message",
    ("validate/command.py", "'5'"): "KINETO_LOG_LEVEL: torch's profiler kept quiet",
    ("validate/command.py", "True"): "the guard's answer as the patched code recorded it",
    ("validate/loader.py", "'auto'"): "records a constructor call as made: no backend= is FlashInfer's 'auto'",
    ("workers.py", "'fork'"): "castlint's own CASTLINT_MP setting",
    ("pr/__init__.py", "'full'"): "castlint's own --profile default",
    ("session.py", "'default'"): "castlint's own word for a selection nobody set",
    ("fixes/style.py", "BLACK_LINE_LENGTH"): "Black's own default (not the engine's: rules/sglang.toml [formatting])",
    ("fixes/style.py", "ISORT_LINE_LENGTH"): "isort's own default without a profile",
}
# Display placeholders for a value a record does not have: never computed with.
PLACEHOLDERS = {"'-'", "'?'"}
# Version numbers that are not a library's API: castlint's own, the SARIF format's.
ALLOWED_VERSIONS = {("__init__.py", "0.1.0"), ("report/sarif.py", "2.1.0")}
# Compute capabilities that are not a table's: (file, the expression) -> why.
ALLOWED_CAPABILITIES = {
    ("validate/doubles/flashinfer.py", "(9, 0)"): "the GPU the CPU emulation pretends to be",
    ("validate/harness.py", "capability[0] == 9"): "sglang's is_sm90_supported() on the emulated GPU",
    (
        "fixes/templates/mla_kv_read.py",
        "capability[0] == 9",
    ): "the emitted module picks [auto_backend]'s sm90 key (changing it changes every patched file)",
}
VERSION = re.compile(r"^\d+\.\d+(\.\d+)+(\.?post\d+)?$|^\d+\.\d+\.post\d+$")


def _sources():
    for path in sorted(SOURCE.rglob("*.py")):
        yield path.relative_to(SOURCE).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def _docstrings(tree: ast.AST) -> set:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def _module_literals(tree: ast.Module) -> dict:
    """Module-level NAME = <literal>: a default spelled through a constant is that literal."""
    out = {}
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and _literal(node.value)
        ):
            out[node.targets[0].id] = node.value
    return out


def _literal(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return True
    return isinstance(node, (ast.Tuple, ast.List, ast.Set)) and all(isinstance(e, ast.Constant) for e in node.elts)


def _falsy(node: ast.AST) -> bool:
    """None, "", 0, False, (), []: "absent", not a value standing in for one."""
    if isinstance(node, ast.Constant):
        return not node.value and node.value is not True
    return not node.elts


def _fallbacks(tree: ast.AST):
    """(node, default) for every fallback position: d in x.get(k, d) / .pop / .setdefault,
    getattr(o, n, d), next(it, d)."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in ("get", "pop", "setdefault") and len(node.args) == 2:
            yield node, node.args[1]
        elif isinstance(func, ast.Name) and func.id == "getattr" and len(node.args) == 3:
            yield node, node.args[2]
        elif isinstance(func, ast.Name) and func.id == "next" and len(node.args) == 2:
            yield node, node.args[1]


def _default_positions(tree: ast.AST):
    """Every default: the fallbacks, `x or d`, parameter defaults and annotated (dataclass field) values."""
    yield from (d for _, d in _fallbacks(tree))
    for node in ast.walk(tree):
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
            yield node.values[-1]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            yield from node.args.defaults
            yield from (d for d in node.args.kw_defaults if d is not None)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            yield node.value


def _fact_values() -> set:
    """The values the builtin tables state that code could be tempted to repeat."""
    t = TABLES
    facts = set(t.dtype_bytes) | set(t.torch_dtypes) | set(t.auto_backend.values())
    for row in t.fp8_kv_mla:
        facts |= {row["since"], *row.get("backends", ()), *row.get("kv_dtypes", ()), *row.get("q_dtypes", ())}
    facts |= {version for _, version, _ in t.releases} | {pin for _, _, pin in t.releases}
    facts |= {row["since"] for row in t.mla_kv_read} | {row["version"] for row in t.mla_signatures}
    facts |= set(t.kv_pool.values()) | {t.kv_read_switch["variable"], t.rows_read_module["switch"]}
    facts |= {t.kv_read_module["module"], t.kv_read_module["cuda_graph_keyword"], t.rows_read_module["module"]}
    facts |= {t.default_preset}
    return {f.split(".")[-1] if f.startswith("torch.") else f for f in facts}


def test_builtin_sections_are_filed_by_subject():
    """Every builtin section is in the file SECTION_FILES names, and every named section exists."""
    seen = set()
    for path in sorted(RULES.glob("*.toml")):
        for key in loads(path.read_text(encoding="utf-8")):
            if key == "schema":
                continue
            assert key in SECTION_FILES, f"{path.name}: [{key}] has no subject in tables.SECTION_FILES"
            homes = SECTION_FILES[key]
            assert any(fnmatch.fnmatch(path.name, home) for home in homes), (
                f"{path.name}: [{key}] belongs in {' or '.join(homes)}"
            )
            seen.add(key)
    assert seen == set(SECTION_FILES) - LEGACY_SECTIONS


def test_measured_costs_are_filed_by_gpu():
    """A costs_<gpu>.toml holds only measurements, each row saying the GPU (the file's), when and where."""
    files = sorted(RULES.glob(COSTS_FILES))
    assert files
    for path in files:
        data = loads(path.read_text(encoding="utf-8"))
        assert set(data) - {"schema"} <= COST_SECTIONS, path.name
        gpu = path.stem.split("_", 1)[1]
        for section in COST_SECTIONS & set(data):
            rows = data[section] if isinstance(data[section], list) else [data[section]]
            for row in rows:
                assert all(row.get(key) for key in PROVENANCE), (path.name, section)
                assert gpu in row["gpu"].lower().replace(" ", ""), (path.name, section, row["gpu"])


def test_no_literal_fallbacks_in_python():
    found = []
    for rel, tree in _sources():
        constants = _module_literals(tree)
        for node, default in _fallbacks(tree):
            literal = constants.get(default.id) if isinstance(default, ast.Name) else default
            if literal is None or not _literal(literal) or _falsy(literal):
                continue
            written = ast.unparse(default)
            if written in PLACEHOLDERS or (rel, written) in ALLOWED_DEFAULTS:
                continue
            found.append(f"src/castlint/{rel}:{node.lineno}: {ast.unparse(node)}")
    assert not found, (
        "fallback copies of facts (state them in rules/*.toml, or allowlist what is no API fact):\n" + "\n".join(found)
    )


def test_no_table_value_as_a_default_in_python():
    facts = _fact_values()
    found = []
    for rel, tree in _sources():
        for default in _default_positions(tree):
            if (
                isinstance(default, ast.Constant)
                and isinstance(default.value, str)
                and default.value in facts
                and (rel, ast.unparse(default)) not in ALLOWED_DEFAULTS
            ):
                found.append(f"src/castlint/{rel}:{default.lineno}: {default.value!r}")
    assert not found, "table values used as defaults in Python:\n" + "\n".join(found)


def _capability(node: ast.AST) -> bool:
    """(9, 0) / [9, 0], or a compute capability's major compared with a literal."""
    if isinstance(node, (ast.Tuple, ast.List)):
        return (
            len(node.elts) == 2
            and all(isinstance(e, ast.Constant) and type(e.value) is int for e in node.elts)
            and 7 <= node.elts[0].value <= 12
            and node.elts[1].value <= 9
        )
    return (
        isinstance(node, ast.Compare)
        and re.search(r"capab|\bmajor\b", ast.unparse(node)) is not None
        and any(
            isinstance(c, ast.Constant) and type(c.value) is int and 7 <= c.value <= 12
            for c in (node.left, *node.comparators)
        )
    )


def test_no_version_numbers_or_capabilities_in_python():
    found = []
    for rel, tree in _sources():
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docs
                and VERSION.match(node.value)
                and (rel, node.value) not in ALLOWED_VERSIONS
            ):
                found.append(f"src/castlint/{rel}:{node.lineno}: version {node.value!r}")
            if _capability(node) and (rel, ast.unparse(node)) not in ALLOWED_CAPABILITIES:
                found.append(f"src/castlint/{rel}:{node.lineno}: capability {ast.unparse(node)}")
    assert not found, "versions and compute capabilities belong in rules/*.toml:\n" + "\n".join(found)


def test_the_allowlists_are_still_needed():
    """An allowlist entry that matches nothing any more goes."""
    used = set()
    for rel, tree in _sources():
        constants = _module_literals(tree)
        for _, default in _fallbacks(tree):
            used.add((rel, ast.unparse(default)))
            if isinstance(default, ast.Name) and default.id in constants:
                used.add((rel, default.id))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                used.add((rel, node.value))
            if isinstance(node, (ast.Tuple, ast.Compare)):
                used.add((rel, ast.unparse(node)))
    stale = (set(ALLOWED_DEFAULTS) | ALLOWED_VERSIONS | set(ALLOWED_CAPABILITIES)) - used
    assert not stale, stale


def _rules_copy(tmp_path, monkeypatch, edit):
    """The builtin tables in a folder of their own, one of them edited; load_tables reads it."""
    folder = tmp_path / "rules"
    shutil.copytree(RULES, folder)
    edit(folder)
    monkeypatch.setattr(tables_module, "builtin_rules_dir", lambda: folder)
    return folder


@pytest.mark.parametrize("section,key", [(s, k) for s, keys in REQUIRED_SECTIONS.items() for k in keys[:1]])
def test_a_missing_fact_names_its_file_and_key(tmp_path, monkeypatch, section, key):
    home = SECTION_FILES[section][0]

    def drop(folder):
        path = next(folder.glob(home))
        lines = path.read_text(encoding="utf-8").split("\n")
        start = lines.index(f"[{section}]")
        for i in range(start + 1, len(lines)):
            if lines[i].startswith("["):
                break
            if lines[i].split("=")[0].strip() == key:
                del lines[i]
                break
        else:
            raise AssertionError(f"{section}.{key} not in {path.name}")
        path.write_text("\n".join(lines), encoding="utf-8")

    folder = _rules_copy(tmp_path, monkeypatch, drop)
    with pytest.raises(TableError) as info:
        load_tables()
    assert str(next(folder.glob(home))) in str(info.value) and f"[{section}.{key}] is required" in str(info.value)


def test_the_model_defaults_are_table_facts(tmp_path, monkeypatch):
    def drop(folder):
        path = folder / "models.toml"
        path.write_text(
            path.read_text(encoding="utf-8").replace("default_pool_tokens = 495552\n", ""), encoding="utf-8"
        )

    folder = _rules_copy(tmp_path, monkeypatch, drop)
    with pytest.raises(TableError, match=r"models\.toml: \[default_pool_tokens\] is required") as info:
        load_tables()
    assert str(folder) in str(info.value)


@pytest.mark.parametrize(
    "text,needle",
    [
        (
            "[preset.tiny]\nlayers = 2\nkv_lora_rank = 512\nrope_dim = 64\nkv_dtype = 'float8_e4m3fn'\n"
            + "compute_dtype = 'bfloat16'\n",
            "[preset.tiny.num_heads] is required",
        ),
        (
            "[preset.tiny]\nlayers = 2\nkv_lora_rank = 512\nrope_dim = 64\nnum_heads = 16\nkv_dtype = 'e3m4'\n"
            + "compute_dtype = 'bfloat16'\n",
            "[preset.tiny.kv_dtype] unknown dtype 'e3m4'",
        ),
        (
            "[[conversion_helper]]\nname = 'unpack'\ndirection = 'dequantize'\nsource_dtype = 'fp3'\n",
            "[conversion_helper.unpack.source_dtype] unknown dtype 'fp3'",
        ),
        ("[auto_backend]\nsm90 = 3\n", "[auto_backend.sm90] must be a backend name"),
        (
            "[[switch_mechanism]]\nname = 'mine'\ndeclaration = 'x.py'\ndeclaration_class = 'E'\nfield = 'f'\n"
            + "import = 'import x'\nimport_section = 'stdlib'\nread = 'x'\n",
            "the last row must be the fallback",
        ),
    ],
)
def test_a_user_table_cannot_leave_a_fact_to_python(tmp_path, text, needle):
    mine = tmp_path / "mine.toml"
    mine.write_text("schema = 1\n" + text)
    with pytest.raises(TableError) as info:
        load_tables([mine])
    assert str(mine) in str(info.value) and needle in str(info.value)


def test_extend_rules_may_override_part_of_a_section(tmp_path):
    """A user's table states only what it changes; the builtin tables keep the rest."""
    mine = tmp_path / "mine.toml"
    mine.write_text(
        "schema = 1\n[kv_pool]\ndcp_attribute = 'my_dcp'\n[auto_backend]\nsm90 = 'fa2'\n"
        "[[mla_kv_read]]\nsince = '0.6.10'\nmargin = 0.8\ncast_ms_per_pool_token = 1e-06\ngather_ms = 0.0\n"
        "gather_ms_per_token = 2e-06\nnative_ms = 0.05\nnative_ms_per_token_query = 8e-07\n"
        "bf16_ms_per_token_query = 1.6e-07\n"
    )
    tables = load_tables([mine])
    assert tables.kv_pool["dcp_attribute"] == "my_dcp" and tables.kv_pool["pool"] == TABLES.kv_pool["pool"]
    assert tables.auto_backend == {**TABLES.auto_backend, "sm90": "fa2"}
    assert tables.mla_kv_read[0]["since"] == "0.6.10"  # no provenance needed in a user's row
