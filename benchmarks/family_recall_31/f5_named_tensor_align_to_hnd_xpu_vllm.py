# vLLM Intel XPU (IPEX) paged attention for an FP8 cache, kernel reading only fp16/bf16 HND: the impl
# names the plane dimensions and permutes them with refine_names(...).align_to(...) before widening.
import torch

_NHD = ("blocks", "slots", "heads", "dim")
_HND = ("blocks", "heads", "slots", "dim")


class XPUPagedAttentionImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        k = key_cache.refine_names(*_NHD).align_to(*_HND).rename(None)
        v = value_cache.refine_names(*_NHD).align_to(*_HND).rename(None)
        if attn_metadata.num_decode_tokens:
            k_hnd = k.to(query.dtype)  # positive: f5 CL001 whole key plane after a names-only permute
            v_hnd = v.to(query.dtype)  # positive: f5 CL001 whole value plane after a names-only permute
        else:
            first = attn_metadata.block_tables[:, 0]
            k_hnd = k[first].to(query.dtype)  # negative: first block of each request
            v_hnd = v[first].to(query.dtype)  # negative: first block of each request
        return self._ipex_paged(query, k_hnd, v_hnd, attn_metadata, output)

    def _ipex_paged(self, query, k, v, attn_metadata, output):
        seq_lens = attn_metadata.seq_lens.to(torch.int32)  # negative: lengths
        return torch.ops.torch_ipex.paged_attention(output, query, k, v, attn_metadata.block_tables, seq_lens)
