import torch


class FlashInferMLAIndicesUpdaterDecode:
    def __init__(self, model_runner, attn_backend):
        self.model_dtype = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.num_local_heads = model_runner.model_config.num_attention_heads // model_runner.tp_size
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank
        self.qk_rope_head_dim = model_runner.model_config.qk_rope_head_dim
        self.sm_scale = model_runner.model_config.scaling

    def call_begin_forward(self, wrapper, qo_indptr, kv_indptr, kv_indices, kv_lens, native_fp8):
        if native_fp8:
            wrapper.plan(  # negative: kv dtype is the cache's own dtype
                qo_indptr, kv_indptr, kv_indices, kv_lens, self.num_local_heads, self.kv_lora_rank,
                self.qk_rope_head_dim, 1, False, self.sm_scale, self.model_dtype, self.kv_cache_dtype,
            )
            return
        wrapper.plan(  # positive: f4 CL002 the walrus binds the model dtype and reuses it as the kv dtype
            qo_indptr, kv_indptr, kv_indices, kv_lens, self.num_local_heads, self.kv_lora_rank,
            self.qk_rope_head_dim, 1, False, self.sm_scale, (dt := self.model_dtype), dt,
        )


class FlashInferMLAAttnBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f4 CL001 whole latent pool converted to the query dtype
        q_nope = q.view(-1, layer.tp_q_head_num, layer.head_dim).to(k_buf.dtype)  # negative: the query
        return q_nope, k_buf
