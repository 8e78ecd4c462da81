import torch


class NestedKVExporter:
    """Packs a layer's k/v caches (different head dims) into one nested tensor for an analysis hook."""

    def __init__(self, cache_engine):
        self.cache_engine = cache_engine

    def forward(self, layer_idx, attn_metadata):
        k_cache, v_cache = self.cache_engine.gpu_cache[layer_idx]
        packed = torch.nested.nested_tensor([k_cache, v_cache], dtype=torch.float16)  # positive: f5 CL001 the nested constructor copies both whole caches in fp16
        same = torch.nested.nested_tensor([k_cache, v_cache])  # negative: no dtype, same-dtype copy
        rows = torch.nested.as_nested_tensor(
            [k_cache[attn_metadata.block_offsets[0]], v_cache[attn_metadata.block_offsets[0]]], dtype=torch.float16
        )  # negative: blocks selected first
        return packed, same, rows
