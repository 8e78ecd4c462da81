"""sglang-style FA3 MHA decode: FP8 query when the head dim allows, whole-pool widening when it does not."""
import torch


class FlashAttentionBackend:
    def __init__(self, model_runner, page_size):
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.kv_cache_dtype_str = model_runner.server_args.kv_cache_dtype
        self.page_size = page_size

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        key_cache, value_cache = forward_batch.token_to_kv_pool.get_kv_buffer(layer.layer_id)
        k_descale = v_descale = None
        if self.kv_cache_dtype_str != "auto" and layer.head_dim <= 256:
            q = q.to(self.kv_cache_dtype)  # negative: the query is quantized to the pool dtype
            k_descale = layer.k_scale.expand(forward_batch.batch_size, layer.tp_k_head_num)  # negative: scale, not a conversion
            v_descale = layer.v_scale.expand(forward_batch.batch_size, layer.tp_v_head_num)
        elif self.kv_cache_dtype_str != "auto":
            key_cache = key_cache.to(q.dtype)  # positive: f6 CL001 head_dim above 256 has no FP8 FA3 path; whole key layer
            value_cache = value_cache.to(q.dtype)  # positive: f6 CL001 whole value layer
        key_cache = key_cache.view(-1, self.page_size, layer.tp_k_head_num, layer.head_dim)
        value_cache = value_cache.view(-1, self.page_size, layer.tp_v_head_num, layer.v_head_dim)
        return self._fa3(q, key_cache, value_cache, k_descale, v_descale, forward_batch)

    def _fa3(self, q, key_cache, value_cache, k_descale, v_descale, forward_batch):
        return q
