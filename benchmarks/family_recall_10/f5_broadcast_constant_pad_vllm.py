"""torch.broadcast_tensors(x, x)[0] and a zero-width torch.constant_pad_nd keep the whole cache."""
import torch


class BroadcastPadImpl:
    def __init__(self, num_heads, head_size):
        self.num_heads = num_heads
        self.head_size = head_size

    def forward_mqa(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        a = torch.broadcast_tensors(kv_c_and_k_pe_cache, kv_c_and_k_pe_cache)[0].float()  # positive: f5 CL001 broadcast with itself
        b = torch.constant_pad_nd(kv_c_and_k_pe_cache, (0, 0)).half()  # positive: f5 CL001 zero-width pad
        c = torch.constant_pad_nd(kv_c_and_k_pe_cache[..., :512], (0, 64)).to(q.dtype)  # positive: f5 CL001 latent part padded back to 576
        qb = torch.broadcast_tensors(q, q)[1].float()  # negative: the step's queries
        bt = attn_metadata.decode.block_table.to(torch.int64)  # negative: block table
        return a, b, c, qb, bt
