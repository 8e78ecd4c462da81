"""sglang FA3 MLA: q goes FP8 only when head_dim <= 256 and MLA's is 576, so both paths
widen the pool layer to q's dtype; the writer and the page table are look-alikes."""
import torch


class FlashAttentionMLABackend:
    def __init__(self, model_runner):
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.page_size = model_runner.page_size
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True, q_rope=None, k_rope=None):
        pool = forward_batch.token_to_kv_pool
        if save_kv_cache:
            pool.set_mla_kv_buffer(layer, forward_batch.out_cache_loc, k.to(self.kv_cache_dtype), k_rope)  # negative: writer casts the new rows
        kv_cache = pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f6 CL001 whole layer, paged extend
        kv_cache = kv_cache.view(-1, self.page_size, 1, kv_cache.shape[-1])
        c_kv = kv_cache[:, :, :, : self.kv_lora_rank]
        k_pe = kv_cache[:, :, :, self.kv_lora_rank :]
        return self._fa3(q, c_kv, k_pe, forward_batch)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, q_rope=None, k_rope=None):
        pool = forward_batch.token_to_kv_pool
        kv_cache = pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f6 CL001 whole layer, decode
        kv_cache = kv_cache.view(-1, self.page_size, 1, kv_cache.shape[-1])
        page_table = forward_batch.attn_metadata.page_table.to(torch.int32)  # negative: page table, not the pool
        return self._fa3(q, kv_cache[..., : self.kv_lora_rank], kv_cache[..., self.kv_lora_rank :], page_table)

    def _fa3(self, q, c_kv, k_pe, extra):
        return q
