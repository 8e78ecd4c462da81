"""A mixin supplies properties over the host's token_to_kv_pool."""

import torch


class PoolPropsMixin:
    @property
    def latent_all(self):
        return self.token_to_kv_pool.kv_buffer

    @property
    def loc_rows(self):
        return [b[self.cur_loc] for b in self.token_to_kv_pool.kv_buffer]


class BackendCore:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.cur_loc = torch.zeros(0, dtype=torch.int64, device="cuda")
        self.dtype = model_runner.dtype


class PropsBackend(PoolPropsMixin, BackendCore):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = self.latent_all[layer.layer_id]
        bd = buf.to(self.dtype)  # positive: f2 CL001 mixin property yields the pool's per-layer buffer list
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.mla_decode(q, bd, o, forward_batch.seq_lens)
        return o

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        self.cur_loc = forward_batch.out_cache_loc
        r = self.loc_rows[layer.layer_id].to(self.dtype)  # negative: mixin property gathers the current locations
        c = self.cur_loc.to(torch.int32)  # negative: locations
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.mla_extend(q, r, c, o, forward_batch.extend_seq_lens)
        return o


class MirroredPropsBackend(PropsBackend):
    @property
    def latent_all(self):
        return [b.flatten(1) for b in super().latent_all]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        m = self.latent_all[layer.layer_id].half()  # positive: f2 CL001 overriding property flattens super()'s whole buffers
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.mla_decode(q, m, o, forward_batch.seq_lens)
        return o
