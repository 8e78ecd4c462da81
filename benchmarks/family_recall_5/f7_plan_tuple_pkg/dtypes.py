"""Which dtypes the FlashInfer MLA plan is given."""


def mla_plan_dtypes(model_runner):
    return model_runner.dtype, model_runner.dtype


def native_plan_dtypes(model_runner):
    return model_runner.dtype, model_runner.kv_cache_dtype
