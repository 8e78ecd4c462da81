"""vLLM Gaudi (HPU) impl: a pair object exposes the layer's caches through properties."""
import torch


class _HpuCachePair:
    def __init__(self, kv_cache: torch.Tensor):
        self._kv = kv_cache

    @property
    def key(self) -> torch.Tensor:
        return self._kv[0]

    @property
    def value(self) -> torch.Tensor:
        return self._kv[1]


class HPUFallbackAttentionImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        pair = _HpuCachePair(kv_cache)
        scale = layer._k_scale_float
        if attn_metadata.is_prompt:
            blocks = attn_metadata.block_list
            k = pair.key.index_select(0, blocks).to(query.dtype)  # negative: block gather before the cast
            v = pair.value.index_select(0, blocks).to(query.dtype)  # negative: block gather before the cast
            return self._prompt(query, k, v, attn_metadata)
        k_all = pair.key.to(query.dtype) * scale  # positive: f1 CL001 whole key cache behind the property
        v_all = pair.value.to(query.dtype) * scale  # positive: f1 CL001 whole value cache behind the property
        ks = torch.tensor(scale).to(query.device)  # negative: a scale moved to the device
        return self._decode(query, k_all, v_all, ks, attn_metadata)
