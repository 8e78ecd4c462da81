"""einops.rearrange with named axes on the whole key buffer."""

import torch
from einops import rearrange


class EinopsBackend:
    def __init__(self, model_runner, page_size=64):
        self.pool = model_runner.token_to_kv_pool
        self.page_size = page_size
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb = self.pool.get_key_buffer(layer.layer_id)
        paged = rearrange(kb, "(np ps) h d -> np ps h d", ps=self.page_size)
        pd = paged.to(self.dtype)  # positive: f5 CL001 the whole buffer regrouped into pages with rearrange, then cast
        flat = rearrange(kb, "t h d -> t (h d)").to(self.dtype)  # positive: f5 CL001 rearrange merging heads keeps every token
        qh = rearrange(q, "b (h d) -> b h d", h=layer.tp_q_head_num).to(self.dtype)  # negative: batch query
        o = torch.empty_like(qh)
        torch.ops.sgl_kernel.paged_decode(qh, pd, flat, o, forward_batch.seq_lens)
        return o

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        vb = self.pool.get_value_buffer(layer.layer_id)
        rows = rearrange(vb[forward_batch.out_cache_loc], "t h d -> h t d").to(self.dtype)  # negative: gathered rows rearranged
        kk = rearrange(k, "t h d -> t (h d)").to(self.dtype)  # negative: batch key of the new tokens
        raw = rearrange(vb, "t h d -> t (h d)").view(torch.uint8)  # negative: rearranged whole buffer reinterpreted, not converted
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.extend(q, rows, kk, raw, o, forward_batch.extend_seq_lens)
        return o
