"""SWA pool with full_plane/window_plane accessors and a location translator."""

import torch


class SwaDualPool:
    def __init__(self, full_size, swa_size, full_ids, swa_ids, head_num, head_dim, dtype, device):
        self.dtype = dtype
        self.slot = {lid: ("full", i) for i, lid in enumerate(full_ids)}
        self.slot.update({lid: ("swa", i) for i, lid in enumerate(swa_ids)})
        self.full = [torch.zeros(full_size + 1, head_num, head_dim, dtype=dtype, device=device) for _ in full_ids]
        self.swa = [torch.zeros(swa_size + 1, head_num, head_dim, dtype=dtype, device=device) for _ in swa_ids]
        self.full_to_swa = torch.zeros(full_size + 1, dtype=torch.int64, device=device)

    def full_plane(self, layer_id):
        return self.full[self.slot[layer_id][1]]

    def window_plane(self, layer_id):
        return self.swa[self.slot[layer_id][1]]

    def window_plane_bf16(self, layer_id):
        return self.swa[self.slot[layer_id][1]].bfloat16()  # positive: f6 CL004 accessor converts the whole SWA plane

    def translate(self, loc):
        return self.full_to_swa[loc]


class SwaBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if layer.sliding_window_size > 0:
            plane = self.pool.window_plane(layer.layer_id)
            loc = self.pool.translate(forward_batch.out_cache_loc)
            cur = plane[loc].to(self.dtype)  # negative: gather-then-cast of the translated window rows
            o = torch.empty_like(q)
            torch.ops.sgl_kernel.extend_attention(q, cur, o, forward_batch.extend_seq_lens)
            return o
        plane = self.pool.full_plane(layer.layer_id)
        pd = plane.to(self.dtype)  # positive: f6 CL001 full-attention plane from the SWA pool accessor
        tbl = self.pool.translate(forward_batch.out_cache_loc).to(torch.int32)  # negative: translated index table
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.extend_attention(q, pd, tbl, o, forward_batch.extend_seq_lens)
        return o

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        wp = self.pool.window_plane_bf16(layer.layer_id)
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.decode_attention(q, wp, o, forward_batch.seq_lens)
        return o
