import torch


class PredicatePickImpl:
    def __init__(self, cache_engine, quant_policy):
        self.cache_engine = cache_engine
        self.quant_policy = quant_policy

    def forward(self, query, attn_metadata, layer_idx):
        caches = self.cache_engine.gpu_cache
        k_cache, v_cache = next((kv for i, kv in enumerate(caches) if i == layer_idx), (None, None))
        k16 = k_cache.to(query.dtype)  # positive: f3 CL001 layer cache picked by next() over a predicate generator
        v_blocks = v_cache[attn_metadata.block_offsets]
        v16 = v_blocks.to(query.dtype)  # negative: gathered blocks
        q_len = attn_metadata.q_seqlens.to(torch.int32)  # negative: query lengths
        return k16, v16, q_len
