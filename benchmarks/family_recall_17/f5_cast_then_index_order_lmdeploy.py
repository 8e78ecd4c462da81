"""lmdeploy: the order of cast and index matters: converting first touches the whole cache
even when only some blocks are used afterwards."""
import torch


class OrderSensitiveImpl:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        block_ids = attn_metadata.block_offsets.flatten()
        num_blocks = attn_metadata.num_used_blocks
        k_used = k_cache.float()[block_ids]  # positive: f5 CL001 the whole cache is widened before the gather
        v_used = v_cache.half()[:num_blocks]  # positive: f5 CL001 whole cache widened, then sliced
        k_ok = k_cache[block_ids].float()  # negative: gathered first
        v_ok = v_cache[:num_blocks].half()  # negative: sliced first
        return self._ref(query, k_used, v_used, k_ok, v_ok)

    def _ref(self, *tensors):
        return tensors[0]
