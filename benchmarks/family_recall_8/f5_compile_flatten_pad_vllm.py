import torch
import torch.nn.functional as F


class PadFlipImpl:
    def forward_mqa(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        lat = kv_c_and_k_pe_cache[..., :512]
        a = F.pad(lat, (0, 64)).to(q.dtype)  # positive: f5 CL001 pad of every token's latent part
        b = lat.flip(0).half()  # positive: f5 CL001 flip of the whole latent part
        c = kv_c_and_k_pe_cache.flatten().float()  # positive: f5 CL001 flatten of the whole cache
        d = kv_c_and_k_pe_cache.contiguous().view(-1, 576).to(q.dtype)  # positive: f5 CL001 contiguous view of the whole cache
        bt = attn_metadata.decode.block_table
        e = kv_c_and_k_pe_cache[bt].to(q.dtype)  # negative: gathered blocks
        return a, b, c, d, e

    def forward_mha(self, q, kv_c_normed, k_pe, kv_c_and_k_pe_cache, attn_metadata, k_scale, output):
        x = kv_c_normed.to(q.dtype)  # negative: the step's latents
        y = k_scale.float()  # negative: scale
        return x, y
