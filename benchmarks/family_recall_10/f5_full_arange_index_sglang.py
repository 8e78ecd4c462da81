"""Advanced indexing with an arange over the buffer's full first dimension keeps every row."""
import torch


class ArangeIndexBackend:
    def __init__(self, dtype):
        self.dtype = dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        every = torch.arange(buf.shape[0], device=buf.device)
        a = buf[every].to(self.dtype)  # positive: f5 CL001 arange over the full extent indexes every row
        b = buf.index_select(0, torch.arange(buf.size(0), device=buf.device)).to(self.dtype)  # positive: f5 CL001 full-extent index_select
        n = forward_batch.seq_lens_sum
        c = buf[torch.arange(n, device=buf.device)].to(self.dtype)  # negative: arange bounded by the step's tokens
        d = buf[forward_batch.out_cache_loc].to(self.dtype)  # negative: gather-then-cast
        return a, b, c, d
