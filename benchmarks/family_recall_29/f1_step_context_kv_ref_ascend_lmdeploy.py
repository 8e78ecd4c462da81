"""lmdeploy Ascend (dlinfer) fallback: a _KVRef object rides on the step context into the op."""
import torch


class _KVRef:
    def __init__(self, caches, layer_idx: int):
        self.caches = caches
        self.layer_idx = layer_idx

    def pair(self):
        return self.caches[self.layer_idx]


class AscendOpsBackend:
    @staticmethod
    def update_step_context(step_context):
        step_context.kv_refs = [_KVRef(step_context.kv_caches, i) for i in range(len(step_context.kv_caches))]
        step_context.q_seqlens = step_context.q_seqlens.to(torch.int32)  # negative: lengths
        return step_context


class AscendFallbackAttention:
    def forward(self, query, key, value, step_context, layer_idx: int):
        k_cache, v_cache = step_context.kv_refs[layer_idx].pair()
        if step_context.is_decoding:
            k = k_cache.to(query.dtype)  # positive: f1 CL001 whole key cache reached through the step context's _KVRef
            v = v_cache.to(query.dtype)  # positive: f1 CL001 whole value cache
        else:
            blocks = step_context.block_offsets.flatten()
            k = k_cache[blocks].to(query.dtype)  # negative: blocks first
            v = v_cache[blocks].to(query.dtype)  # negative: blocks first
        return self._paged(query, k, v, step_context)
