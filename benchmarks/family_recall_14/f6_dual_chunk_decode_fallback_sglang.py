"""Dual-chunk flash attention decode (long context) with an upcast when FP8 FA is missing."""
import torch


class DualChunkFlashAttentionBackend:
    def __init__(self, model_runner):
        self.kv_cache_dtype = model_runner.server_args.kv_cache_dtype
        self.block_size = model_runner.page_size
        self.fp8_fa_supported = model_runner.server_args.enable_fp8_fa

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if save_kv_cache:
            forward_batch.token_to_kv_pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        key_cache, value_cache = forward_batch.token_to_kv_pool.get_kv_buffer(layer.layer_id)
        key_cache = key_cache.view(-1, self.block_size, layer.tp_k_head_num, layer.head_dim)
        value_cache = value_cache.view(-1, self.block_size, layer.tp_v_head_num, layer.head_dim)
        if self.kv_cache_dtype != "auto" and not self.fp8_fa_supported:
            key_cache = key_cache.to(q.dtype)  # positive: f6 CL001 every block of the key layer
            value_cache = value_cache.to(q.dtype)  # positive: f6 CL001 every block of the value layer
        md = self.forward_metadata
        succ_k = key_cache[md.block_tables_succ].to(q.dtype)  # negative: the successor chunk's blocks
        q_scaled = (q * md.scaling_factor).to(torch.float32)  # negative: the step's queries
        return self._dual_chunk_decode(q_scaled, key_cache, value_cache, succ_k, md)
