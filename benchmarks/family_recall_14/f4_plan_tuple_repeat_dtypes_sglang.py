"""MLA paged-prefill updaters; plan dtypes come from a tuple repetition unpacked into two names."""
import torch


class FlashInferMLAIndicesUpdaterPrefill:
    def __init__(self, model_runner, attn_backend):
        self.model_dtype = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.num_local_heads = model_runner.model_config.num_attention_heads // model_runner.tp_size
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank
        self.qk_rope_head_dim = model_runner.model_config.qk_rope_head_dim
        self.scaling = model_runner.model_config.scaling

    def _dtypes(self):
        q_dt, kv_dt = (self.model_dtype,) * 2
        return q_dt, kv_dt

    def call_begin_forward(self, wrapper_paged, qo_indptr, kv_indptr, kv_indices, kv_len_arr):
        q_dt, kv_dt = self._dtypes()
        wrapper_paged.plan(  # positive: f4 CL002 kv_data_type is the model dtype, the pool is FP8
            qo_indptr, kv_indptr, kv_indices, kv_len_arr, self.num_local_heads, self.kv_lora_rank,
            self.qk_rope_head_dim, 1, True, self.scaling, q_data_type=q_dt, kv_data_type=kv_dt,
        )


class NativeFP8MLAIndicesUpdaterPrefill(FlashInferMLAIndicesUpdaterPrefill):
    def call_begin_forward(self, wrapper_paged, qo_indptr, kv_indptr, kv_indices, kv_len_arr):
        q_dt, kv_dt = self.model_dtype, self.kv_cache_dtype
        wrapper_paged.plan(  # negative: kv_data_type is the pool's dtype
            qo_indptr, kv_indptr, kv_indices, kv_len_arr, self.num_local_heads, self.kv_lora_rank,
            self.qk_rope_head_dim, 1, True, self.scaling, q_data_type=q_dt, kv_data_type=kv_dt,
        )
        self.last_indices = kv_indices.to(torch.int32)  # negative: an index tensor
