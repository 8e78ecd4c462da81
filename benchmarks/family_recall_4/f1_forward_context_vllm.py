"""An impl reaches its layer's kv_cache through the forward context's layer table."""
import torch
from vllm.forward_context import get_forward_context


class LayerMirror:
    def __init__(self):
        self.caches = None
        self.layer_name = None

    def bind(self, layer):
        self.caches = layer.kv_cache
        self.layer_name = layer.layer_name


class ForwardContextImpl:
    def __init__(self, num_heads, head_size, scale, kv_cache_dtype="fp8"):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale
        self.kv_cache_dtype = kv_cache_dtype
        self.mirror = LayerMirror()

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None, **kwargs):
        fc = get_forward_context()
        owner = fc.no_compile_layers[layer.layer_name]
        src = owner.kv_cache[fc.virtual_engine]
        blob = src.to(torch.bfloat16)  # positive: f1 CL001 context -> layer table -> layer -> kv_cache list entry
        slots = fc.attn_metadata[layer.layer_name].slot_mapping.to(torch.int64)  # negative: slot mapping
        key = key.to(blob.dtype)  # negative: batch key
        return self._run(query, key, blob, slots, output)

    def __call__(self, layer, query, key, value, kv_cache, attn_metadata):
        if self.mirror.caches is None:
            self.mirror.bind(layer)
        ve = get_forward_context().virtual_engine
        t = self.mirror.caches[ve].float()  # positive: f1 CL001 mirror object holds the layer's kv_cache list
        used = self.mirror.caches[ve][:, attn_metadata.block_table[0]].float()  # negative: one sequence's blocks
        return t, used

    def _run(self, query, key, cache, slots, output):
        if output is None:
            output = torch.empty_like(query)
        return output
