"""unfold over the token axis, the rope part via narrow(-1, r, p) and `[..., -p:]`, and a host copy converted."""
import torch


class RopePartsBackend:
    def __init__(self, model_runner):
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank
        self.rope_dim = model_runner.model_config.qk_rope_head_dim

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        a = kv.unfold(0, 1, 1).float()  # positive: f5 CL001 unfold with size 1 and step 1 keeps every token
        b = kv.narrow(-1, self.kv_lora_rank, self.rope_dim).to(q.dtype)  # positive: f5 CL001 every token's rope part via narrow
        c = kv[..., -self.rope_dim:].to(q.dtype)  # positive: f5 CL001 every token's rope part via a negative-start slice
        d = kv.cpu().half()  # positive: f5 CL001 whole buffer copied to host then converted
        loc = forward_batch.out_cache_loc
        e = kv[loc].cpu().float()  # negative: gathered rows on host
        f = kv[..., -self.rope_dim:][loc].to(q.dtype)  # negative: rope part of this step's rows
        return a, b, c, d, e, f
