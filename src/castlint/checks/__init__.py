"""The rules, one module each, and the one registry of them.

Every module in this package is imported here; each Rule subclass with a `code`
registers itself on definition (castlint.checks.base). A new rule is one new
module: its code, name, docs, examples, trigger words and analysis scope.
"""
import importlib
import pkgutil

from castlint.checks.base import FileContext, Rule, registered_rules, unregister

for _module in pkgutil.iter_modules(__path__):
    if _module.name != "base":
        importlib.import_module(f"{__name__}.{_module.name}")


def all_rules():
    """Every rule, in code order."""
    return registered_rules()


def rule_for(code: str):
    """The rule with this code, or None."""
    return next((rule for rule in registered_rules() if rule.code == code), None)


__all__ = ["FileContext", "Rule", "all_rules", "rule_for", "unregister"]


def __getattr__(name: str):  # the registry as the tuples older callers read
    if name == "ALL_RULES":
        return tuple(registered_rules())
    if name == "RULES_BY_CODE":
        return {rule.code: rule for rule in registered_rules()}
    raise AttributeError(name)
