"""torch.vstack / hstack / dstack of whole k and v planes, then a cast."""

import torch


class StackedPlanesBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb, vb = self.pool.get_kv_buffer(layer.layer_id)
        both = torch.vstack([kb, vb])
        bd = both.to(self.dtype)  # positive: f5 CL001 vstack of the whole k and v planes, then cast
        side = torch.hstack((kb, vb)).to(self.dtype)  # positive: f5 CL001 hstack of the whole planes cast in one line
        new_kv = torch.vstack([k, v]).to(self.dtype)  # negative: batch k and v of the new tokens
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.extend_attention(q, bd, side, new_kv, o, forward_batch.extend_seq_lens)
        return o

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb, vb = self.pool.get_kv_buffer(layer.layer_id)
        deep = torch.dstack([kb, vb])
        dd = deep.float()  # positive: f5 CL001 dstack of both whole planes
        loc = forward_batch.out_cache_loc
        rows = torch.vstack([kb[loc], vb[loc]]).to(self.dtype)  # negative: rows gathered before stacking
        same = torch.vstack([kb, vb]).to(kb.dtype)  # negative: stacked copy in the planes' own dtype
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.decode_attention(q, dd, rows, same, o, forward_batch.seq_lens)
        return o
