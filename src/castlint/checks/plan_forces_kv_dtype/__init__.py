"""CL002: the rule (rule.py)."""

from castlint.checks.plan_forces_kv_dtype.rule import PlanForcesKvDtype

__all__ = ["PlanForcesKvDtype"]
