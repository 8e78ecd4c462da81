"""vLLM cross-layer KV sharing: a resolver object maps a sharing layer to its target layer's cache."""
import torch


class _KVSharingResolver:
    def __init__(self, layers, sharing):
        self._layers = layers  # layer name -> Attention module (static_forward_context)
        self._target = dict(sharing)  # sharing layer name -> target layer name

    def cache_of(self, name, virtual_engine=0):
        return self._layers[self._target.get(name, name)].kv_cache[virtual_engine]


class SharedKVTritonDecode:
    def __init__(self, vllm_config, sharing):
        ctx = vllm_config.compilation_config.static_forward_context
        self.resolver = _KVSharingResolver(ctx, sharing)
        self.dtype = vllm_config.model_config.dtype
        self.k_scale = torch.ones((), device="cuda")

    def forward(self, layer_names, attn_metadata):
        out = {}
        for name in layer_names:
            kv = self.resolver.cache_of(name)
            if attn_metadata.max_query_len > 1:
                out[name] = kv[:, attn_metadata.block_table.flatten()].to(self.dtype)  # negative: the batch's blocks gathered first
            else:
                out[name] = kv.to(self.dtype)  # positive: f1 CL001 whole layer cache [2, num_blocks, ...] resolved through the sharing object
            out[name + ".k_scale"] = self.k_scale.to(self.dtype)  # negative: scale
        return out
