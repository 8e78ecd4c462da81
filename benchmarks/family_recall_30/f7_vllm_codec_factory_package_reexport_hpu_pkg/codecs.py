"""KV cache codecs for the HPU impl, chosen by kv_cache_dtype."""
import torch


class _PassThroughCodec:
    def decode(self, cache):
        return cache

    def decode_blocks(self, cache, blocks):
        return cache.index_select(0, blocks)


class _Fp8ToBf16Codec(_PassThroughCodec):
    def decode(self, cache):
        return cache.to(torch.bfloat16)  # positive: f7 CL001 whole HPU cache (called from hpu_impl.forward for key and value)

    def decode_blocks(self, cache, blocks):
        return cache.index_select(0, blocks).to(torch.bfloat16)  # negative: blocks selected first


def make_codec(kv_cache_dtype):
    return _Fp8ToBf16Codec() if kv_cache_dtype.startswith("fp8") else _PassThroughCodec()
