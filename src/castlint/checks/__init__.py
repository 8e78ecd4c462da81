"""The rules and the one registry of them.

A rule is one module here, or, when it fixes what it finds, one folder: `<rule>/rule.py`
(the rule), `<rule>/fix*.py` (its codemods, loaded only by a run that fixes or shows
edits: castlint.fixes.base.registered_codemods) and the proofs they share. Every rule
module is imported here; each Rule subclass with a `code` registers itself on
definition (castlint.checks.base). A new rule, fixable or not, needs no other edit.
"""

import importlib
import pkgutil
from pathlib import Path

from castlint.checks.base import FileContext, Rule, registered_rules, unregister


def rule_folders() -> list:
    """The folders here that hold a rule (a rule.py), by name."""
    return sorted(p.name for p in Path(__path__[0]).iterdir() if (p / "rule.py").is_file())


for _module in pkgutil.iter_modules(__path__):
    if _module.name != "base" and not _module.ispkg:
        importlib.import_module(f"{__name__}.{_module.name}")
for _folder in rule_folders():
    importlib.import_module(f"{__name__}.{_folder}.rule")


def all_rules():
    """Every rule, in code order."""
    return registered_rules()


def rule_for(code: str):
    """The rule with this code, or None."""
    return next((rule for rule in registered_rules() if rule.code == code), None)


__all__ = ["FileContext", "Rule", "all_rules", "rule_folders", "rule_for", "unregister"]


def __getattr__(name: str):  # the registry as the tuples older callers read
    if name == "ALL_RULES":
        return tuple(registered_rules())
    if name == "RULES_BY_CODE":
        return {rule.code: rule for rule in registered_rules()}
    raise AttributeError(name)
