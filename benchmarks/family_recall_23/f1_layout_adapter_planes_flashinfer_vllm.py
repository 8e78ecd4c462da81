# vLLM v1 FlashInfer backend on a GPU without FP8 prefill kernels: a small adapter turns the layer's
# kv_cache (2, num_blocks, block_size, heads, dim) into the layout the wrapper wants.
import torch


class _HNDAdapter:
    def __init__(self, kv_cache: torch.Tensor):
        self._kv = kv_cache

    def key_value(self):
        return self._kv.unbind(0)

    def blocks(self, block_ids):
        return self._kv[:, block_ids]


class FlashInferNoFp8PrefillImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        adapter = _HNDAdapter(kv_cache)
        if attn_metadata.num_prefills:
            k_cache, v_cache = adapter.key_value()
            k_cache = k_cache.to(query.dtype)  # positive: f1 CL001 whole key plane from the adapter, per step
            v_cache = v_cache.to(query.dtype)  # positive: f1 CL001 whole value plane from the adapter, per step
            attn_metadata.prefill_wrapper.run(query, (k_cache, v_cache), out=output)
        if attn_metadata.num_decodes:
            live = adapter.blocks(attn_metadata.decode_block_ids).to(query.dtype)  # negative: blocks selected first
            attn_metadata.decode_wrapper.run(query, live, out=output)
        return output
