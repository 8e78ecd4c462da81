# SPDX-License-Identifier: Apache-2.0
"""FlashAttention layout [num_blocks, 2, block_size, heads, dim]: halves via slicing, split, chunk."""
import torch

from vllm.v1.attention.backends.flash_attn import FlashAttentionImpl, FlashAttentionMetadata


class FA2ReferenceImpl(FlashAttentionImpl):
    def forward(self, layer, query, key, value, kv_cache, attn_metadata: FlashAttentionMetadata, output=None, output_scale=None):
        key_cache = kv_cache[:, 0]
        value_cache = kv_cache[:, 1]
        k_ref = key_cache.to(query.dtype)  # positive: f5 CL001 strided K half of the whole cache
        kc, vc = kv_cache.split(1, dim=1)
        v_ref = vc.squeeze(1).half()  # positive: f5 CL001 split half of the whole cache
        k_c, v_c = torch.chunk(kv_cache, 2, dim=1)
        kv_both = torch.cat([k_c, v_c], dim=1).float()  # positive: f5 CL001 chunk + cat keeps every block
        n = attn_metadata.num_actual_tokens
        slot = attn_metadata.slot_mapping[:n]
        k_slots = key_cache.flatten(0, 1)[slot].to(query.dtype)  # negative: gathers slots first
        out_q = query[:n].to(torch.float32)  # negative: batch query
        return k_ref, v_ref, kv_both, k_slots, out_q
