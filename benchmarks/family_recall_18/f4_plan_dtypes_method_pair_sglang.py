"""sglang-style FlashInfer MLA decode updater whose plan dtypes come from a method returning a pair."""
import torch


class FlashInferMLAIndicesUpdaterDecode:
    def __init__(self, model_runner, num_local_heads, kv_lora_rank, qk_rope_head_dim, scaling):
        self.model_runner = model_runner
        self.num_local_heads = num_local_heads
        self.kv_lora_rank = kv_lora_rank
        self.qk_rope_head_dim = qk_rope_head_dim
        self.scaling = scaling

    def _plan_dtypes(self):
        return self.model_runner.dtype, self.model_runner.dtype

    def _native_dtypes(self):
        return self.model_runner.dtype, self.model_runner.kv_cache_dtype

    def update(self, qo_indptr, kv_indptr, kv_indices, kv_lens, wrapper, native_fp8_kv=False):
        q_dtype, kv_dtype = self._native_dtypes() if native_fp8_kv else self._plan_dtypes()
        wrapper.plan(  # positive: f4 CL002 kv dtype is the model dtype on the non-native path while the pool is FP8
            qo_indptr, kv_indptr, kv_indices, kv_lens, self.num_local_heads, self.kv_lora_rank,
            self.qk_rope_head_dim, 1, False, self.scaling, q_dtype, kv_dtype,
        )


class FlashInferMLABackend:
    def __init__(self, model_runner, updater, decode_wrapper):
        self.model_runner = model_runner
        self.updater = updater
        self.decode_wrapper = decode_wrapper

    def init_forward_metadata(self, forward_batch):
        m = forward_batch.mla_indices
        self.updater.update(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, self.decode_wrapper)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buffer = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f4 CL001 the cast the bf16 plan forces
        q_nope = q[..., : self.updater.kv_lora_rank].to(k_buffer.dtype)  # negative: query, not the pool
        return self.decode_wrapper.run(q_nope, q[..., self.updater.kv_lora_rank :], k_buffer[..., : self.updater.kv_lora_rank], k_buffer[..., self.updater.kv_lora_rank :])
