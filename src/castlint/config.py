"""[tool.castlint] (pyproject.toml) or castlint.toml -> a typed Config.

Unknown keys and bad values raise ConfigError naming the file and key.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Union

from castlint import tomlcompat
from castlint.tables import CostModel, ModelPreset, Tables  # noqa: F401 - CostModel re-exported

DEFAULT_EXCLUDE = (
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    "__pycache__",
    "build",
    "dist",
    "node_modules",
    ".castlint_cache",
    "*.egg-info",
)
KNOWN_KEYS = {
    "select",
    "extend-select",
    "ignore",
    "exclude",
    "extend-exclude",
    "per-file-ignores",
    "extend-rules",
    "respect-gitignore",
    "model",
    "cache",
    "jobs",
    "max-file-size",
    "file-timeout",
    "max-file-memory",
    "follow-imports",
}
MODEL_KEYS = {"preset", "layers", "pool-tokens", "kv-lora-rank", "rope-dim", "kv-dtype", "compute-dtype"}
# Sane ranges for the cost model's integers: (smallest, largest). A value outside
# is a typo (an exponent too many), and would print nonsense costs.
MODEL_RANGES = {
    "layers": (1, 10_000),
    "pool-tokens": (1, 10**12),
    "kv-lora-rank": (1, 1 << 20),
    "rope-dim": (0, 1 << 20),
}


class ConfigError(Exception):
    def __init__(self, path, key: str, message: str):
        super().__init__(f"{path}: {key}: {message}" if key else f"{path}: {message}")
        self.path, self.key, self.detail = path, key, message


@dataclass
class Config:
    path: Optional[Path] = None  # the file it came from, if any
    root: Path = field(default_factory=Path.cwd)
    select: tuple = ()  # empty: every rule
    ignore: tuple = ()
    exclude: tuple = DEFAULT_EXCLUDE
    per_file_ignores: dict = field(default_factory=dict)  # glob -> codes
    extend_rules: tuple = ()  # paths
    model: dict = field(default_factory=dict)  # raw [tool.castlint.model]
    cache: bool = True
    jobs: int = 0  # 0: core count (never more than the cores, castlint.workers.cap_jobs)
    max_file_size: int = 4_000_000
    file_timeout: float = 120.0  # seconds one file may take in its worker (0: no limit)
    max_file_memory: int = 0  # bytes one file may take in its worker (0: 80 % of memory / workers)
    respect_gitignore: bool = True
    # link the tree's definitions a file imports into its analysis: "callers" (the default:
    # only the sibling modules' calls of its converting helpers, tree_index.with_importing_callers),
    # "uses" (those too, and the definitions the values reaching its own sites read,
    # castlint.analysis.demand; a file without trigger words only when it reads a name a module
    # of the tree hands, link_gate.Hands), True (every one it imports), False (off). "uses" and
    # True cost about 2.8-3.9x the analysis CPU on sglang 0.5.23 (docs/performance.md)
    follow_imports: Union[bool, str] = "callers"
    ignore_noqa: bool = False  # --ignore-noqa: suppression comments silence nothing
    select_source: str = "default"  # where select came from (--show-settings): default, a file's key, a flag
    # extend-rules tables outside the config's folder and the checked paths: their errors
    # never quote them (castlint.config.load_settings)
    outside_rules: tuple = ()

    def rule_enabled(self, code: str, path: Optional[str] = None) -> bool:
        from castlint.codes import selected

        if not selected(code, self.select):  # opt-in rules (CL005) need their full code
            return False
        if any(code.startswith(prefix) for prefix in self.ignore):
            return False
        if path is not None:
            rel = self.relative(path)
            for pattern, codes in self.per_file_ignores.items():
                if _glob_match(rel, pattern) and any(code.startswith(c) for c in codes):
                    return False
        return True

    def relative(self, path: str) -> str:
        try:
            return Path(path).resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return Path(path).as_posix()

    def excluded(self, path: Path) -> bool:
        rel = self.relative(str(path))
        parts = Path(rel).parts
        for pattern in self.exclude:
            if _glob_match(rel, pattern) or any(fnmatch.fnmatch(part, pattern) for part in parts):
                return True
        return False

    def cost_model(self, tables: Tables) -> CostModel:
        raw = self.model
        preset_name = raw.get("preset", tables.default_preset)
        if preset_name not in tables.presets:
            names = ", ".join(sorted(tables.presets))
            raise ConfigError(self.path or "config", "model.preset", f"unknown preset {preset_name!r}; known: {names}")
        preset: ModelPreset = tables.presets[preset_name]
        for key in ("kv-dtype", "compute-dtype"):
            if key in raw and raw[key] not in tables.dtype_bytes:
                raise ConfigError(
                    self.path or "config",
                    f"model.{key}",
                    f"unknown dtype {raw[key]!r}; known: {', '.join(sorted(tables.dtype_bytes))}",
                )
        return CostModel(
            name=preset_name if not (set(raw) - {"preset", "pool-tokens"}) else f"{preset_name} (customised)",
            layers=raw.get("layers", preset.layers),
            pool_tokens=raw.get("pool-tokens", tables.default_pool_tokens),
            kv_lora_rank=raw.get("kv-lora-rank", preset.kv_lora_rank),
            rope_dim=raw.get("rope-dim", preset.rope_dim),
            kv_dtype=raw.get("kv-dtype", preset.kv_dtype),
            compute_dtype=raw.get("compute-dtype", preset.compute_dtype),
        )


def _glob_match(rel: str, pattern: str) -> bool:
    pattern = pattern.rstrip("/")
    return fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(rel, pattern + "/*") or rel == pattern


def _codes(value, path, key, allow_empty: bool = True) -> tuple:
    """A list of rule selectors, through the validator the CLI uses (castlint.codes)."""
    from castlint.codes import SelectorError, parse_selectors

    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(path, key, f'must be a list of rule codes (like ["CL001"]), got {value!r}')
    if not value and not allow_empty:
        raise ConfigError(path, key, "an empty list selects no rule; leave the key out to enable every rule")
    try:
        return parse_selectors(value, f"{path}: {key}")
    except SelectorError as exc:
        raise ConfigError(path, key, exc.detail) from None


def parse_config(data: dict, path: Optional[Path], root: Path) -> Config:
    where = path or "config"
    unknown = sorted(set(data) - KNOWN_KEYS)
    if unknown:
        raise ConfigError(where, unknown[0], f"unknown key (known: {', '.join(sorted(KNOWN_KEYS))})")
    cfg = Config(path=path, root=root)
    if "select" in data:
        cfg.select = _codes(data["select"], where, "select", allow_empty=False)
    if "extend-select" in data:
        extra = _codes(data["extend-select"], where, "extend-select")
        from castlint.codes import DEFAULT_CODES

        # an empty select means every default rule; extend it (an opt-in rule needs naming)
        cfg.select = tuple(dict.fromkeys(tuple(cfg.select or DEFAULT_CODES) + extra))
    if "ignore" in data:
        cfg.ignore = _codes(data["ignore"], where, "ignore")
    for key in ("exclude", "extend-exclude"):
        if key in data:
            value = data[key]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(where, key, f"must be a list of glob patterns, got {value!r}")
            cfg.exclude = tuple(value) + (DEFAULT_EXCLUDE if key == "exclude" else cfg.exclude)
    if "per-file-ignores" in data:
        value = data["per-file-ignores"]
        if not isinstance(value, dict):
            raise ConfigError(where, "per-file-ignores", "must be a table of glob = [codes]")
        cfg.per_file_ignores = {k: _codes(v, where, f'per-file-ignores."{k}"') for k, v in value.items()}
    if "extend-rules" in data:
        value = data["extend-rules"]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(where, "extend-rules", f"must be a list of TOML file paths, got {value!r}")
        resolved = []
        for item in value:
            p = (root / item) if not Path(item).is_absolute() else Path(item)
            if not p.is_file():
                raise ConfigError(where, "extend-rules", f"rule table {item!r} not found (looked at {p})")
            resolved.append(p)
        cfg.extend_rules = tuple(resolved)
    if "model" in data:
        model = data["model"]
        if not isinstance(model, dict):
            raise ConfigError(where, "model", "must be a table")
        bad = sorted(set(model) - MODEL_KEYS)
        if bad:
            raise ConfigError(where, f"model.{bad[0]}", f"unknown key (known: {', '.join(sorted(MODEL_KEYS))})")
        for key, (low, high) in MODEL_RANGES.items():
            if key not in model:
                continue
            value = model[key]
            if not isinstance(value, int) or isinstance(value, bool):
                raise ConfigError(where, f"model.{key}", f"must be an integer from {low:,} to {high:,}, got {value!r}")
            if not low <= value <= high:
                raise ConfigError(where, f"model.{key}", f"must be from {low:,} to {high:,}, got {value:,}")
        for key in ("preset", "kv-dtype", "compute-dtype"):
            if key in model and not isinstance(model[key], str):
                raise ConfigError(where, f"model.{key}", f"must be a string, got {model[key]!r}")
        cfg.model = dict(model)
    for key, attr in (
        ("cache", "cache"),
        ("respect-gitignore", "respect_gitignore"),
    ):
        if key in data:
            if not isinstance(data[key], bool):
                raise ConfigError(where, key, f"must be true or false, got {data[key]!r}")
            setattr(cfg, attr, data[key])
    if "follow-imports" in data:
        value = data["follow-imports"]
        if not isinstance(value, bool) and value not in ("uses", "callers"):
            raise ConfigError(where, "follow-imports", f'must be true, false, "callers" or "uses", got {value!r}')
        cfg.follow_imports = value
    if "file-timeout" in data:
        value = data["file-timeout"]
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 <= value < 10**7:
            raise ConfigError(where, "file-timeout", f"must be a number of seconds (0: no limit), got {value!r}")
        cfg.file_timeout = float(value)
    for key, attr in (("jobs", "jobs"), ("max-file-size", "max_file_size"), ("max-file-memory", "max_file_memory")):
        if key in data:
            if not isinstance(data[key], int) or isinstance(data[key], bool) or data[key] < 0:
                raise ConfigError(where, key, f"must be a non-negative integer, got {data[key]!r}")
            setattr(cfg, attr, data[key])
    return cfg


def read_config_file(path: Path, overrides: Optional[dict] = None) -> Config:
    """The Config of one file, with --config KEY=VALUE overrides (already checked) on top."""
    return parse_config(merge(read_config_data(path), overrides or {}), path, path.parent)


def merge(base: dict, over: dict) -> dict:
    """base with over's keys on top; tables (model) merged key by key."""
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def parse_override(text: str) -> dict:
    """`--config KEY=VALUE` (ruff's inline form): one TOML `key = value` line, checked as a
    config of its own, so a bad key or value is an error naming the flag."""
    try:
        data = tomlcompat.loads(text)
    except (tomlcompat.TOMLDecodeError, RecursionError) as exc:
        raise ConfigError(
            "--config", "", f"{text!r} is neither a config file nor a TOML `KEY = VALUE` line ({exc})"
        ) from None
    if "tool" in data and isinstance(data["tool"], dict) and "castlint" in data["tool"]:
        data = data["tool"]["castlint"]
    parse_config(data, "--config", Path.cwd())  # raises ConfigError naming --config and the key
    return data


