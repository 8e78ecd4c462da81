import torch


class MusaFlashAttentionBackend:
    """MUSA FA MLA: q goes fp8 only when head_dim <= 256, and MLA's is 576."""

    def __init__(self, model_runner):
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.fp8_q_ok = model_runner.model_config.head_dim <= 256

    def init_forward_metadata_replay_cuda_graph(self, bs, req_pool_indices, seq_lens, seq_lens_sum, **kw):
        self.decode_cuda_graph_metadata["cache_seqlens"][:bs].copy_(seq_lens.to(torch.int32))  # negative: lengths

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        if self.kv_cache_dtype == torch.float8_e4m3fn and self.fp8_q_ok:
            q = q.to(self.kv_cache_dtype)  # negative: fp8 query in the native branch
            kv = pool.get_key_buffer(layer.layer_id)
        else:
            kv = pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f6 CL001 whole MLA layer, paged extend
        return self._mha_with_kvcache(q, kv, forward_batch)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kv = pool.get_key_buffer(layer.layer_id)
        if not self.fp8_q_ok:
            kv = kv.to(q.dtype)  # positive: f6 CL001 whole MLA layer, decode (replayed in the MUSA graph)
        k_scale = layer.k_scale.to(q.dtype) if layer.k_scale is not None else None  # negative: the scale
        return self._mha_with_kvcache(q, kv, forward_batch, k_scale)
