import torch


class FlashAttentionImplFallback:
    """Attention impl that keeps a back reference to the model runner."""

    def __init__(self, num_heads, head_size, scale, runner=None):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale
        self.runner = runner

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        if attn_metadata is None:
            return output
        idx = layer.layer_idx
        cache = self.runner.kv_caches[idx]
        cache_bf16 = cache.to(query.dtype)  # positive: f1 CL001 whole layer cache reached through the runner back reference
        key_cache, value_cache = cache_bf16.unbind(0)
        block_table = self.runner.input_batch.block_table[0].get_device_tensor()
        bt = block_table[: attn_metadata.num_reqs].to(torch.int32)  # negative: the step's rows of the block table
        k_scale = layer._k_scale.float()  # negative: a scalar scale
        return self._varlen(query, key_cache, value_cache, bt, k_scale, output)

    def _varlen(self, q, kc, vc, bt, ks, out):
        return out
