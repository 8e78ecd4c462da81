"""The plane getter and the compute dtype are class attributes."""

import torch


class _PlanePolicy:
    COMPUTE_DTYPE = torch.bfloat16
    plane = staticmethod(lambda pool, lid: pool.get_key_buffer(lid))
    window = staticmethod(lambda pool, lid, loc: pool.get_key_buffer(lid)[loc])


class LatentOnlyPolicy(_PlanePolicy):
    plane = staticmethod(lambda pool, lid: pool.get_key_buffer(lid)[..., :512])


class PolicyBackend(_PlanePolicy):
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.seq_scratch = torch.zeros(256, dtype=torch.int32, device="cuda")

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        p = self.plane(self.pool, layer.layer_id)
        pc = p.to(self.COMPUTE_DTYPE)  # positive: f2 CL001 class-attribute getter returns the whole key buffer
        lens = self.seq_scratch.to(torch.int64)  # negative: scratch of sequence lengths
        o = q.new_empty(q.shape[0], layer.tp_q_head_num, 512)
        torch.ops.sgl_kernel.mla_decode(q.to(self.COMPUTE_DTYPE), pc, o, lens)  # negative: batch query
        return o

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        w = self.window(self.pool, layer.layer_id, forward_batch.out_cache_loc)
        wc = w.to(self.COMPUTE_DTYPE)  # negative: class-attribute getter that gathers the step's rows
        o = q.new_empty(q.shape[0], layer.tp_q_head_num, 512)
        torch.ops.sgl_kernel.mla_extend(q, wc, o, forward_batch.extend_seq_lens)
        return o


class LatentPolicyBackend(LatentOnlyPolicy, PolicyBackend):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lat = self.plane(self.pool, layer.layer_id).to(self.COMPUTE_DTYPE)  # positive: f2 CL001 overriding class attribute keeps every token (feature slice)
        o = q.new_empty(q.shape[0], layer.tp_q_head_num, 512)
        torch.ops.sgl_kernel.mla_decode(q, lat, o, forward_batch.seq_lens)
        return o
