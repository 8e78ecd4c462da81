import torch


class MLAImplTemplate:
    def forward(self, layer, q, kv_c_normed, k_pe, kv_cache, attn_metadata, output=None):
        nd = attn_metadata.num_decode_tokens
        if attn_metadata.prefill is not None:
            self._prefill(q[nd:], kv_c_normed[nd:], kv_cache, attn_metadata)
        if attn_metadata.decode is not None:
            return self._forward_decode(q[:nd], kv_cache, attn_metadata, layer)
        return output

    def _prefill(self, q, kv_c, kv_cache, attn_metadata):
        ctx = kv_cache[attn_metadata.prefill.block_table].to(q.dtype)  # negative: context blocks gathered first
        new = kv_c.to(q.dtype)  # negative: the step's latents
        return ctx, new

    def _forward_decode(self, q, kv_cache, attn_metadata, layer):
        raise NotImplementedError


class TorchRefMLAImpl(MLAImplTemplate):
    def _forward_decode(self, q, kv_cache, attn_metadata, layer):
        dense = kv_cache.to(q.dtype)  # positive: f2 CL001 whole latent cache handed to the subclass decode hook
        bt = attn_metadata.decode.block_table.to(torch.int64)  # negative: block table
        return dense, bt


class Fp8NativeMLAImpl(MLAImplTemplate):
    def _forward_decode(self, q, kv_cache, attn_metadata, layer):
        cache8 = kv_cache.view(torch.float8_e4m3fn)  # negative: reinterpret
        q8 = q.to(torch.float8_e4m3fn)  # negative: the step's queries
        return cache8, q8, layer._k_scale.float()  # negative: scale
