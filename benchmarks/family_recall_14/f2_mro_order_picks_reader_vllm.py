"""Two reader mixins; the base order of each impl decides which _read_kv runs (MRO)."""
import torch


class GatherKVReader:
    def _read_kv(self, kv_cache, attn_metadata, dtype):
        key_cache, value_cache = kv_cache.unbind(0)
        blocks = attn_metadata.block_table[:, : attn_metadata.max_num_blocks]
        keys = key_cache[blocks].to(dtype)  # negative: the batch's blocks
        values = value_cache[blocks].to(dtype)  # negative: the batch's blocks
        return keys, values


class UpcastKVReader:
    def _read_kv(self, kv_cache, attn_metadata, dtype):
        key_cache, value_cache = kv_cache.unbind(0)
        key_cache = key_cache.to(dtype)  # positive: f2 CL001 FallbackImpl's MRO puts this reader first
        value_cache = value_cache.to(dtype)  # positive: f2 CL001 same, value plane
        return key_cache, value_cache


class FlashAttnImplBase:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = self._read_kv(kv_cache, attn_metadata, query.dtype)
        return self._attend(query, key_cache, value_cache, attn_metadata, output)


class FallbackImpl(UpcastKVReader, GatherKVReader, FlashAttnImplBase):
    """No FP8 kernel: UpcastKVReader._read_kv wins the MRO."""


class PagedImpl(GatherKVReader, UpcastKVReader, FlashAttnImplBase):
    """GatherKVReader._read_kv wins the MRO."""

    def _attend(self, query, keys, values, attn_metadata, output):
        return torch.ops.vllm.paged_sdpa(query, keys, values, attn_metadata.seq_lens.to(torch.int32))  # negative: lengths
