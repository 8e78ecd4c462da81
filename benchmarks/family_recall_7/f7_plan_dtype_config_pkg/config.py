import dataclasses

import torch


@dataclasses.dataclass(frozen=True)
class PlanDtypes:
    q: torch.dtype
    kv: torch.dtype


def dtypes_for(model_runner):
    return PlanDtypes(q=model_runner.dtype, kv=model_runner.dtype)


def native_dtypes(model_runner):
    return PlanDtypes(q=model_runner.dtype, kv=model_runner.kv_cache_dtype)
