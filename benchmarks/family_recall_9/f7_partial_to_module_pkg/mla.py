from .access import to_bf16, to_long


class PartialModuleMLAImpl:
    def forward_mqa(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        latent = to_bf16(kv_c_and_k_pe_cache[..., :512])  # positive: f7 CL001 every token's latent via the access.py partial
        tables = to_long(attn_metadata.decode.block_table)  # negative: block table
        return q, latent, tables
