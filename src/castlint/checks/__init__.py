"""The rules, one module each. ALL_RULES is the registry, in code order."""
from castlint.checks.base import FileContext, Rule
from castlint.checks.batch_sized_conversion import BatchSizedConversion
from castlint.checks.cast_before_gather import CastBeforeGather
from castlint.checks.plan_forces_kv_dtype import PlanForcesKvDtype
from castlint.checks.unused_suppression import UnusedSuppression
from castlint.checks.whole_pool_cast import WholePoolCast
from castlint.checks.whole_pool_conversion_helper import WholePoolConversionHelper

ALL_RULES = (WholePoolCast(), PlanForcesKvDtype(), CastBeforeGather(), WholePoolConversionHelper(),
             BatchSizedConversion(), UnusedSuppression())
RULES_BY_CODE = {rule.code: rule for rule in ALL_RULES}

__all__ = ["ALL_RULES", "RULES_BY_CODE", "FileContext", "Rule"]
