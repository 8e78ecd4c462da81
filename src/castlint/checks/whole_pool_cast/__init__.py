"""CL001: the rule (rule.py), the codemods that fix its sites (fix*.py) and their proofs."""

from castlint.checks.whole_pool_cast.rule import WholePoolCast

__all__ = ["WholePoolCast"]
