"""The [trace] tables: which ops and helpers convert a buffer, the threshold, the codes a runtime finding confirms.

Read from every rules/*.toml (and extend-rules file) that has a [trace] table
(the built-in one is rules/trace.toml); helper names also come from the
[[conversion_helper]] entries of accessors.toml. Nothing here imports torch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, Optional, Tuple

from castlint import tomlcompat

DEFAULT_THRESHOLD = 64 << 20
KINDS = ("convert", "copy", "dequantize", "quantize")
_UNITS = {
    "": 1,
    "b": 1,
    "k": 10**3,
    "kb": 10**3,
    "m": 10**6,
    "mb": 10**6,
    "g": 10**9,
    "gb": 10**9,
    "kib": 1 << 10,
    "mib": 1 << 20,
    "gib": 1 << 30,
    "ki": 1 << 10,
    "mi": 1 << 20,
    "gi": 1 << 30,
}


class TraceTableError(ValueError):
    pass


@dataclass(frozen=True)
class OpSpec:
    name: str  # "aten::_to_copy", or a bare op name that matches in any namespace
    kind: str
    input: int = 0
    output: Optional[int] = None  # None: the op's result
    note: str = ""


@dataclass(frozen=True)
class HelperSpec:
    name: str
    direction: str
    note: str = ""


@dataclass
class TraceTables:
    threshold: int = DEFAULT_THRESHOLD
    confirms: Tuple[str, ...] = ("CL001", "CL003", "CL004")
    ops: Dict[str, OpSpec] = field(default_factory=dict)
    helpers: Dict[str, HelperSpec] = field(default_factory=dict)
    sources: list = field(default_factory=list)

    def op_for(self, qualified: str) -> Optional[OpSpec]:
        """The spec for an op named "namespace::name" (exact, else by bare name)."""
        spec = self.ops.get(qualified)
        if spec is None:
            spec = self.ops.get(qualified.rsplit("::", 1)[-1])
        return spec


def parse_threshold(value) -> int:
    """64MiB, 64M (10**6), 1.5GB, 1e6, 1048576 -> bytes."""
    if isinstance(value, bool):
        raise TraceTableError(f"threshold must be a size, got {value!r}")
    if isinstance(value, (int, float)):
        if value < 0:
            raise TraceTableError(f"threshold must not be negative, got {value!r}")
        return int(value)
    text = str(value).strip().replace("_", "")
    match = re.fullmatch(r"(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)\s*([A-Za-z]*)", text)
    if not match or match.group(2).lower() not in _UNITS:
        raise TraceTableError(f"threshold {value!r} is not a size (like 64MiB, 500MB, 1e6 or 1048576)")
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])


def _builtin_paths() -> list:
    from castlint.tables import builtin_rules_dir

    base = builtin_rules_dir()
    return sorted(base.glob("*.toml"))


def _load_file(tables: TraceTables, path: Path) -> None:
    try:
        data = tomlcompat.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomlcompat.TOMLDecodeError) as exc:
        raise TraceTableError(f"{path}: cannot read: {exc}") from exc
    for i, item in enumerate(data.get("conversion_helper", ()) or ()):
        if isinstance(item, dict) and isinstance(item.get("name"), str):
            tables.helpers.setdefault(
                item["name"], HelperSpec(item["name"], str(item.get("direction", "")), str(item.get("note", "")))
            )
    section = data.get("trace")
    if section is None:
        return
    if not isinstance(section, dict):
        raise TraceTableError(f"{path}: [trace] must be a table")
    unknown = sorted(set(section) - {"threshold", "confirms", "op", "helper"})
    if unknown:
        raise TraceTableError(f"{path}: [trace] unknown key(s): {', '.join(unknown)}")
    if "threshold" in section:
        try:
            tables.threshold = parse_threshold(section["threshold"])
        except TraceTableError as exc:
            raise TraceTableError(f"{path}: [trace.threshold] {exc}") from exc
    if "confirms" in section:
        codes = section["confirms"]
        if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
            raise TraceTableError(f"{path}: [trace.confirms] must be a list of rule codes")
        tables.confirms = tuple(codes)
    for i, item in enumerate(section.get("op", ())):
        where = f"{path}: [trace.op[{i}]]"
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise TraceTableError(f"{where} needs a name")
        bad = sorted(set(item) - {"name", "kind", "input", "output", "note"})
        if bad:
            raise TraceTableError(f"{where} unknown key(s): {', '.join(bad)}")
        kind = item.get("kind")
        if kind not in KINDS:  # required: what the op does is a table fact, not a default
            raise TraceTableError(f"{where}.kind must be one of {', '.join(KINDS)}, got {kind!r}")
        for key in ("input", "output"):
            if key in item and (not isinstance(item[key], int) or isinstance(item[key], bool) or item[key] < 0):
                raise TraceTableError(f"{where}.{key} must be an argument position (0, 1, ...)")
        tables.ops[item["name"]] = OpSpec(
            item["name"], kind, item.get("input", 0), item.get("output"), str(item.get("note", ""))
        )
    for i, item in enumerate(section.get("helper", ())):
        where = f"{path}: [trace.helper[{i}]]"
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise TraceTableError(f"{where} needs a name")
        bad = sorted(set(item) - {"name", "direction", "note"})
        if bad:
            raise TraceTableError(f"{where} unknown key(s): {', '.join(bad)}")
        direction = item.get("direction")
        if direction not in ("quantize", "dequantize"):  # required, as [trace.op] kind
            raise TraceTableError(f"{where}.direction must be quantize or dequantize, got {direction!r}")
        tables.helpers[item["name"]] = HelperSpec(item["name"], direction, str(item.get("note", "")))


def load_trace_tables(extra: Iterable = ()) -> TraceTables:
    tables = TraceTables()
    for path in list(_builtin_paths()) + [Path(p) for p in extra]:
        _load_file(tables, path)
        tables.sources.append(str(path))
    # a torch.library op named like a conversion helper is a conversion op
    for name, helper in tables.helpers.items():
        tables.ops.setdefault(name, OpSpec(name, helper.direction, note=f"op form of the helper {name}"))
    return tables
