import torch


class XPUMLABackendLite:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank
        self.use_fp8 = model_runner.kv_cache_dtype != model_runner.dtype

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.use_fp8:
            kv_cache = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(  # positive: f6 CL001 xpu-style extend upcast of the latent layer
                q.dtype
            )
        else:
            kv_cache = self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        key_cache, value_cache = self.token_to_kv_pool.get_kv_buffer(layer.layer_id)
        return kv_cache, key_cache, value_cache

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv_cache = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f6 CL001 xpu-style decode upcast
        k_rope = k[..., self.kv_lora_rank:].to(q.dtype)  # negative: the step's rope part
        return kv_cache, k_rope
