"""sglang NSA (DeepSeek V3.2) target verify fallback: whole-pool widen vs the paged dequant precedent."""
import torch


def dequantize_k_cache_paged(pool_buf, page_table, dtype):
    return pool_buf[page_table].to(dtype)  # negative: pages gathered first


class NativeSparseAttnBackend:
    def __init__(self, model_runner):
        self.model_dtype = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True, topk_indices=None):
        pool = forward_batch.token_to_kv_pool
        if save_kv_cache:
            pool.set_mla_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        if forward_batch.forward_mode.is_target_verify() and topk_indices is None:
            kv = pool.get_key_buffer(layer.layer_id).to(self.model_dtype)  # positive: f6 CL001 whole pool in the verify fallback
            return self._dense_verify(q, kv, forward_batch)
        page_table = forward_batch.nsa_metadata.page_table_1
        kv = dequantize_k_cache_paged(pool.get_key_buffer(layer.layer_id), page_table, self.model_dtype)
        idx = topk_indices.to(torch.int32)  # negative: indices
        return self._sparse_prefill(q, kv, idx, forward_batch)
