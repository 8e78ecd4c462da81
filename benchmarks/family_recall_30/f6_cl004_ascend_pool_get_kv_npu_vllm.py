"""vLLM-Ascend: a KV pool class whose get_kv(layer_name) converts both whole caches; the NPU backend calls it for decode-only steps."""
import torch

from vllm_ascend.attention.attention_v1 import AscendAttentionBackendImpl, AscendAttentionState


class AscendKVCachePool:
    def __init__(self, kv_caches, compute_dtype=torch.float16):
        self.kv_caches = kv_caches  # layer_name -> (key_cache, value_cache), int8
        self.compute_dtype = compute_dtype

    def get_kv(self, layer_name):
        k, v = self.kv_caches[layer_name]
        return k.to(self.compute_dtype), v.to(self.compute_dtype)  # positive: f6 CL004 pool accessor converting both whole caches (one line)

    def get_kv_blocks(self, layer_name, block_ids):
        k, v = self.kv_caches[layer_name]
        return k[block_ids].to(self.compute_dtype), v[block_ids].to(self.compute_dtype)  # negative: blocks selected first


class AscendInt8DenseImpl(AscendAttentionBackendImpl):
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None, **kw):
        if attn_metadata.attn_state == AscendAttentionState.DecodeOnly:
            k, v = self.pool.get_kv(layer.layer_name)
        else:
            k, v = self.pool.get_kv_blocks(layer.layer_name, attn_metadata.block_tables[:, 0])
        key = key.to(torch.int8)  # negative: new tokens quantised for the write
        return self._npu_attention(query, k, v, attn_metadata, output)
