"""Many spellings of a dtype conversion applied to the whole latent buffer."""

import torch


class SpellingsBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = self.pool.get_key_buffer(layer.layer_id)
        a = buf.to(dtype=self.dtype)  # positive: f5 CL001 .to(dtype=...) keyword form on the whole buffer
        b = buf.type(torch.bfloat16)  # positive: f5 CL001 .type(dtype) on the whole buffer
        c = buf.type_as(q)  # positive: f5 CL001 .type_as(q) converts the whole buffer to q's dtype
        tname = buf.type()  # negative: .type() without argument returns the type name
        d = buf.to(q.device)  # negative: device only
        e = buf.to(buf.dtype)  # negative: same dtype, no conversion
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.mla_decode(q, a, b, c, d, e, o, tname)
        return o

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = self.pool.get_value_buffer(layer.layer_id)
        f = buf.to(q)  # positive: f5 CL001 .to(other_tensor) takes q's dtype for the whole buffer
        g = buf.to(q.device, q.dtype)  # positive: f5 CL001 .to(device, dtype) positional
        h = buf.to(device=q.device, dtype=torch.float32, non_blocking=True)  # positive: f5 CL001 .to(device=, dtype=) keywords
        kk = k.type_as(q)  # negative: batch key
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.mla_extend(q, kk, f, g, h, o, forward_batch.extend_seq_lens)
        return o
