"""The latent part of an MLA buffer taken with split sizes, tensor_split and narrow."""
import torch


class SplitMLABackend:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank
        self.qk_rope_head_dim = model_runner.model_config.qk_rope_head_dim

    def forward_decode(self, q, k, v, layer, forward_batch):
        buf = self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        r, p = self.kv_lora_rank, self.qk_rope_head_dim
        c1 = torch.split(buf, [r, p], dim=-1)[0].to(q.dtype)  # positive: f5 CL001 every token's latent part via split sizes
        lat, _ = buf.split([r, p], -1)
        c2 = lat.float()  # positive: f5 CL001 every token's latent part, unpacked
        c3 = torch.tensor_split(buf, [r], dim=-1)[0].to(q.dtype)  # positive: f5 CL001 every token's latent part via tensor_split
        c4 = buf.narrow(-1, 0, r).to(q.dtype)  # positive: f5 CL001 every token's latent part via narrow on the last dim
        q_nope, q_pe = q.split([r, p], dim=-1)
        n1 = q_nope.float()  # negative: batch query part
        n2 = buf.narrow(0, 0, forward_batch.batch_size).to(q.dtype)  # negative: the first bs rows only
        n3 = torch.split(buf, [r, p], dim=-1)[0].view(torch.uint8)  # negative: reinterpret of the latent part
        return c1, c2, c3, c4, n1, n2
