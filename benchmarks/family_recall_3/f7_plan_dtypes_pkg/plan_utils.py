def mla_plan_dtypes(model_runner):
    return model_runner.dtype, model_runner.dtype


def mla_native_dtypes(model_runner):
    return model_runner.dtype, model_runner.kv_cache_dtype


def fast_mla_decode_plan(wrapper, qo_indptr, kv_indptr, kv_indices, kv_lens, num_heads, sm_scale, q_data_type, kv_data_type):
    wrapper.plan(qo_indptr, kv_indptr, kv_indices, kv_lens, num_heads, 512, 64, 1, False, sm_scale, q_data_type, kv_data_type)  # note: generic, the dtypes come from callers
