"""Facts about castlint itself that reports link to, read from its installed metadata
(pyproject.toml's [project.urls]: the one place they are written)."""

from __future__ import annotations

from functools import lru_cache

# only when the metadata cannot be read (a source tree on sys.path, never installed)
_REPOSITORY = "https://github.com/castlint/castlint"


@lru_cache(maxsize=None)
def repository_url() -> str:
    """[project.urls] Repository: the page SARIF `informationUri` and rdjson `source.url` name."""
    try:
        from importlib.metadata import PackageNotFoundError, metadata

        try:
            entries = metadata("castlint").get_all("Project-URL") or []
        except PackageNotFoundError:
            entries = []
    except ImportError:  # pragma: no cover - Python without importlib.metadata
        entries = []
    for entry in entries:
        label, _, url = entry.partition(",")
        if label.strip().lower() == "repository" and url.strip().startswith("https://"):
            return url.strip()
    return _REPOSITORY
