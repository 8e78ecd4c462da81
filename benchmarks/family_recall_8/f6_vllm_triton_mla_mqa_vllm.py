import torch


class MLACommonImpl:
    def forward(self, layer, q, k_c_normed, k_pe, kv_cache, attn_metadata, output=None):
        if attn_metadata.num_decodes:
            out = self.forward_mqa(q, kv_cache, attn_metadata, layer)
        if attn_metadata.num_prefills:
            out = self.forward_mha(q, k_c_normed, k_pe, kv_cache, attn_metadata, layer._k_scale, output)
        return out


class TritonMLAImplLite(MLACommonImpl):
    kv_lora_rank = 512

    def forward_mqa(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        kv_c_cache = kv_c_and_k_pe_cache[..., : self.kv_lora_rank]
        PAGE_SIZE = kv_c_and_k_pe_cache.size(1)
        dense = kv_c_and_k_pe_cache.to(q.dtype)  # positive: f6 CL001 whole latent cache in forward_mqa
        lat = kv_c_cache.to(q.dtype)  # positive: f6 CL001 every token's latent part
        return dense, lat, PAGE_SIZE

    def forward_mha(self, q, kv_c_normed, k_pe, kv_c_and_k_pe_cache, attn_metadata, k_scale, output):
        ctx = kv_c_and_k_pe_cache[attn_metadata.prefill.block_table].to(q.dtype)  # negative: gathered context blocks
        return ctx, k_pe.to(q.dtype)  # negative: the step's k_pe
