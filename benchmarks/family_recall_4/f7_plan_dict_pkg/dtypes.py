def upcast_plan_dtypes(model_runner) -> dict:
    return {"q_data_type": model_runner.dtype, "kv_data_type": model_runner.dtype}


def native_plan_dtypes(model_runner) -> dict:
    return {"q_data_type": model_runner.dtype, "kv_data_type": model_runner.kv_cache_dtype}
