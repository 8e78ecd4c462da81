"""Subclass hierarchy where every conversion is on gathered, sliced or batch data."""
import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class _GatheringBase(AttentionBackend):
    def gathered_k(self, forward_batch, layer):
        return forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc]

    def prefix_v(self, forward_batch, layer, n):
        return forward_batch.token_to_kv_pool.get_value_buffer(layer.layer_id)[:n]

    def buffer_device(self, forward_batch, layer):
        return forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id).device


class SafeChild(_GatheringBase):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        a = self.gathered_k(forward_batch, layer).to(q.dtype)  # negative: base returns a gather
        b = super().prefix_v(forward_batch, layer, forward_batch.seq_lens_sum).to(q.dtype)  # negative: base returns an active prefix
        c = k.to(self.buffer_device(forward_batch, layer))  # negative: device move of the batch tensor
        d = torch.empty((forward_batch.batch_size, layer.tp_k_head_num, layer.qk_head_dim), dtype=torch.bfloat16, device=q.device)  # negative: batch-sized buffer
        d.copy_(self.gathered_k(forward_batch, layer)[: forward_batch.batch_size])  # negative: copy of gathered rows
        return a, b, c, d
