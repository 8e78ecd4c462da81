import torch


class SplitVariantsBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.kv_lora_rank = 512
        self.rope_dim = 64

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = self.pool.get_key_buffer(layer.layer_id)
        nope, rope = torch.split(buf, [self.kv_lora_rank, self.rope_dim], dim=-1)
        a = nope.to(q.dtype)  # positive: f5 CL001 latent part of every token (torch.split)
        b = rope.to(q.dtype)  # positive: f5 CL001 rope part of every token
        (c0,) = torch.unbind(buf, dim=1)
        c = c0.float()  # positive: f5 CL001 unbind over the single head dim keeps every token
        d = buf.chunk(9, dim=-1)[-1].half()  # positive: f5 CL001 last feature chunk of every token
        e = torch.dsplit(buf, [self.kv_lora_rank])[0].bfloat16()  # positive: f5 CL001 dsplit latent part
        f = buf[: forward_batch.seq_lens_sum].split(64, dim=0)[0].to(q.dtype)  # negative: bounded by the step's tokens
        return a, b, c, d, e, f
