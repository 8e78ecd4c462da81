"""vLLM: the attention custom op finds its layer (and so its cache) through the forward
context's no_compile_layers table; a reference impl without FP8 kernels widens the cache."""
import torch
from vllm.forward_context import get_forward_context


@torch.library.custom_op("fr17::ref_attention", mutates_args=("output",))
def ref_attention(query: torch.Tensor, output: torch.Tensor, layer_name: str) -> None:
    ctx = get_forward_context()
    layer = ctx.no_compile_layers[layer_name]
    kv_cache = layer.kv_cache[ctx.virtual_engine]
    key_cache, value_cache = kv_cache.unbind(0)
    if layer.kv_cache_dtype.startswith("fp8"):
        key_cache = key_cache.to(query.dtype)  # positive: f1 CL001 whole key plane of the layer's cache
        value_cache = value_cache.to(query.dtype)  # positive: f1 CL001 whole value plane of the layer's cache
    meta = ctx.attn_metadata[layer_name]
    tail = key_cache[meta.block_table[:, -1]].to(query.dtype)  # negative: last block of each request only
    output.copy_(layer.impl.reference(query, key_cache, value_cache, tail, meta))


@ref_attention.register_fake
def _(query, output, layer_name):
    return None


class RefAttention(torch.nn.Module):
    def forward(self, query):
        out = torch.empty_like(query)
        scales = self._k_scale.to(query.dtype)  # negative: a scalar scale, not the cache
        torch.ops.fr17.ref_attention(query * scales, out, self.layer_name)
        return out
