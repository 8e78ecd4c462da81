import torch


class MLATokenToKVPoolBF16Read:
    def __init__(self, kv_buffer, kv_lora_rank, dtype, store_dtype):
        self.kv_buffer = kv_buffer
        self.kv_lora_rank = kv_lora_rank
        self.dtype = dtype
        self.store_dtype = store_dtype

    def get_latent_buffer(self, layer_id):
        buf = self.kv_buffer[layer_id].view(self.dtype)
        return buf[..., : self.kv_lora_rank].to(torch.bfloat16)  # positive: f6 CL004 accessor widens the latent part of every slot

    def get_rope_buffer(self, layer_id):
        return self.kv_buffer[layer_id].view(self.dtype)[..., self.kv_lora_rank :]  # negative: view only

    def set_kv_buffer(self, layer, loc, cache_k, cache_v):
        self.kv_buffer[layer.layer_id][loc] = cache_k.to(self.dtype).view(self.store_dtype)  # negative: writer


class CutlassFallbackBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        # note: per-step caller of the CL004 accessor
        return forward_batch.token_to_kv_pool.get_latent_buffer(layer.layer_id)
