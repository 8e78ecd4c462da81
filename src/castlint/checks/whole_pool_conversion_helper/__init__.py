"""CL004: the rule (rule.py), the codemods that fix its sites (fix*.py) and their proofs."""

from castlint.checks.whole_pool_conversion_helper.rule import WholePoolConversionHelper

__all__ = ["WholePoolConversionHelper"]
