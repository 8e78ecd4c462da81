"""What a fix is asked to do: plain data, no libcst.

The session and the CLI validate a fixing run's options and hand them to the fix
package without loading it; castlint.fixes.base re-exports these names, which is
where the codemods read them from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

API_CHOICES = ("auto", "positional", "keyword")
PROFILE_CHOICES = ("full", "minimal")  # full: every read; minimal: the decode native read only


@dataclass
class FixOptions:
    unsafe: bool = False
    dry_run: bool = False
    flashinfer_api: str = "auto"
    flashinfer_version: Optional[str] = None  # overrides the pin read from rules/sglang.toml
    profile: str = "full"  # PROFILE_CHOICES
