import torch

COMPUTE_DTYPE = torch.bfloat16
POOL_DTYPE = torch.float8_e4m3fn


def plan_dtypes(model_runner):
    return model_runner.dtype, model_runner.dtype


def native_plan_dtypes(model_runner):
    return model_runner.dtype, model_runner.kv_cache_dtype
