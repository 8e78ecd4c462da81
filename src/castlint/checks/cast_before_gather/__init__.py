"""CL003: the rule (rule.py), the codemods that fix its sites (fix*.py) and their proofs."""

from castlint.checks.cast_before_gather.rule import CastBeforeGather

__all__ = ["CastBeforeGather"]