def read_config_data(path: Path) -> dict:
    """The castlint table of a config file, unchecked."""
    try:
        data = tomlcompat.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(path, "", f"cannot read: {exc.strerror or exc}") from exc
    except (tomlcompat.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(path, "", f"invalid TOML: {exc}") from exc
    except RecursionError:
        raise ConfigError(path, "", "invalid TOML: nested too deeply to read") from None
    if path.name == "pyproject.toml":
        data = data.get("tool", {}).get("castlint", {})
    elif "tool" in data and "castlint" in data.get("tool", {}):
        data = data["tool"]["castlint"]
    return data


def find_config(start: Path) -> Optional[Path]:
    """The nearest castlint.toml, or pyproject.toml with [tool.castlint], above start."""
    here = start.resolve()
    if here.is_file() or not here.exists():
        here = here.parent
    for folder in (here, *here.parents):
        candidate = folder / "castlint.toml"
        if candidate.is_file():
            return candidate
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            try:
                data = tomlcompat.loads(candidate.read_text(encoding="utf-8"))
            except Exception:
                return candidate  # let read_config_file report it
            if "castlint" in data.get("tool", {}):
                return candidate
    return None


_NEAREST: dict = {}  # folder (as given) -> its nearest config file (or None), for one process's runs


def nearest_config(path) -> Optional[Path]:
    """find_config(path), remembered per folder: a folder without a config file of its own
    answers what its parent answers, so a walk's thousand folders cost a few stats each."""
    text = str(path)
    folder = text if os.path.isdir(text) else (os.path.dirname(text) or ".")
    return _nearest_in(os.path.abspath(folder))


def _nearest_in(folder: str) -> Optional[Path]:
    if folder in _NEAREST:
        return _NEAREST[folder]
    found = _own_config(Path(folder))
    if found is None:
        parent = os.path.dirname(folder)
        found = None if parent == folder else _nearest_in(parent)
    _NEAREST[folder] = found
    return found


def _own_config(folder: Path) -> Optional[Path]:
    """The folder's castlint.toml, or its pyproject.toml when that has [tool.castlint]."""
    candidate = folder / "castlint.toml"
    if candidate.is_file():
        return candidate
    candidate = folder / "pyproject.toml"
    if candidate.is_file():
        try:
            data = tomlcompat.loads(candidate.read_text(encoding="utf-8"))
        except Exception:
            return candidate  # let read_config_file report it
        if "castlint" in data.get("tool", {}):
            return candidate
    return None


def load_config(
    paths,
    explicit: Optional[Path] = None,
    overrides: Optional[dict] = None,
    isolated: bool = False,
    found: Optional[Path] = None,
) -> Config:
    """The config for a run: the explicit file, else (unless isolated) found or the nearest
    config above the first path; overrides (--config KEY=VALUE) on top."""
    if explicit is not None:
        if not explicit.is_file():
            raise ConfigError(explicit, "", "config file not found")
        return read_config_file(explicit, overrides)
    if isolated:
        return parse_config(overrides or {}, None, Path.cwd())
    if found is None:
        start = Path(paths[0]) if paths else Path.cwd()
        found = find_config(start)
    if found is None:
        return parse_config(overrides or {}, None, Path.cwd())
    return read_config_file(found, overrides)


class SettingsError(ValueError):
    """A config file or rules table that cannot be used; the message names the file and key."""


def load_settings(
    paths,
    explicit: Optional[Path] = None,
    overrides: Optional[dict] = None,
    isolated: bool = False,
    found: Optional[Path] = None,
):
    """(Config, Tables) for a run: the nearest (or the explicit) config, and the builtin
    tables with the config's extend-rules. Raises SettingsError with one clear line.

    A config comes with the tree it configures, and the PR bot reads the checked tree's
    config in CI: an extend-rules table outside the config's folder and the checked paths
    may be any file on the machine, so an error about it names the setting and says the
    table is outside, but never quotes a key or value of it."""
    from castlint.tables import TableError, load_tables

    try:
        config = load_config(list(paths), explicit, overrides, isolated, found)
        config.outside_rules = tuple(p for p in config.extend_rules if _outside(p, _trusted_roots(config, paths)))
        for table in config.extend_rules:
            _readable_table(config, table)
        tables = load_tables(config.extend_rules)
        # one Tables object per table set in a process: what the analysis derives from it (keyed by the
        # object) is then made once for every later run of a long-lived process (the server, watch)
        tables = _SHARED_TABLES.setdefault((tables.digest, tuple(tables.sources)), tables)
        config.cost_model(tables)
    except ConfigError as exc:
        raise SettingsError(str(exc)) from None
    except TableError as exc:
        raise SettingsError(withheld(config, exc.path, str(exc))) from None
    return config, tables


_SHARED_TABLES: dict = {}  # (digest, sources) -> the Tables first loaded from those files (the analysis only reads it)


def _trusted_roots(config: Config, paths) -> list:
    """Where a rule table may lie and be quoted in errors: the config's folder and the checked paths."""
    import os

    roots = [os.path.realpath(str(config.root))]
    for p in paths:
        real = os.path.realpath(str(p))
        roots.append(real if os.path.isdir(real) else os.path.dirname(real))
    return roots


def _outside(path, roots) -> bool:
    import os

    real = os.path.realpath(str(path))
    return not any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


def withheld(config: Config, path, message: str) -> str:
    """message, unless it is about a rule table outside the tree: then only which setting
    names it and that it is outside (the message could quote the file's content)."""
    if not _is_outside_rule(config, path):
        return message
    return f"{config.path or 'config'}: extend-rules: {_OUTSIDE.format(path=path)}"


def withheld_text(config: Config, message: str) -> str:
    """withheld() for a message from elsewhere (the trace's tables) that names its file first."""
    for path in config.outside_rules:
        if str(path) in message:
            return withheld(config, path, message)
    return message


_OUTSIDE = (
    "the rule table {path} is outside the checked tree and the config's folder, and is not a valid "
    "castlint rule table; its content is not shown (copy it into the tree to see the error)"
)


def _is_outside_rule(config: Config, path) -> bool:
    import os

    real = os.path.realpath(str(path))
    return any(os.path.realpath(str(p)) == real for p in config.outside_rules)


def _readable_table(config: Config, path: Path) -> None:
    """Parse one extend-rules table up front, so that a file TOML cannot read (nested 50,000
    deep, not UTF-8) is an error naming it, not a RecursionError naming nothing."""
    where = config.path or "config"
    try:
        tomlcompat.loads(Path(path).read_bytes().decode("utf-8"))
    except OSError as exc:
        raise ConfigError(where, "extend-rules", f"rule table {path}: cannot read: {exc.strerror or exc}") from None
    except RecursionError:
        detail = "invalid TOML: nested too deeply to read"
    except (tomlcompat.TOMLDecodeError, UnicodeDecodeError) as exc:
        detail = f"invalid TOML: {exc}"
    else:
        return
    raise ConfigError(
        where,
        "extend-rules",
        _OUTSIDE.format(path=path) if _is_outside_rule(config, path) else f"rule table {path}: {detail}",
    )
