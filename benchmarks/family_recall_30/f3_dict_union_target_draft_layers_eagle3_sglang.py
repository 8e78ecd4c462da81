"""sglang EAGLE3 draft: per-layer (k, v) maps of the target and draft pools merged with dict | dict at each extend."""
import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class Eagle3DraftMergedKVBackend(AttentionBackend):
    def __init__(self, target_pool, draft_pool, target_layer_ids, draft_layer_ids):
        self.target_kv = {lid: (target_pool.get_key_buffer(lid), target_pool.get_value_buffer(lid)) for lid in target_layer_ids}
        self.draft_kv = {lid: (draft_pool.get_key_buffer(lid), draft_pool.get_value_buffer(lid)) for lid in draft_layer_ids}

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        layers = self.target_kv | self.draft_kv
        k_buf, v_buf = layers[layer.layer_id]
        k_dense = k_buf.to(q.dtype)  # positive: f3 CL001 whole key layer looked up in the merged dict
        loc = forward_batch.out_cache_loc
        v_rows = v_buf[loc].to(q.dtype)  # negative: rows of this batch
        accepted = forward_batch.spec_info.accept_length.to(torch.int32)  # negative: lengths
        return self._attend(q, k_dense, v_rows, accepted, layer)

    def _attend(self, q, k, v, accepted, layer):
        return torch.ops.sgl.extend_attention(q, k, v, accepted, layer.scaling)
