"""lmdeploy paged caches rearranged with movedim/contiguous/flatten before a half() upcast."""
import torch


class SDPADecodeFallbackImpl:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        self._fill_kv_cache(key, value, k_cache, v_cache, attn_metadata)
        k_hnd = k_cache.movedim(2, 1).contiguous().half()  # positive: f5 CL001 every block, heads moved ahead of tokens
        v_flat = v_cache.flatten(0, 1).to(query.dtype)  # positive: f5 CL001 every slot of the value cache
        flat_idx = attn_metadata.kv_flatten_indices
        k_tok = k_cache.flatten(0, 1)[flat_idx].half()  # negative: gathered token rows
        block_offsets = attn_metadata.block_offsets.to(torch.int64)  # negative: block table
        q = query.transpose(0, 1).half()  # negative: the step's queries
        return self._decode(q, k_hnd, v_flat, k_tok, block_offsets)

    def _fill_kv_cache(self, key, value, k_cache, v_cache, attn_metadata):
        k_cache.view(-1, *k_cache.shape[2:])[attn_metadata.slot_mapping] = key.to(k_cache.dtype)  # negative: writer
        v_cache.view(-1, *v_cache.shape[2:])[attn_metadata.slot_mapping] = value.to(v_cache.dtype)  # negative: writer
