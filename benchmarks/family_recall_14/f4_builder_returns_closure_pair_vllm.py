"""A builder returning two closures over the key/value planes of the layer's cache."""
import torch


def make_plane_loaders(kv_cache: torch.Tensor, dtype: torch.dtype):
    key_cache, value_cache = kv_cache.unbind(0)

    def load_k():
        return key_cache.to(dtype)  # positive: f4 CL001 closure over the whole key plane, called from forward

    def load_v():
        return value_cache.to(dtype)  # positive: f4 CL001 closure over the whole value plane

    return load_k, load_v


def make_block_loader(kv_cache: torch.Tensor, block_table: torch.Tensor, dtype: torch.dtype):
    def load():
        return kv_cache[:, block_table].to(dtype)  # negative: the batch's blocks only

    return load


class CpuSdpaFallbackImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        if attn_metadata.num_decode_tokens == 0:
            load = make_block_loader(kv_cache, attn_metadata.block_table, query.dtype)
            return self._prefill(query, key, value, load(), attn_metadata, output)
        load_k, load_v = make_plane_loaders(kv_cache, query.dtype)
        k_all, v_all = load_k(), load_v()
        seq_lens = attn_metadata.seq_lens.to(torch.int64)  # negative: lengths
        return self._decode(query, k_all, v_all, seq_lens, output)
