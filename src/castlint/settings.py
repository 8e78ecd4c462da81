"""The settings of each checked file: its nearest config, with the command line on top.

ruff reads, for every file, the nearest pyproject.toml / ruff.toml above it, so a
file's verdict never depends on which other paths share the command line (pre-commit
passes them in any order). castlint does the same: a Resolver answers (Config,
Tables) per file, built once per config file, with the same flags applied to each.
`--config FILE` and `--isolated` give every file one config, as in ruff.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple


class SettingsRefused(ValueError):
    """A flag or a config that cannot be used; the message names the flag, or the file and key."""


@dataclass
class CommandLine:
    """The flags that change a config (None: not given)."""

    select: Optional[List[str]] = None
    ignore: Optional[List[str]] = None
    extend_select: Optional[List[str]] = None
    exclude: Optional[List[str]] = None
    extend_exclude: Optional[List[str]] = None
    respect_gitignore: Optional[bool] = None
    per_file_ignores: Optional[List[str]] = None  # GLOB:CODE[,CODE] each
    extend_per_file_ignores: Optional[List[str]] = None
    config_file: Optional[str] = None
    overrides: dict = field(default_factory=dict)  # --config KEY=VALUE, merged
    override_texts: List[str] = field(default_factory=list)
    isolated: bool = False
    ignore_noqa: bool = False
    no_cache: bool = False


def split_config_flags(values: Optional[List[str]]) -> Tuple[Optional[str], dict, List[str]]:
    """--config values -> (the config file, the merged KEY=VALUE overrides, their texts).

    As in ruff, a value that names an existing file (or has no `=`) is a file; any other
    is an inline TOML setting. At most one file."""
    import os

    from castlint.config import ConfigError, merge, parse_override

    path, overrides, texts = None, {}, []
    for value in values or ():
        if os.path.isfile(value) or "=" not in value:
            if path is not None:
                raise SettingsRefused(
                    f"--config: two config files given ({path}, {value}); give one, and settings as KEY=VALUE"
                )
            path = value
            continue
        try:
            overrides = merge(overrides, parse_override(value))
        except ConfigError as exc:
            raise SettingsRefused(str(exc)) from None
        texts.append(value)
    return path, overrides, texts


def _split(values: Optional[List[str]]) -> List[str]:
    return [part.strip() for value in values or () for part in value.split(",") if part.strip()]


def parse_per_file_ignores(values: List[str], flag: str) -> dict:
    """`GLOB:CODE[,CODE...]` values (ruff's form) -> {glob: codes}."""
    from castlint.codes import SelectorError, parse_selectors

    table: Dict[str, tuple] = {}
    for value in values:
        glob, sep, codes = value.rpartition(":")
        if not sep or not glob.strip() or not codes.strip():
            raise SettingsRefused(f"{flag}: {value!r} is not GLOB:CODE[,CODE...] (for example 'tests/*.py:CL001')")
        try:
            parsed = parse_selectors(_split([codes]), flag)
        except SelectorError as exc:
            raise SettingsRefused(str(exc)) from None
        table[glob.strip()] = tuple(dict.fromkeys(table.get(glob.strip(), ()) + parsed))
    return table


class Resolver:
    """(Config, Tables) for each path: its nearest config (or the one --config / --isolated
    fixes) with the command line applied. Each config file is read once.

    trusted: more paths that count as checked ones for the extend-rules tables a config
    names (castlint.config.load_settings: errors about a table outside them never quote it)."""

    def __init__(self, flags: CommandLine, first_paths, trusted=()):
        from castlint import config as configmod

        configmod._NEAREST.clear()  # one run's memory: a config written since the last run is read
        self.flags = flags
        self.first_paths = list(first_paths)
        self.trusted = [str(p) for p in trusted]
        self._by_file: Dict[Optional[str], tuple] = {}
        self._by_folder: Dict[str, tuple] = {}  # a folder as the walk spells it -> its settings
        self.fixed = flags.config_file is not None or flags.isolated

    def primary(self):
        """The settings of the first path (the run's own, for what is not per file)."""
        return self.for_path(self.first_paths[0] if self.first_paths else ".")

    def config_path(self, path) -> Optional[Path]:
        from castlint.config import nearest_config

        if self.fixed:
            return Path(self.flags.config_file) if self.flags.config_file else None
        return nearest_config(path)

    def for_path(self, path):
        found = self.config_path(path)
        key = str(found) if found is not None else None
        if key not in self._by_file:
            self._by_file[key] = self._build(found, path)
        return self._by_file[key]

    def for_file(self, path: str):
        """for_path of a file known to be one (a walk's): answered per folder, without a stat."""
        import os

        folder = os.path.dirname(path) or "."
        settings = self._by_folder.get(folder)
        if settings is None:
            settings = self._by_folder[folder] = self.for_path(folder)
        return settings

    def _build(self, found: Optional[Path], path):
        from castlint.config import SettingsError, load_settings

        flags = self.flags
        try:
            config, tables = load_settings(
                [path, *self.trusted],
                Path(flags.config_file) if flags.config_file else None,
                flags.overrides,
                flags.isolated,
                found,
            )
        except SettingsError as exc:
            raise SettingsRefused(str(exc)) from None
        apply(config, flags)
        return config, tables

    def groups(self, files) -> List[tuple]:
        """[(config, tables, files)] in the order of each config's first file."""
        order: Dict[int, tuple] = {}
        for path in files:
            config, tables = self.for_file(path)
            entry = order.setdefault(id(config), (config, tables, []))
            entry[2].append(path)
        return list(order.values())


def apply(config, flags: CommandLine) -> None:
    """The command line over one config, through the validators the files use; then
    refuse a selection that leaves no checking rule on."""
    from castlint.codes import DEFAULT_CODES, RULES_BY_CODE, SelectorError, enabled_codes, parse_selectors
    from castlint.config import DEFAULT_EXCLUDE

    where = str(config.path) if config.path else None
    select_source = f"{where}: select" if where and config.select else None
    ignore_sources = [f"{where}: ignore"] if where and config.ignore else []
    if flags.overrides.get("select"):
        select_source = "--config select"
    try:
        if flags.select:
            config.select = parse_selectors(flags.select, "--select")
            select_source = "--select " + ",".join(flags.select)
        if flags.extend_select:
            extra = parse_selectors(flags.extend_select, "--extend-select")
            if config.select:
                select_source = (select_source or "select") + " with --extend-select " + ",".join(flags.extend_select)
            config.select = tuple(dict.fromkeys(tuple(config.select or DEFAULT_CODES) + extra))
        if flags.ignore:
            config.ignore = tuple(dict.fromkeys(tuple(config.ignore) + parse_selectors(flags.ignore, "--ignore")))
            ignore_sources.append("--ignore " + ",".join(flags.ignore))
    except SelectorError as exc:
        raise SettingsRefused(str(exc)) from None
    if flags.exclude is not None:
        config.exclude = tuple(_split(flags.exclude)) + DEFAULT_EXCLUDE
    if flags.extend_exclude:
        config.exclude = tuple(_split(flags.extend_exclude)) + tuple(config.exclude)
    if flags.respect_gitignore is not None:
        config.respect_gitignore = flags.respect_gitignore
    if flags.per_file_ignores is not None:
        config.per_file_ignores = parse_per_file_ignores(flags.per_file_ignores, "--per-file-ignores")
    if flags.extend_per_file_ignores:
        extra = parse_per_file_ignores(flags.extend_per_file_ignores, "--extend-per-file-ignores")
        merged = dict(config.per_file_ignores)
        for glob, codes in extra.items():
            merged[glob] = tuple(dict.fromkeys(tuple(merged.get(glob, ())) + codes))
        config.per_file_ignores = merged
    if flags.ignore_noqa:
        config.ignore_noqa = True
    if flags.no_cache:
        config.cache = False
    config.select_source = select_source or (
        "--config select"
        if flags.overrides.get("select")
        else (f"{where}: select" if where and config.select else "default")
    )
    if not (config.select or config.ignore):
        return
    on = enabled_codes(config.select, config.ignore)
    if not any(RULES_BY_CODE[code].kind == "check" for code in on):
        chosen = ", ".join(on) if on else "no rule"
        why = [select_source] if select_source else []
        why += ignore_sources
        raise SettingsRefused(
            f"{' and '.join(why) or 'the configuration'} leaves {chosen} enabled: nothing that "
            "checks code would run (CL900 only reports suppressions of rules that run). See "
            "`castlint rules`."
        )
