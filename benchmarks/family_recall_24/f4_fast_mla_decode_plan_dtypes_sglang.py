# sglang FlashInfer MLA backend: decode planning through a module-level fast plan function
# that takes the wrapper first; the dtypes are chosen in init_forward_metadata.
import torch


def fast_mla_decode_plan(wrapper, qo_indptr, kv_indptr, kv_indices, kv_len_arr, num_heads, head_dim_ckv, head_dim_kpe, page_size, causal, sm_scale, q_data_type, kv_data_type):
    wrapper._cached_module.plan(qo_indptr, kv_indptr, kv_len_arr, num_heads, head_dim_ckv, causal)
    wrapper._q_data_type, wrapper._kv_data_type = q_data_type, kv_data_type


class FlashInferMLAAttnBackend:
    def __init__(self, model_runner):
        self.q_data_type = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype

    def init_forward_metadata(self, forward_batch):
        w = self.decode_wrapper
        ind = self.indices_updater
        dtypes = (self.q_data_type, self.q_data_type)
        fast_mla_decode_plan(w, ind.qo_indptr, ind.kv_indptr, ind.kv_indices, ind.kv_lens, self.num_heads, 512, 64, 1, False, self.sm_scale, *dtypes)  # positive: f4 CL002 both dtypes the model dtype through *dtypes
        if self.native_fp8_decode:
            fast_mla_decode_plan(w, ind.qo_indptr, ind.kv_indptr, ind.kv_indices, ind.kv_lens, self.num_heads, 512, 64, 1, False, self.sm_scale, self.q_data_type, self.kv_cache_dtype)  # negative: pool dtype planned
